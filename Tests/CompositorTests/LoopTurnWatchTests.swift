@testable import Compositor
import Testing

/// What a loop turn looks after only when something needs it: the pointer for screen capture. The
/// common turn (a client's new frame) does not.
@Suite(.serialized) struct LoopTurnWatchTests {
    @Test func aTurnWithoutCaptureDoesNotWatchThePointer() throws {
        let session = try HeadlessSession()
        session.compositor.pointerMoved(toX: 310, y: 230)
        try session.compositor.dispatch(timeoutMilliseconds: 0)
        #expect(!session.compositor.screenCapture.watchesPointer)
    }
}
