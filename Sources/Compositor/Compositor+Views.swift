import DisplayBackend
import LayerKit
import SystemCalls
import Views

/// The compositor's own views take input before the clients under them: a press, a touch or a
/// scroll on one of them is theirs (with the dispatcher's capture, hover, focus and gestures),
/// anything elsewhere goes to the client surface under it.
extension Compositor {
    /// The root of output `index`'s view tree, in the output's logical points, above the windows.
    public func rootView(ofOutputAt index: Int = 0) -> RootView {
        outputs[index].rootView
    }

    /// Gives keys to `responder` (a view of the compositor's) instead of the focused client; nil
    /// gives them back to the client.
    @discardableResult
    public func makeFirstResponder(_ responder: Responder?, onOutputAt index: Int = 0) -> Bool {
        outputs[index].dispatcher.makeFirstResponder(responder)
    }

    /// The views' clock: input event times, in seconds of CLOCK_MONOTONIC.
    static func seconds(_ milliseconds: UInt32) -> Double { Double(milliseconds) / 1000 }

    /// Lets the views' gesture recognizers act on time alone (a long press), once per loop, at the
    /// loop turn's time.
    func advanceViews() {
        let now = Double(loopClock.now) / 1e9
        for output in outputs { output.dispatcher.advance(to: now) }
    }
}
