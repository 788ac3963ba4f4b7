/// Receives an animation's start and stop (CAAnimationDelegate). Both methods are optional.
public protocol AnimationDelegate: AnyObject {
    func animationDidStart(_ animation: Animation)
    /// `finished` is true only when the animation ran to the end of its active duration
    /// without being removed first.
    func animationDidStop(_ animation: Animation, finished: Bool)
}

extension AnimationDelegate {
    public func animationDidStart(_ animation: Animation) {}
    public func animationDidStop(_ animation: Animation, finished: Bool) {}
}

/// The base of every animation (CAAnimation). An animation added to a layer is copied, so
/// changing it afterwards has no effect on the running one.
open class Animation: MediaTiming, Action {
    /// Paces each cycle; nil is linear, as in Core Animation.
    public var timingFunction: MediaTimingFunction?
    /// Retained, as Core Animation retains its delegate.
    public var delegate: (any AnimationDelegate)?
    /// Removes the animation from its layer when its active duration ends (so a `forwards` fill
    /// persists only when this is false).
    public var isRemovedOnCompletion = true

    public var beginTime = 0.0
    /// 0 (the default) means the enclosing transaction's animationDuration when added (0.25 s).
    public var duration = 0.0
    public var speed = 1.0
    public var timeOffset = 0.0
    public var repeatCount = 0.0
    public var repeatDuration = 0.0
    public var autoreverses = false
    public var fillMode = FillMode.removed

    public required init() {}

    /// A copy with the same settings (Core Animation's copy on add); subclasses copy their own.
    open func copy() -> Animation {
        let c = type(of: self).init()
        c.copyTiming(from: self)
        return c
    }

    final func copyTiming(from a: Animation) {
        timingFunction = a.timingFunction
        delegate = a.delegate
        isRemovedOnCompletion = a.isRemovedOnCompletion
        beginTime = a.beginTime
        duration = a.duration
        speed = a.speed
        timeOffset = a.timeOffset
        repeatCount = a.repeatCount
        repeatDuration = a.repeatDuration
        autoreverses = a.autoreverses
        fillMode = a.fillMode
    }

    /// The timing in the parent's time space, with a default duration filled in.
    func timing(defaultDuration: Double, beginTime begin: Double) -> AnimationTiming {
        AnimationTiming(
            beginTime: begin, duration: duration > 0 ? duration : defaultDuration, speed: speed,
            timeOffset: timeOffset, repeatCount: repeatCount, repeatDuration: repeatDuration,
            autoreverses: autoreverses, fillMode: fillMode)
    }

    /// Running an animation as an action adds it to the layer under the event's key.
    public func run(forKey event: String, object layer: Layer, arguments: [String: any Sendable]?) {
        layer.add(self, forKey: event)
    }

    /// What the render tree evaluates for this animation on `layer`, or nil when the animation
    /// cannot affect it (an unknown key path, or values of the wrong type).
    func makeTrack(for layer: Layer, key: String?, context: TrackContext) -> (any RenderAnimation)? { nil }
}

/// Converts scalar animation values into transforms (CAValueFunction), so that for example a
/// rotation angle animates `transform` as a rotation about an axis.
public enum ValueFunction: String, Hashable, Sendable {
    case rotateX, rotateY, rotateZ
    case scale, scaleX, scaleY, scaleZ
    case translate, translateX, translateY, translateZ

    /// The transform for a value: one number, or three for `scale` and `translate`.
    public func transform(for values: [Double]) -> Transform3D {
        let v = values.first ?? 0
        func at(_ i: Int, _ fallback: Double) -> Double { i < values.count ? values[i] : fallback }
        switch self {
        case .rotateX: return Transform3D(rotationAngle: v, x: 1, y: 0, z: 0)
        case .rotateY: return Transform3D(rotationAngle: v, x: 0, y: 1, z: 0)
        case .rotateZ: return Transform3D(rotationAngle: v, x: 0, y: 0, z: 1)
        case .scale: return Transform3D(scaleX: v, y: at(1, v), z: at(2, v))
        case .scaleX: return Transform3D(scaleX: v, y: 1, z: 1)
        case .scaleY: return Transform3D(scaleX: 1, y: v, z: 1)
        case .scaleZ: return Transform3D(scaleX: 1, y: 1, z: v)
        case .translate: return Transform3D(translationX: v, y: at(1, 0), z: at(2, 0))
        case .translateX: return Transform3D(translationX: v, y: 0, z: 0)
        case .translateY: return Transform3D(translationX: 0, y: v, z: 0)
        case .translateZ: return Transform3D(translationX: 0, y: 0, z: v)
        }
    }
}

