import Compositor
import Foundation
import Glibc
import Graphics
import LayerKit
import Renderer
import Testing
import WaylandServer
import WaylandTestClient

/// A client surface is a layer: LayerKit's opacity and animations apply to what the client drew.
@Suite(.serialized) struct SurfaceLayerTests {
    /// Maps a 64×64 toplevel filled with `pixel` (ARGB8888) and returns its server-side surface.
    private func mapWindow(_ session: HeadlessSession, pixel: UInt32) throws -> (SessionClient, Surface) {
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64, fill: fillPixels(pixel, count: 64 * 64)), on: surface)
        try client.client.roundtrip()
        let serverSurface = try #require(client.server.resource(withID: surface.id) as? Surface)
        return (client, serverSurface)
    }

    @Test func aDamagedPartOfABufferIsAllThatIsReadAgain() throws {
        let session = try HeadlessSession()
        let sessionClient = try SessionClient(session)
        let (client, shm) = (sessionClient.client, sessionClient.shm)
        let (surface, _) = try sessionClient.makeToplevel()
        let size = 64 * 64 * 4
        let fd = anonymousFile(size: size)
        let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)!
        defer { munmap(memory, size) }
        func fill(_ pixel: UInt32, x: Range<Int>, y: Range<Int>) {
            for row in y { for column in x { memory.storeBytes(of: pixel, toByteOffset: (row * 64 + column) * 4, as: UInt32.self) } }
        }
        fill(0xffff_0000, x: 0..<64, y: 0..<64)
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
        close(fd)
        let buffer = try pool.createBuffer(offset: 0, width: 64, height: 64, stride: 256, format: .xrgb8888)
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.damageBuffer(x: 0, y: 0, width: Int32.max, height: Int32.max)  // damage_buffer: everything
        try surface.commit()
        try client.roundtrip()
        let serverSurface = try #require(sessionClient.server.resource(withID: surface.id) as? Surface)
        let content = try #require(session.compositor.layer(for: serverSurface)?.sublayers.first as? ExternalContentsLayer)
        let first = try #require(content.externalContents as? ClientBufferContents)
        #expect(try session.run(seconds: 30) { first.isUploaded })

        // The client paints a blue block but damages only part of it: only the damaged part is read.
        fill(0xff00_00ff, x: 8..<24, y: 8..<24)
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.damageBuffer(x: 8, y: 8, width: 8, height: 16)
        try surface.commit()
        try client.roundtrip()
        let second = try #require(content.externalContents as? ClientBufferContents)
        #expect(second.changedRect(since: first) == ImageRect(x: 8, y: 8, width: 8, height: 16))
        let uploaded = second.surface.uploadedBytes
        // Centred on the 640×480 output, the window starts at (288, 208).
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 288 + 10, y: 208 + 10) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        })
        #expect(session.screen?.pixel(x: 288 + 20, y: 208 + 10) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(second.surface.uploadedBytes == uploaded + 8 * 16 * 4)
    }

    @Test func opacityOnASurfaceLayerBlendsItOverTheWindowBelow() throws {
        let session = try HeadlessSession()
        let (red, _) = try mapWindow(session, pixel: 0xffff_0000)
        let (blue, blueSurface) = try mapWindow(session, pixel: 0xff00_00ff)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255) })
        let layer = try #require(session.compositor.layer(for: blueSurface))
        Transaction.begin()
        Transaction.disableActions = true
        layer.opacity = 0.5
        Transaction.commit()
        // Both 64×64 windows are centred, blue above red: half of each (±1 for rounding).
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 320, y: 240).isNear(PremultipliedPixel(red: 128, green: 0, blue: 128, alpha: 255), tolerance: 1) == true
        })
        // Outside the windows the output stays black.
        #expect(session.screen?.pixel(x: 10, y: 10) == black)
        _ = (red, blue)
    }

    @Test func anOpacityAnimationFadesTheWindowOutFrameByFrame() throws {
        let session = try HeadlessSession()
        let (red, _) = try mapWindow(session, pixel: 0xffff_0000)
        let (blue, blueSurface) = try mapWindow(session, pixel: 0xff00_00ff)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255) })
        let layer = try #require(session.compositor.layer(for: blueSurface))
        Transaction.begin()
        Transaction.animationDuration = 2
        Transaction.animationTimingFunction = .linear
        layer.opacity = 0
        Transaction.commit()
        // Frames during the two seconds show blue fading into red: some frame strictly between.
        var sawBlend = false
        let finished = try session.run(seconds: 30) {
            guard let pixel = session.screen?.pixel(x: 320, y: 240) else { return false }
            if pixel.red > 20 && pixel.red < 235 && pixel.blue > 20 && pixel.blue < 235 { sawBlend = true }
            return pixel == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        }
        #expect(sawBlend)
        #expect(finished)
        _ = (red, blue)
    }
}
