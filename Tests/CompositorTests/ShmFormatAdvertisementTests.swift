import Buffers
import Graphics
import Testing
@testable import Compositor
import WaylandTestClient

/// wl_shm formats beyond ARGB8888 and XRGB8888: advertised, and shown as the same pixels.
@Suite struct ShmFormatAdvertisementTests {
    @Test func wlShmAdvertisesEveryFormatAndAClientBufferInOneShowsOnScreen() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        try client.client.roundtrip()
        let advertised = client.shm.events.map { event in
            switch event {
            case .format(let format): format.rawValue
            }
        }
        #expect(Set(advertised) == Set(PixelFormat.readable.map(\.shmCode)))

        // A 64×64 toplevel in ABGR8888 (memory order R, G, B, A), opaque orange.
        let (surface, _) = try client.makeToplevel()
        let buffer = try client.makeBuffer(
            width: 64, height: 64, format: WlShmFormat(rawValue: PixelFormat.abgr8888.shmCode),
            fill: fillPixels(UInt32(0xFF10_80FF).littleEndian, count: 64 * 64))
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 320, y: 240) == PremultipliedPixel(red: 0xFF, green: 0x80, blue: 0x10, alpha: 0xFF)
        })
    }
}
