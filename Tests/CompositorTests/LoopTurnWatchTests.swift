@testable import Compositor
import Graphics
import Testing
import Views

/// What a loop turn looks after only when something needs it: the pointer for screen capture, the
/// time for the compositor's views. The common turn (a client's new frame) does neither.
@Suite(.serialized) struct LoopTurnWatchTests {
    /// A 20×20 view at (300, 220) on the 640×480 output, taking touches.
    private func sessionWithView() throws -> HeadlessSession {
        let session = try HeadlessSession()
        let view = View()
        view.frame = Rect(x: 300, y: 220, width: 20, height: 20)
        session.compositor.rootView().addSubview(view)
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        return session
    }

    @Test func aTurnWithoutCaptureDoesNotWatchThePointer() throws {
        let session = try HeadlessSession()
        session.compositor.pointerMoved(toX: 310, y: 230)
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        #expect(!session.compositor.screenCapture.watchesPointer)
    }

    @Test func aTurnWithoutATouchOnAViewDoesNotTellTheViewsTheTime() throws {
        let session = try sessionWithView()
        session.compositor.pointerMoved(toX: 310, y: 230)
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        #expect(!session.compositor.viewsWaitOnTime)
    }

    /// A touch on a view makes the turns tell the views the time until it is lifted; the turn
    /// after finds nothing waiting and stops.
    @Test func aTouchOnAViewIsToldTheTimeUntilItIsLifted() throws {
        let session = try sessionWithView()
        session.compositor.touchDown(id: 0, x: 305, y: 226)
        #expect(session.compositor.viewsWaitOnTime)
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        #expect(session.compositor.viewsWaitOnTime)
        session.compositor.touchUp(id: 0)
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        #expect(!session.compositor.viewsWaitOnTime)
    }

    /// The dispatcher's time (which stamps the touches it cancels) is the latest turn's when a
    /// touch comes with an older event time, as when every turn told it the time.
    @Test func aTouchOnAViewFindsItsDispatcherAtTheLastTurnsTime() throws {
        let session = try sessionWithView()
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        let turn = Double(session.compositor.loopClock.now) / 1e9
        session.compositor.touchDown(id: 0, x: 305, y: 226, time: 1)
        #expect(session.compositor.outputs[0].dispatcher.currentTime == turn)
    }
}