/// An animation of one property by key path (CAPropertyAnimation), including sub-paths such as
/// `position.x`, `bounds.size.width`, `transform.rotation.z` and `transform.scale`.
open class PropertyAnimation: Animation {
    public var keyPath: String?
    /// Adds the animated value to the property's presentation value instead of replacing it
    /// (transforms concatenate).
    public var isAdditive = false
    /// Each repeat continues from where the previous one ended.
    public var isCumulative = false
    public var valueFunction: ValueFunction?

    public required init() {}

    public convenience init(keyPath: String?) {
        self.init()
        self.keyPath = keyPath
    }

    open override func copy() -> Animation {
        let c = super.copy()
        if let p = c as? PropertyAnimation {
            p.keyPath = keyPath
            p.isAdditive = isAdditive
            p.isCumulative = isCumulative
            p.valueFunction = valueFunction
        }
        return c
    }
}

/// Interpolates a property between two values (CABasicAnimation), with Core Animation's eight
/// combinations of `fromValue`, `toValue` and `byValue`:
/// from+to: from → to; from+by: from → from+by; by+to: to−by → to; from: from → the model value;
/// to: the presentation value when added → to; by: that value → that value + by;
/// none: the previous value → the model value (what implicit animations use, with from set).
open class BasicAnimation: PropertyAnimation {
    public var fromValue: (any Sendable)?
    public var toValue: (any Sendable)?
    public var byValue: (any Sendable)?

    public required init() {}

    open override func copy() -> Animation {
        let c = super.copy()
        if let b = c as? BasicAnimation {
            b.fromValue = fromValue
            b.toValue = toValue
            b.byValue = byValue
        }
        return c
    }

    override func makeTrack(for layer: Layer, key: String?, context: TrackContext) -> (any RenderAnimation)? {
        guard let property = AnimatableProperty.resolve(keyPath, valueFunction: valueFunction) else { return nil }
        return property.makeBasicTrack(self, key, context)
    }
}

/// Moves a property through a sequence of values or along a path (CAKeyframeAnimation).
open class KeyframeAnimation: PropertyAnimation {
    public var values: [any Sendable]?
    /// For point properties: overrides `values`; the layer follows the path's geometry.
    public var path: Path?
    public var keyTimes: [Double]?
    /// One per segment (values.count − 1); ignored by the paced modes.
    public var timingFunctions: [MediaTimingFunction]?
    public var calculationMode = CalculationMode.linear
    /// With a path: turn the layer to the path's tangent (autoReverse adds half a turn).
    public var rotationMode: RotationMode?
    public var tensionValues: [Double]?
    public var continuityValues: [Double]?
    public var biasValues: [Double]?

    public required init() {}

    open override func copy() -> Animation {
        let c = super.copy()
        if let k = c as? KeyframeAnimation {
            k.values = values
            k.path = path
            k.keyTimes = keyTimes
            k.timingFunctions = timingFunctions
            k.calculationMode = calculationMode
            k.rotationMode = rotationMode
            k.tensionValues = tensionValues
            k.continuityValues = continuityValues
            k.biasValues = biasValues
        }
        return c
    }

    override func makeTrack(for layer: Layer, key: String?, context: TrackContext) -> (any RenderAnimation)? {
        guard let property = AnimatableProperty.resolve(keyPath, valueFunction: valueFunction) else { return nil }
        return property.makeKeyframeTrack(self, key, context)
    }
}

