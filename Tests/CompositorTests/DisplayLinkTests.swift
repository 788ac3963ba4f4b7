import Compositor
import Foundation
import Graphics
import LayerKit
import Renderer
import Testing

/// The compositor's own GPU content on a headless output: a `VulkanLayer` made on the output's
/// renderer, drawn by the animated pattern for each frame's target time from a display link.
@Suite(.serialized) struct DisplayLinkTests {
    /// The pattern's clear colour at `time` as the output shows it (8-bit channels).
    static func expectedPixel(at time: Double) -> [Int] {
        let c = AnimatedPatternRenderer.clearColor(at: time)
        return [c.red, c.green, c.blue].map { Int(($0 * 255).rounded()) }
    }

    static func channels(_ pixel: PremultipliedPixel) -> [Int] {
        [Int(pixel.red), Int(pixel.green), Int(pixel.blue)]
    }

    static func isNear(_ a: [Int], _ b: [Int]) -> Bool {
        zip(a, b).allSatisfy { abs($0 - $1) <= 1 }
    }

    /// A 64×64 output at rest showing a `VulkanLayer` over all of it, and its pattern.
    static func patternSession() throws -> (HeadlessSession, VulkanLayer, AnimatedPatternRenderer) {
        let session = try HeadlessSession(width: 64, height: 64)
        let layer = try session.compositor.makeVulkanLayer(forOutputAt: 0)
        layer.anchorPoint = .zero
        layer.bounds = Rect(x: 0, y: 0, width: 64, height: 64)
        session.compositor.rootView().layer.addSublayer(layer)
        let pattern = try AnimatedPatternRenderer(layer: layer)
        let output = session.backend.headlessOutput(0)
        // The first frames (the tree without contents) are shown and the output settles.
        try #require(try session.run(seconds: 10) {
            session.compositor.outputsAreSettled && output.presentedFrameCount > 0 && !output.hasFrameWaitingToShow
        })
        return (session, layer, pattern)
    }

    /// Under the CPU renderer there is no device to run a `VulkanLayer`'s commands on: making one
    /// fails at once, with an error that names the way out.
    @Test func noVulkanLayerCanBeMadeUnderTheCPURenderer() throws {
        let session = try HeadlessSession(width: 64, height: 64, renderer: .cpu)
        #expect(throws: VulkanContentError.noVulkanDevice) { try session.compositor.makeVulkanLayer(forOutputAt: 0) }
        #expect(VulkanContentError.noVulkanDevice.description.contains("renderer = \"vulkan\""))
    }

    @Test func theDisplayLinkDrawsEachFrameForItsTargetTimeUntilInvalidated() throws {
        let (session, _, pattern) = try Self.patternSession()
        let output = session.backend.headlessOutput(0)
        let framesBefore = output.presentedFrameCount
        var times: [Double] = []
        var shown: [(time: Double, calls: Int, frames: Int, pixel: [Int])] = []
        let presented = session.compositor.framePresented.listen { _ in
            guard let time = times.last, let screen = session.screen else { return }
            shown.append((time, times.count, output.presentedFrameCount - framesBefore, Self.channels(screen.pixel(x: 2, y: 2))))
        }
        defer { presented.cancel() }
        let link = session.compositor.addDisplayLink(onOutputAt: 0) { link in
            times.append(link.targetTimestamp)
            do { try pattern.renderFrame(at: link.targetTimestamp - times[0]) } catch { Issue.record("\(error)") }
            if times.count == 6 { link.invalidate() }
        }
        // 60 Hz in whole nanoseconds.
        #expect(link.duration == 0.016_666_666)
        #expect(try session.run(seconds: 20) { shown.count == 6 })
        // Once per frame, for refreshes to come, each later than the last.
        #expect(shown.map(\.calls) == [1, 2, 3, 4, 5, 6])
        #expect(shown.map(\.frames) == [1, 2, 3, 4, 5, 6])
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier >= link.duration * 0.999, "\(later - earlier) s between targets")
        }
        // Each frame shows the pattern of its own time: a new colour every frame.
        for frame in shown {
            #expect(Self.isNear(frame.pixel, Self.expectedPixel(at: frame.time - times[0])), "\(frame.pixel) at \(frame.time - times[0]) s")
        }
        for (earlier, later) in zip(shown, shown.dropFirst()) {
            #expect(earlier.pixel != later.pixel)
        }
        // Invalidated from its sixth call: no more calls and no more frames.
        #expect(!link.isValid)
        try session.run(seconds: 0.5)
        #expect(times.count == 6)
        #expect(output.presentedFrameCount == framesBefore + 6)
        #expect(session.compositor.outputsAreSettled)
    }

    @Test func aPresentOutsideADisplayLinkSchedulesOneFrame() throws {
        let (session, _, pattern) = try Self.patternSession()
        let output = session.backend.headlessOutput(0)
        let framesBefore = output.presentedFrameCount
        #expect(try pattern.renderFrame(clearColor: (1, 0.2, 0), angle: nil))
        #expect(try session.run(seconds: 10) { output.presentedFrameCount == framesBefore + 1 && !output.hasFrameWaitingToShow })
        #expect(session.screen.map { Self.channels($0.pixel(x: 32, y: 32)) } == [255, 51, 0])
        try session.run(seconds: 0.3)
        #expect(output.presentedFrameCount == framesBefore + 1)
    }
}
