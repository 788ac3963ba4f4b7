import Graphics
import Testing
import WaylandTestClient

@testable import Compositor
@testable import FaultInjection
@testable import Renderer

/// A GPU device lost in the middle of a frame (`VK_ERROR_DEVICE_LOST`, injected at a frame's
/// submission) is replaced: the outputs draw with renderers on a new device, client dma-bufs are
/// imported again, and later frames show the same scene.
@Suite(.serialized) struct DeviceLossTests {
    let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
    let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
    let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)

    /// Runs `commit` (a change that needs a frame) with `plan` armed, then the compositor until
    /// it replaced its device once and a frame followed.
    private func replaceDevice(of session: HeadlessSession, under plan: FaultPlan, after commit: () throws -> Void) throws {
        let output = session.backend.headlessOutput(0)
        try FaultInjection.during(plan) {
            try commit()
            #expect(try session.run(seconds: 30) { session.compositor.deviceReplacementCount == 1 })
            let replaced = output.presentedFrameCount
            #expect(try session.run(seconds: 30) { output.presentedFrameCount > replaced })
        }
    }

    @Test func aDeviceLostAtAFramesSubmissionIsReplacedAndLaterFramesShowTheSameScene() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        // A 200×100 dma-buf window (imported and copied on the device), centred: 220…420 × 190…290.
        let dmabufClient = try SessionClient(session)
        let dmabuf = try dmabufClient.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        let (dmabufSurface, _) = try dmabufClient.makeToplevel()
        let pixels = LinearDmabuf(width: 200, height: 100, pixel: [0, 0, 255, 255])
        let dmabufBuffer = try pixels.buffer(dmabuf, format: argb8888)
        try dmabufClient.show(dmabufBuffer, on: dmabufSurface)
        try dmabufClient.client.roundtrip()
        // Over it, a 64×64 shm window (a texture uploaded from an image): 288…352 × 208…272.
        let shmClient = try SessionClient(session)
        let (shmSurface, _) = try shmClient.makeToplevel()
        let shmBuffer = try shmClient.makeBuffer(width: 64, height: 64, fill: fillPixels(0xFF00_00FF, count: 64 * 64))
        try shmClient.show(shmBuffer, on: shmSurface)
        try shmClient.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 230, y: 200) == red && session.screen?.pixel(x: 320, y: 240) == blue })
        let before = try #require(session.screen)
        let lostDevice = try #require(session.compositor.device)

        let plan = try FaultPlan("vkQueueSubmit2@1=VK_ERROR_DEVICE_LOST")
        // The shm window's next commit needs a frame, whose submission is the first one made.
        try replaceDevice(of: session, under: plan) {
            try shmClient.show(shmBuffer, on: shmSurface)
            try shmClient.client.roundtrip()
        }
        #expect(plan.injectedCount == 1)
        #expect(session.compositor.device !== lostDevice)
        #expect(lostDevice.context.isLost)
        #expect(session.screen?.maximumChannelDifference(from: before) == 0)

        // The dma-buf imported again on the new device shows what its client writes next.
        pixels.paint(rows: 0..<100, [0, 255, 0, 255])
        try dmabufClient.show(dmabufBuffer, on: dmabufSurface)
        try dmabufClient.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 230, y: 200) == green })
        #expect(session.screen?.pixel(x: 320, y: 240) == blue)
    }

    /// When no new device can be made at once (the GPU still resetting: vkCreateDevice fails),
    /// the compositor tries again a second later, and then frames resume.
    @Test func aDeviceThatCannotBeMadeAtOnceIsMadeAtTheNextAttempt() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        let buffer = try client.makeBuffer(width: 64, height: 64, fill: fillPixels(0xFF00_00FF, count: 64 * 64))
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == blue })

        let plan = try FaultPlan("vkQueueSubmit2@1=VK_ERROR_DEVICE_LOST, vkCreateDevice@1=VK_ERROR_INITIALIZATION_FAILED")
        try replaceDevice(of: session, under: plan) {
            try client.show(buffer, on: surface)
            try client.client.roundtrip()
        }
        #expect(plan.injectedCount == 2)
        #expect(session.screen?.pixel(x: 320, y: 240) == blue)
    }
}
