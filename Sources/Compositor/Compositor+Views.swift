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
    /// loop turn's time. A turn with nothing waiting on time (the common one) does not walk the
    /// outputs, which cost some 200 instructions of retains a turn; it keeps its time for
    /// `viewsWillTakeTouch()`.
    func advanceViews() {
        guard viewsWaitOnTime else {
            viewsSkippedTime = loopClock.now
            return
        }
        let now = Self.seconds(nanoseconds: loopClock.now)
        var waiting = false
        for output in outputs {
            output.dispatcher.advance(to: now)
            if output.dispatcher.waitsOnTime { waiting = true }
        }
        viewsWaitOnTime = waiting
    }

    /// A touch goes to a view: the dispatchers catch up to the turns that did not tell them the
    /// time, so that the touches they cancel are stamped as if every turn had (their latest time).
    func viewsWillTakeTouch() {
        guard !viewsWaitOnTime else { return }
        viewsWaitOnTime = true
        guard viewsSkippedTime != 0 else { return }
        let time = Self.seconds(nanoseconds: viewsSkippedTime)
        for output in outputs { output.dispatcher.advance(to: time) }
    }

    private static func seconds(nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }
}
