import LayerKit

/// Recognizes a dragging finger (UIPanGestureRecognizer); continuous. It begins once the finger
/// has moved more than `minimumDistance` from where it went down: 8 points, Android's touch slop
/// (ViewConfiguration TOUCH_SLOP, 8 dp; UIKit publishes no value). A finger lifted before that
/// fails it. Further fingers are ignored: the first one drives the pan.
open class PanGestureRecognizer: GestureRecognizer {
    public var minimumDistance = 8.0
    /// The span of recent samples the velocity is measured over (Android's VelocityTracker horizon, 0.1 s).
    public static let velocityWindow = 0.1

    /// The finger's movement since it went down, in the root view's space (points).
    public private(set) var translation = Point.zero
    /// Points per second in the root view's space, over the last `velocityWindow` of samples; at
    /// the end, the speed the finger had when it lifted (zero when it had stopped).
    public private(set) var velocity = Point.zero

    private var start = Point.zero
    private var drivingTouchID: Int32?
    private var samples: [(time: Double, position: Point)] = []

    open override func touchBegan(_ touch: TouchEvent) {
        guard drivingTouchID == nil else { return }
        drivingTouchID = touch.id
        start = touch.position
        samples = [(touch.timestamp, touch.position)]
    }

    open override func touchMoved(_ touch: TouchEvent) {
        guard touch.id == drivingTouchID else { return }
        track(touch)
        switch state {
        case .possible where distance(touch.position, start) > minimumDistance:
            transition(to: .began)
        case .began, .changed:
            transition(to: .changed)
        default:
            break
        }
    }

    open override func touchEnded(_ touch: TouchEvent) {
        guard touch.id == drivingTouchID else { return }
        drivingTouchID = nil
        track(touch)
        transition(to: state == .began || state == .changed ? .ended : .failed)
    }

    /// The translation expressed in `view`'s bounds space (a vector, so the view's translation and
    /// origin do not count, its rotation and scale do), through the model geometry.
    public func translation(in view: View) -> Point {
        let origin = view.convert(Point.zero, from: nil)
        let moved = view.convert(translation, from: nil)
        return Point(x: moved.x - origin.x, y: moved.y - origin.y)
    }

    private func track(_ touch: TouchEvent) {
        translation = Point(x: touch.position.x - start.x, y: touch.position.y - start.y)
        samples.append((touch.timestamp, touch.position))
        samples.removeAll { touch.timestamp - $0.time > Self.velocityWindow }
        guard let oldest = samples.first, let newest = samples.last, newest.time > oldest.time else {
            velocity = .zero
            return
        }
        let dt = newest.time - oldest.time
        velocity = Point(x: (newest.position.x - oldest.position.x) / dt, y: (newest.position.y - oldest.position.y) / dt)
    }

    open override func reset() {
        translation = .zero
        velocity = .zero
        samples = []
        drivingTouchID = nil
        super.reset()
    }
}
