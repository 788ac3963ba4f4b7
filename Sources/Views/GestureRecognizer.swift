import LayerKit

/// Recognizes a gesture in the touches that reach its view or the view's subviews (UIGestureRecognizer).
///
/// The dispatcher gives each touch to the recognizers of the view it hit and of that view's
/// superviews, before the view itself. A recognizer reports what it sees by moving through its
/// states; the dispatcher arbitrates between recognizers:
/// - when one recognizes (a discrete gesture reaches `.recognized`, a continuous one `.began`),
///   the other recognizers still `.possible` on the same touches fail, as do those that require it
///   to fail, and, with `cancelsTouchesInView`, the view gets `touchCancelled` for its touches and
///   no more of their events;
/// - a recognizer that `require(toFail:)` another one waits while that one is `.possible` and
///   takes its recognition only once the other fails (a single tap waiting for a double tap).
///
/// Time is explicit: every touch has a timestamp, and `EventDispatcher.advance(to:)` lets a
/// recognizer act without an event (a long press begins, a double tap's wait runs out).
/// Distances are measured in the root view's space, in points, as the user sees them.
///
/// A recognizer keeps its final state (recognized, ended, cancelled, failed) until the next touch
/// sequence begins, then starts again from `.possible`.
open class GestureRecognizer {
    public enum State: Hashable, Sendable {
        case possible, began, changed, ended, cancelled, failed
        /// A discrete gesture's success, as in UIKit: the same state as `.ended`.
        public static let recognized = State.ended
    }

    public internal(set) weak var view: View?
    public private(set) var state = State.possible
    public var isEnabled = true
    /// Whether recognizing cancels the touches in the view (UIKit's default, true).
    public var cancelsTouchesInView = true
    /// The touches this recognizer follows, in the order they began.
    public private(set) var touchIDs: [Int32] = []
    /// The latest touch this recognizer saw.
    public private(set) var lastTouch: TouchEvent?

    private var actions: [(GestureRecognizer) -> Void] = []
    private var failureRequirements: [WeakRecognizer] = []
    /// A recognition held back until the recognizers in `failureRequirements` fail.
    var heldState: State?
    /// True from the first touch of a sequence until the recognizer starts again.
    var isInvolved = false
    weak var arena: EventDispatcher?

    public init() {}

    /// Runs `action` at every change to began, changed, ended (recognized) or cancelled.
    public func addAction(_ action: @escaping (GestureRecognizer) -> Void) {
        actions.append(action)
    }

    /// Makes this recognizer wait for `other` to fail before it recognizes, and fail when `other`
    /// recognizes.
    public func require(toFail other: GestureRecognizer) {
        precondition(other !== self, "GestureRecognizer.require(toFail:): a recognizer cannot wait for itself")
        failureRequirements.append(WeakRecognizer(other))
    }

    /// Where the latest touch is in `view`'s bounds space (nil: the root's space).
    public func location(in view: View?) -> Point? {
        guard let lastTouch else { return nil }
        guard let view else { return lastTouch.position }
        return lastTouch.location(in: view)
    }

    // MARK: - What subclasses implement

    open func touchBegan(_ touch: TouchEvent) {}
    open func touchMoved(_ touch: TouchEvent) {}
    open func touchEnded(_ touch: TouchEvent) {}

    /// A cancelled touch cancels a gesture in progress and fails one not yet recognized.
    open func touchCancelled(_ touch: TouchEvent) {
        transition(to: state == .began || state == .changed ? .cancelled : .failed)
    }

    /// Called as time passes without events (and before each event), with the compositor's input time.
    open func advance(to time: Double) {}

    /// Clears the subclass's state for a new sequence; overrides call super.
    open func reset() {}

    /// Moves to `newState`. Subclasses call it; the dispatcher arbitrates (see the type's notes).
    /// Final states are kept: a transition from one is ignored.
    public func transition(to newState: State) {
        guard !state.isFinal, heldState == nil, newState != state || newState == .changed else { return }
        let recognizes = state == .possible && (newState == .began || newState == .ended)
        if recognizes && mustWaitForFailures {
            heldState = newState
            return
        }
        apply(newState)
    }

    // MARK: - Arbitration (the dispatcher's side)

    var mustWaitForFailures: Bool {
        failureRequirements.contains { ref in
            guard let other = ref.recognizer else { return false }
            return other.isInvolved && other.isEnabled && other.state == .possible
        }
    }

    func requires(toFail other: GestureRecognizer) -> Bool {
        failureRequirements.contains { $0.recognizer === other }
    }

    func apply(_ newState: State) {
        let old = state
        state = newState
        heldState = nil
        if newState == .failed {
            arena?.recognizerFailed(self)
            return
        }
        if old == .possible && (newState == .began || newState == .ended) {
            arena?.recognizerRecognized(self)
        }
        for action in actions { action(self) }
    }

    /// Takes the held recognition once nothing it waits for is possible any more.
    func releaseHeldStateIfFree() {
        guard let held = heldState, !mustWaitForFailures else { return }
        heldState = nil
        apply(held)
    }

    func deliver(_ touch: TouchEvent) {
        isInvolved = true
        lastTouch = touch
        switch touch.phase {
        case .began:
            touchIDs.append(touch.id)
            touchBegan(touch)
        case .moved:
            touchMoved(touch)
        case .ended:
            touchIDs.removeAll { $0 == touch.id }
            touchEnded(touch)
        case .cancelled:
            touchIDs.removeAll { $0 == touch.id }
            touchCancelled(touch)
        }
    }

    func forget(touchID: Int32) {
        touchIDs.removeAll { $0 == touchID }
    }

    /// Starts again from `.possible` for a new sequence.
    func restart() {
        state = .possible
        heldState = nil
        touchIDs = []
        lastTouch = nil
        isInvolved = false
        reset()
    }
}

extension GestureRecognizer.State {
    var isFinal: Bool { self == .ended || self == .cancelled || self == .failed }
}

struct WeakRecognizer {
    weak var recognizer: GestureRecognizer?
    init(_ recognizer: GestureRecognizer) { self.recognizer = recognizer }
}

/// The distance between two points.
func distance(_ a: Point, _ b: Point) -> Double {
    ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
}
