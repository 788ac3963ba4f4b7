import LayerKit

/// Recognizes a quick stroke of one finger in one of `direction`'s directions
/// (UISwipeGestureRecognizer); discrete.
///
/// UIKit publishes no thresholds, so Vitrine picks ones that keep a slow drag (a pan) from
/// counting: the stroke must cover at least `minimumDistance` (50 points, five times the tap
/// allowance) along the direction at an average of at least `minimumSpeed` (200 points per second,
/// so at most 0.25 s for 50 points), and stray from it at most half as far as it goes (within
/// about 26.6°). It recognizes as soon as a move meets all three, and fails at the lift if none did.
open class SwipeGestureRecognizer: GestureRecognizer {
    public struct Direction: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let right = Direction(rawValue: 1)
        public static let left = Direction(rawValue: 2)
        public static let up = Direction(rawValue: 4)
        public static let down = Direction(rawValue: 8)
    }

    /// The directions that count; UIKit's default is right.
    public var direction = Direction.right
    public var minimumDistance = 50.0
    public var minimumSpeed = 200.0

    private var start = Point.zero
    private var startTime = 0.0

    open override func touchBegan(_ touch: TouchEvent) {
        guard touchIDs.count == 1 else { return transition(to: .failed) }
        start = touch.position
        startTime = touch.timestamp
    }

    open override func touchMoved(_ touch: TouchEvent) {
        if isSwipe(touch) { transition(to: .recognized) }
    }

    open override func touchEnded(_ touch: TouchEvent) {
        transition(to: isSwipe(touch) ? .recognized : .failed)
    }

    private func isSwipe(_ touch: TouchEvent) -> Bool {
        let dx = touch.position.x - start.x, dy = touch.position.y - start.y
        let elapsed = touch.timestamp - startTime
        let candidates: [(Direction, Double, Double)] = [
            (.right, dx, dy), (.left, -dx, dy), (.down, dy, dx), (.up, -dy, dx),
        ]
        return candidates.contains { dir, along, across in
            direction.contains(dir) && along >= minimumDistance && abs(across) * 2 <= along
                && (elapsed <= 0 || along / elapsed >= minimumSpeed)
        }
    }
}
