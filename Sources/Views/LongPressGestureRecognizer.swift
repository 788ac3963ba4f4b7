import LayerKit

/// Recognizes a finger held still (UILongPressGestureRecognizer); continuous: it begins once the
/// finger has been down `minimumPressDuration` (0.5 s, UIKit's default) without moving more than
/// `allowableMovement` (10 points, UIKit's default), even with no event arriving (the dispatcher's
/// `advance(to:)`), then reports moves as changed and the lift as ended.
open class LongPressGestureRecognizer: GestureRecognizer {
    public var minimumPressDuration = 0.5
    public var allowableMovement = 10.0

    private var downTime: Double?
    private var downPosition = Point.zero

    open override func touchBegan(_ touch: TouchEvent) {
        guard touchIDs.count == 1 else {
            if state == .possible { transition(to: .failed) }
            return
        }
        downTime = touch.timestamp
        downPosition = touch.position
    }

    open override func touchMoved(_ touch: TouchEvent) {
        guard touch.id == touchIDs.first else { return }
        switch state {
        case .possible where distance(touch.position, downPosition) > allowableMovement:
            transition(to: .failed)
        case .began, .changed:
            transition(to: .changed)
        default:
            break
        }
    }

    open override func touchEnded(_ touch: TouchEvent) {
        guard downTime != nil, touchIDs.isEmpty else { return }
        downTime = nil
        transition(to: state == .began || state == .changed ? .ended : .failed)
    }

    open override func advance(to time: Double) {
        guard state == .possible, let downTime, time - downTime >= minimumPressDuration else { return }
        transition(to: .began)
    }

    open override func reset() {
        downTime = nil
        super.reset()
    }
}
