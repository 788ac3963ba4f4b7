import LayerKit

/// Recognizes one or more taps of one finger (UITapGestureRecognizer); discrete.
///
/// Thresholds, in points and seconds: a finger may move `allowableMovement` (10, UIKit's tap
/// allowance) while down and stay down `maximumPressDuration` (0.5, Android's long-press timeout:
/// longer is a long press); the taps of a multiple tap may be `maximumTapInterval` apart (0.3,
/// Android's DOUBLE_TAP_TIMEOUT) and land within `maximumTapDistance` of the first one (100,
/// Android's DOUBLE_TAP_SLOP). Limits are inclusive: exactly 10 points of movement still taps.
open class TapGestureRecognizer: GestureRecognizer {
    public var numberOfTapsRequired = 1
    public var allowableMovement = 10.0
    public var maximumPressDuration = 0.5
    public var maximumTapInterval = 0.3
    public var maximumTapDistance = 100.0

    private var tapsDone = 0
    private var downTime: Double?
    private var downPosition = Point.zero
    private var firstPosition = Point.zero
    private var lastUpTime: Double?

    open override func touchBegan(_ touch: TouchEvent) {
        guard touchIDs.count == 1 else { return transition(to: .failed) }
        if tapsDone == 0 {
            firstPosition = touch.position
        } else if let lastUpTime, touch.timestamp - lastUpTime > maximumTapInterval
            || distance(touch.position, firstPosition) > maximumTapDistance {
            return transition(to: .failed)
        }
        downTime = touch.timestamp
        downPosition = touch.position
    }

    open override func touchMoved(_ touch: TouchEvent) {
        if distance(touch.position, downPosition) > allowableMovement { transition(to: .failed) }
    }

    open override func touchEnded(_ touch: TouchEvent) {
        guard let downTime else { return }
        self.downTime = nil
        if touch.timestamp - downTime > maximumPressDuration || distance(touch.position, downPosition) > allowableMovement {
            return transition(to: .failed)
        }
        tapsDone += 1
        lastUpTime = touch.timestamp
        if tapsDone == numberOfTapsRequired { transition(to: .recognized) }
    }

    open override func advance(to time: Double) {
        guard state == .possible, heldState == nil else { return }
        if let downTime, time - downTime > maximumPressDuration {
            transition(to: .failed)
        } else if downTime == nil, tapsDone > 0, let lastUpTime, time - lastUpTime > maximumTapInterval {
            transition(to: .failed)
        }
    }

    open override func reset() {
        tapsDone = 0
        downTime = nil
        lastUpTime = nil
        super.reset()
    }
}