/// A basic animation driven by a damped spring (CASpringAnimation). The spring runs in real
/// seconds; `duration` only cuts it short, so set it to `settlingDuration`.
open class SpringAnimation: BasicAnimation {
    public var mass = 1.0
    public var stiffness = 100.0
    public var damping = 10.0
    /// Positive values move toward the target, in units of the whole distance per second.
    public var initialVelocity = 0.0
    /// When false, damping beyond critical is treated as critical.
    public var allowsOverdamping = false

    public required init() {}

    /// A spring that settles in about `perceptualDuration` with the given bounce (0 none, 1 most).
    public convenience init(perceptualDuration: Double, bounce: Double) {
        self.init()
        let motion = SpringMotion(perceptualDuration: max(perceptualDuration, 1e-3), bounce: min(1, max(-0.999, bounce)))
        (mass, stiffness, damping, initialVelocity, allowsOverdamping) =
            (motion.mass, motion.stiffness, motion.damping, motion.initialVelocity, motion.allowsOverdamping)
    }

    /// The spring these settings describe; impossible settings (no mass, no stiffness, negative
    /// damping) are clamped to the nearest meaningful ones rather than stopping the compositor.
    var motion: SpringMotion {
        SpringMotion(
            mass: max(mass, 1e-6), stiffness: max(stiffness, 1e-6), damping: max(damping, 0),
            initialVelocity: initialVelocity, allowsOverdamping: allowsOverdamping)
    }

    public var perceptualDuration: Double { motion.perceptualDuration }
    public var bounce: Double { motion.bounce }
    /// How long the spring takes to come to rest from these parameters.
    public var settlingDuration: Double { motion.settlingDuration }

    open override func copy() -> Animation {
        let c = super.copy()
        if let s = c as? SpringAnimation {
            (s.mass, s.stiffness, s.damping, s.initialVelocity, s.allowsOverdamping) =
                (mass, stiffness, damping, initialVelocity, allowsOverdamping)
        }
        return c
    }
}

/// Runs animations together in the group's time space (CAAnimationGroup): each member's
/// beginTime counts from the group's start, and members are cut off at the group's end.
open class AnimationGroup: Animation {
    public var animations: [Animation]?

    public required init() {}

    open override func copy() -> Animation {
        let c = super.copy()
        if let g = c as? AnimationGroup { g.animations = animations?.map { $0.copy() } }
        return c
    }

    override func makeTrack(for layer: Layer, key: String?, context: TrackContext) -> (any RenderAnimation)? {
        let members = (animations ?? []).compactMap { member -> (any RenderAnimation)? in
            // Members keep their own beginTime, which is relative to the group.
            member.makeTrack(for: layer, key: nil, context: context.forGroupMember(member))
        }
        return GroupTrack(key: key, timing: context.timing(for: self), members: members)
    }
}

/// How a transition brings in the layer's new state.
public enum TransitionType: String, Hashable, Sendable {
    /// The new state fades in over the old.
    case fade
    /// The new state slides in over the old.
    case moveIn
    /// The new state pushes the old out.
    case push
    /// The old state slides away, revealing the new.
    case reveal
}

/// The side a moving transition starts from (in y-down space `fromTop` moves downward).
public enum TransitionSubtype: String, Hashable, Sendable {
    case fromRight, fromLeft, fromTop, fromBottom
}

/// Animates a change of a layer's whole rendered state (CATransition): the state committed before
/// the transaction that added it gives way to the new one.
open class Transition: Animation {
    public var type = TransitionType.fade
    public var subtype: TransitionSubtype?
    /// The part of the transition shown, 0…1 (for starting or ending midway).
    public var startProgress = 0.0
    public var endProgress = 1.0

    public required init() {}

    open override func copy() -> Animation {
        let c = super.copy()
        if let t = c as? Transition {
            (t.type, t.subtype, t.startProgress, t.endProgress) = (type, subtype, startProgress, endProgress)
        }
        return c
    }

    override func makeTrack(for layer: Layer, key: String?, context: TrackContext) -> (any RenderAnimation)? {
        TransitionTrack(
            key: key, timing: context.timing(for: self), timingFunction: timingFunction,
            type: type, subtype: subtype ?? .fromLeft, startProgress: startProgress, endProgress: endProgress,
            previousTree: context.previousTree, layerID: layer.id)
    }
}
