import Glibc
import Graphics
import Input
import LayerKit
import Testing
import WaylandTestClient
@testable import Compositor
@testable import Renderer

/// The compositor's thread never waits for the GPU: a frame is submitted and committed once its
/// completion reaches the event loop, and input is dispatched meanwhile.
@Suite(.serialized) struct GPUWaitTests {
    private let device = InputDeviceID(rawValue: 1)

    /// 300 translucent layers over a 1920×1080 output, none hiding another: a frame lavapipe takes
    /// long to draw. While it is on the GPU a key press reaches the focused client.
    @Test func aKeyPressReachesTheClientWhileAHeavyFrameIsDrawn() throws {
        let session = try HeadlessSession(width: 1920, height: 1080)
        let window = try InputWindow(session)
        let output = session.compositor.outputs[0]
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 960, y: 540) == white })
        let frames = output.backend.frameScheduler.presented
        var presented = 0
        let listener = frames.listen { _ in presented += 1 }
        defer { listener.cancel() }
        Transaction.begin()
        let root = session.compositor.rootView(ofOutputAt: 0).layer
        for index in 0..<300 {
            let layer = Layer()
            layer.frame = root.bounds
            layer.backgroundColor = Color(red: Double(index % 3) / 2, green: 0.5, blue: 1, alpha: 0.01)
            root.addSublayer(layer)
        }
        Transaction.commit()
        #expect(try session.run(seconds: 60) { output.hasFrameInFlight })
        let before = presented
        session.compositor.handle(.key(time: 1_000_000, device: device, code: 30, isPressed: true))
        try window.client.client.roundtrip()
        #expect(window.keyboard.events.contains { if case .key = $0 { true } else { false } })
        // The frame was still on the GPU when the client had its key.
        #expect(output.hasFrameInFlight && presented == before)
        #expect(try session.run(seconds: 60) { presented == before + 1 })
    }

    /// A `VulkanLayer` drawable whose rendering is not done (its timeline value, which the test
    /// signals, stands for a late submission): the frame that shows it waits for it on the GPU,
    /// and a key press reaches the client meanwhile; the frame is shown once the drawable is done.
    @Test func aKeyPressReachesTheClientWhileAFrameWaitsForALateDrawable() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let window = try InputWindow(session)
        let output = session.compositor.outputs[0]
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == white })
        let layer = try session.compositor.makeVulkanLayer()
        Transaction.begin()
        layer.frame = Rect(x: 0, y: 0, width: 64, height: 64)
        session.compositor.rootView(ofOutputAt: 0).layer.addSublayer(layer)
        Transaction.commit()
        // The frame that adds the layer is shown before the drawable comes.
        #expect(try session.run(seconds: 30) { !output.hasFrameInFlight && output.isSettled })
        var presented = 0
        let listener = output.backend.frameScheduler.presented.listen { _ in presented += 1 }
        defer { listener.cancel() }
        let late = try presentLateDrawable(of: layer, in: session)
        #expect(output.hasFrameInFlight)
        let before = presented
        session.compositor.handle(.key(time: 2_000_000, device: device, code: 30, isPressed: true))
        try window.client.client.roundtrip()
        #expect(window.keyboard.events.contains { if case .key = $0 { true } else { false } })
        try session.run(seconds: 0.2)
        #expect(output.hasFrameInFlight && presented == before)
        try late.signalFromHost(1)
        #expect(try session.run(seconds: 30) { presented == before + 1 })
    }

    /// Presents a drawable of `layer` whose rendering is late (done once the test signals the
    /// returned timeline to 1). The frame of the tree before the present goes by; the one showing
    /// the drawable stays on the GPU.
    private func presentLateDrawable(of layer: VulkanLayer, in session: HeadlessSession) throws -> TimelineSemaphore {
        let drawable = try #require(try layer.nextDrawable())
        try drawable.encode { _ in }
        let late = try TimelineSemaphore(context: layer.queue.context)
        drawable.slot.texture.readyPoint = TimelinePoint(timeline: late, value: 1)
        drawable.present()
        try session.run(seconds: 0.5)
        return late
    }

    /// A dma-buf sampled in place by a frame still on the GPU (it waits for a late drawable over
    /// the window) and replaced meanwhile by a commit: it goes back to its client only once that
    /// frame is done, so that the client cannot write into pixels the GPU still reads.
    @Test func aReplacedDmabufIsReleasedOnlyOnceTheFrameSamplingItIsDone() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        let (surface, _) = try client.makeToplevel()
        let output = session.compositor.outputs[0]
        // At lavapipe's row pitch: sampled where it lies.
        let orange = LinearDmabuf(width: 64, height: 64, stride: 256, pixel: [0xFF, 0x80, 0x10, 0xFF])
        let blue = LinearDmabuf(width: 64, height: 64, stride: 256, pixel: [0xFF, 0x00, 0x00, 0xFF])
        defer { close(orange.fd); close(blue.fd) }
        let first = try orange.buffer(dmabuf, format: argb8888)
        try client.show(first, on: surface)
        try client.client.roundtrip()
        let layer = try session.compositor.makeVulkanLayer()
        Transaction.begin()
        // Over part of the window, which the frame showing the drawable draws again.
        layer.frame = Rect(x: 300, y: 220, width: 16, height: 16)
        session.compositor.rootView(ofOutputAt: 0).layer.addSublayer(layer)
        Transaction.commit()
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 290, y: 210) == PremultipliedPixel(red: 0x10, green: 0x80, blue: 0xFF, alpha: 0xFF)
                && !output.hasFrameInFlight && output.isSettled
        })
        let texture = try #require(session.compositor.nodes.values.first?.surfaceTexture)
        let samples = texture.inPlaceSamples
        var presented = 0
        let listener = output.backend.frameScheduler.presented.listen { _ in presented += 1 }
        defer { listener.cancel() }
        let late = try presentLateDrawable(of: layer, in: session)
        #expect(output.hasFrameInFlight && texture.inPlaceSamples == samples + 1)
        let before = presented

        let second = try blue.buffer(dmabuf, format: argb8888)
        try client.show(second, on: surface)
        try client.client.roundtrip()
        try session.run(seconds: 0.2)
        try client.client.roundtrip()
        #expect(output.hasFrameInFlight && presented == before)
        #expect(first.events.isEmpty && second.events.isEmpty)

        try late.signalFromHost(1)
        #expect(try session.run(seconds: 30) { presented > before })
        try client.client.roundtrip()
        #expect(first.events == [.release])
        #expect(second.events.isEmpty)
        #expect(try session.run(seconds: 30) {
            session.screen?.pixel(x: 290, y: 210) == PremultipliedPixel(red: 0, green: 0, blue: 0xFF, alpha: 0xFF)
        })
    }
}
