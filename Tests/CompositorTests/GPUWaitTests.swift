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
        let drawable = try #require(try layer.nextDrawable())
        try drawable.encode { _ in }
        let late = try TimelineSemaphore(context: layer.queue.context)
        drawable.slot.texture.readyPoint = TimelinePoint(timeline: late, value: 1)
        var presented = 0
        let listener = output.backend.frameScheduler.presented.listen { _ in presented += 1 }
        defer { listener.cancel() }
        drawable.present()
        // The frame of the tree before the present goes by; the one showing the drawable stays.
        try session.run(seconds: 0.5)
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
}
