/// A callback on every frame one output is about to draw, for content the compositor's process
/// renders itself (CADisplayLink's role): the callback draws the frame of `targetTimestamp`
/// (a `VulkanLayer`'s next drawable, presented), and that frame shows it.
///
/// While a link is valid its output draws every refresh, as a display link keeps the display
/// running; `invalidate()` stops the callbacks and the frames they asked for. Made by
/// `Compositor.addDisplayLink(onOutputAt:_:)`; used on the compositor's thread only.
public final class DisplayLink {
    /// When the frame about to be drawn is meant to reach the screen, in seconds of
    /// CLOCK_MONOTONIC (CADisplayLink's `targetTimestamp`): the time to render content for.
    public private(set) var targetTimestamp: Double = 0
    /// The output's refresh period in seconds (CADisplayLink's `duration`).
    public let duration: Double
    public private(set) var isValid = true
    private let callback: (DisplayLink) -> Void
    /// Removes the link from its output.
    private var detach: ((DisplayLink) -> Void)?

    init(duration: Double, callback: @escaping (DisplayLink) -> Void, detach: @escaping (DisplayLink) -> Void) {
        self.duration = duration
        self.callback = callback
        self.detach = detach
    }

    /// Stops the callbacks for good; the output goes on drawing only for other reasons. Safe to
    /// call from the callback itself.
    public func invalidate() {
        guard isValid else { return }
        isValid = false
        detach?(self)
        detach = nil
    }

    func fire(targetNanoseconds: UInt64) {
        guard isValid else { return }
        targetTimestamp = Double(targetNanoseconds) / 1e9
        callback(self)
    }
}
