/// A contents animation's in-flight state: draw `from` with opacity `1 − progress` and the
/// layer's `contents` with opacity `progress`.
public struct ContentsCrossFade: Sendable {
    public var from: Image?
    public var progress: Double
}

/// A transition's in-flight state: the renderer draws this layer's subtree from `previousTree`
/// and from the current tree, combined as `type` and `subtype` say at `progress` (0…1): what a
/// frame shows is `parts(in:)`.
public struct TransitionState: Sendable {
    public var type: TransitionType
    public var subtype: TransitionSubtype
    public var progress: Double
    /// The snapshot committed before the transition was added (nil when there was none: the old
    /// state is then empty).
    public var previousTree: RenderTree?
    public var layerID: LayerID
}

/// One of the two states of a layer that a transition shows in a frame: the layer and its
/// subtree as one image, as they were before the transition (`previous`) or are now (`current`).
public struct TransitionPart: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        case previous, current
    }

    public var state: State
    /// How far the image is moved, in the layer's bounds space.
    public var offset: Size
    /// The state's weight in a dissolve (`fade`); 1 for the other types.
    public var weight: Double
}

extension TransitionState {
    /// What a frame shows of the layer, back to front, for a layer of `bounds` (CATransition's
    /// types): `fade` dissolves, every pixel previous × (1 − progress) + current × progress;
    /// `moveIn` slides the current state in over the previous one, which stays; `push` slides
    /// both, the current state pushing the previous one out; `reveal` slides the previous state
    /// away over the current one, which stays. The subtype names the side the motion starts from
    /// (`fromLeft` moves rightwards; y-down, `fromTop` moves down), over the bounds' width or
    /// height. The images are clipped only as the layer's own rules clip (masksToBounds clips them
    /// at the bounds, which do not move), so without it a sliding state shows outside the bounds.
    public func parts(in bounds: Rect) -> [TransitionPart] {
        let p = progress
        let (dx, dy): (Double, Double) = switch subtype {
        case .fromLeft: (bounds.width, 0)
        case .fromRight: (-bounds.width, 0)
        case .fromTop: (0, bounds.height)
        case .fromBottom: (0, -bounds.height)
        }
        func part(_ state: TransitionPart.State, _ travelled: Double, weight: Double = 1) -> TransitionPart {
            TransitionPart(state: state, offset: Size(width: dx * travelled, height: dy * travelled), weight: weight)
        }
        switch type {
        case .fade: return [part(.previous, 0, weight: 1 - p), part(.current, 0, weight: p)]
        case .moveIn: return [part(.previous, 0), part(.current, p - 1)]
        case .push: return [part(.previous, p), part(.current, p - 1)]
        case .reveal: return [part(.current, 0), part(.previous, p)]
        }
    }

    /// Whether the parts dissolve into each other (weighted and added) rather than being drawn
    /// one over the other.
    public var dissolves: Bool { type == .fade }

    /// The layer's state before the transition as the frame showing `sample` draws it: the kept
    /// snapshot sampled at the same media time (its own animations run on), or as committed when
    /// `sample` is not a sample.
    public func previousTree(shownWith sample: RenderTree) -> RenderTree? {
        guard let previousTree else { return nil }
        return sample.sampleTime.map { previousTree.sampled(atMediaTime: $0) } ?? previousTree
    }
}

/// Contents as an animatable value: images do not interpolate, they cross-fade.
struct ContentsValue: Interpolatable {
    var image: Image?
    var crossFade: ContentsCrossFade?

    init(image: Image?, crossFade: ContentsCrossFade? = nil) {
        self.image = image
        self.crossFade = crossFade
    }

    static func == (a: ContentsValue, b: ContentsValue) -> Bool { a.image === b.image }

    func apply(to properties: inout LayerProperties) {
        properties.contents = image
        properties.contentsCrossFade = crossFade
    }

    static func interpolate(from: ContentsValue, to: ContentsValue, fraction: Double) -> ContentsValue {
        if fraction <= 0 { return from }
        if fraction >= 1 { return to }
        return ContentsValue(image: to.image, crossFade: ContentsCrossFade(from: from.image, progress: fraction))
    }

    static func add(_ a: ContentsValue, _ b: ContentsValue) -> ContentsValue { b.image == nil ? a : b }
    static func subtract(_ a: ContentsValue, _ b: ContentsValue) -> ContentsValue { a }
    static var additiveIdentity: ContentsValue { ContentsValue(image: nil) }
    static func distance(from: ContentsValue, to: ContentsValue) -> Double { from == to ? 0 : 1 }
    static func combine(_ terms: [(value: ContentsValue, weight: Double)]) -> ContentsValue {
        terms.max { $0.weight < $1.weight }?.value ?? additiveIdentity
    }
}

/// Flags animate discretely: the new value shows from the halfway point.
extension Bool: Interpolatable {
    public static func interpolate(from: Bool, to: Bool, fraction: Double) -> Bool { fraction < 0.5 ? from : to }
    public static func add(_ a: Bool, _ b: Bool) -> Bool { a || b }
    public static func subtract(_ a: Bool, _ b: Bool) -> Bool { a && !b }
    public static var additiveIdentity: Bool { false }
    public static func distance(from: Bool, to: Bool) -> Double { from == to ? 0 : 1 }
    public static func combine(_ terms: [(value: Bool, weight: Double)]) -> Bool {
        terms.max { $0.weight < $1.weight }?.value ?? false
    }
}

/// What a commit knows when it turns an animation into a track: when it begins, the layer's
/// model values and the values on screen before this commit.
struct TrackContext {
    /// The transaction's animationDuration when the animation was added.
    var defaultDuration: Double
    /// The begin time in the parent's time space (the layer's, or a group's for its members).
    var beginTime: Double
    var model: LayerProperties
    var presentation: LayerProperties
    var previousTree: RenderTree?

    func timing(for animation: Animation) -> AnimationTiming {
        animation.timing(defaultDuration: defaultDuration, beginTime: beginTime)
    }

    func forGroupMember(_ member: Animation) -> TrackContext {
        var c = self
        c.beginTime = member.beginTime
        return c
    }
}

/// One property animation as the render tree evaluates it.
struct PropertyTrack<Value: Interpolatable>: RenderAnimation {
    enum Curve: Sendable {
        case between(from: Value, to: Value)
        case spring(SpringMotion, from: Value, to: Value)
        case keyframes(KeyframeSampler<Value>, first: Value, last: Value)
    }

    let key: String?
    let timing: AnimationTiming
    let timingFunction: MediaTimingFunction?
    let binding: PropertyBinding<Value>
    let curve: Curve
    let isAdditive: Bool
    let isCumulative: Bool

    func apply(to properties: inout LayerProperties, atLocalTime time: Double) {
        guard let sample = timing.sample(atParentTime: time) else { return }
        let progress = timingFunction?.value(atTime: sample.progress) ?? sample.progress
        var value: Value
        let start: Value, end: Value
        switch curve {
        case let .between(from, to):
            value = Value.interpolate(from: from, to: to, fraction: progress)
            (start, end) = (from, to)
        case let .spring(motion, from, to):
            value = Value.interpolate(from: from, to: to, fraction: motion.fraction(at: sample.elapsed))
            (start, end) = (from, to)
        case let .keyframes(sampler, first, last):
            value = sampler.value(at: progress)
            (start, end) = (first, last)
        }
        if isCumulative && sample.repeatIndex > 0 {
            // Each completed cycle adds the whole change once more.
            value = Value.add(value, repeatedSum(Value.subtract(end, start), times: sample.repeatIndex))
        }
        if isAdditive { value = Value.add(binding.get(properties), value) }
        binding.set(&properties, value)
    }

    /// Core Animation's eight from/to/by combinations, resolved against the values of this commit.
    static func basic(
        _ a: BasicAnimation, binding: PropertyBinding<Value>, key: String?, context: TrackContext
    ) -> PropertyTrack? {
        let from = animationValue(a.fromValue, as: Value.self)
        let to = animationValue(a.toValue, as: Value.self)
        let by = animationValue(a.byValue, as: Value.self)
        // A value of the wrong type makes the animation inert rather than guessing.
        if (a.fromValue != nil && from == nil) || (a.toValue != nil && to == nil) || (a.byValue != nil && by == nil) {
            return nil
        }
        let presented = binding.get(context.presentation)
        let model = binding.get(context.model)
        let endpoints: (Value, Value)
        switch (from, to, by) {
        case let (f?, t?, _): endpoints = (f, t)
        case let (f?, nil, b?): endpoints = (f, Value.add(f, b))
        case let (nil, t?, b?): endpoints = (Value.subtract(t, b), t)
        case let (f?, nil, nil): endpoints = (f, a.isAdditive ? Value.additiveIdentity : model)
        case let (nil, t?, nil): endpoints = (a.isAdditive ? Value.additiveIdentity : presented, t)
        case let (nil, nil, b?):
            endpoints = a.isAdditive ? (Value.additiveIdentity, b) : (presented, Value.add(presented, b))
        case (nil, nil, nil): endpoints = (presented, model)
        }
        let curve: Curve
        if let spring = a as? SpringAnimation {
            curve = .spring(spring.motion, from: endpoints.0, to: endpoints.1)
        } else {
            curve = .between(from: endpoints.0, to: endpoints.1)
        }
        return PropertyTrack(
            key: key, timing: context.timing(for: a), timingFunction: a is SpringAnimation ? nil : a.timingFunction,
            binding: binding, curve: curve, isAdditive: a.isAdditive, isCumulative: a.isCumulative)
    }

    static func keyframes(
        _ a: KeyframeAnimation, binding: PropertyBinding<Value>, key: String?, context: TrackContext
    ) -> (any RenderAnimation)? {
        if let path = a.path {
            guard let positionBinding = binding as? PropertyBinding<Point> else { return nil }
            return PathTrack(
                key: key, timing: context.timing(for: a), timingFunction: a.timingFunction,
                keyframes: PathKeyframes(path: path), calculationMode: a.calculationMode,
                rotationMode: a.rotationMode, binding: positionBinding, isAdditive: a.isAdditive)
        }
        guard let raw = a.values, !raw.isEmpty else { return nil }
        let values = raw.compactMap { animationValue($0, as: Value.self) }
        guard values.count == raw.count, let first = values.first, let last = values.last else { return nil }
        let sampler = KeyframeSampler(
            values: values, keyTimes: a.keyTimes, timingFunctions: a.timingFunctions,
            calculationMode: a.calculationMode, tensionValues: a.tensionValues,
            continuityValues: a.continuityValues, biasValues: a.biasValues)
        return PropertyTrack(
            key: key, timing: context.timing(for: a), timingFunction: a.timingFunction, binding: binding,
            curve: .keyframes(sampler, first: first, last: last), isAdditive: a.isAdditive, isCumulative: a.isCumulative)
    }
}

/// `value` added to itself `times` times (by doubling, so endless repeats stay cheap).
func repeatedSum<Value: Interpolatable>(_ value: Value, times: Int) -> Value {
    var result = Value.additiveIdentity
    var power = value
    var n = times
    while n > 0 {
        if n & 1 == 1 { result = Value.add(result, power) }
        n >>= 1
        if n > 0 { power = Value.add(power, power) }
    }
    return result
}

/// A keyframe animation along a path: the point follows the path's geometry, and with a
/// rotation mode the layer turns to the path's tangent (added before its own transform).
struct PathTrack: RenderAnimation {
    let key: String?
    let timing: AnimationTiming
    let timingFunction: MediaTimingFunction?
    let keyframes: PathKeyframes
    let calculationMode: CalculationMode
    let rotationMode: RotationMode?
    let binding: PropertyBinding<Point>
    let isAdditive: Bool

    func apply(to properties: inout LayerProperties, atLocalTime time: Double) {
        guard let sample = timing.sample(atParentTime: time) else { return }
        let progress = timingFunction?.value(atTime: sample.progress) ?? sample.progress
        var point = keyframes.point(at: progress, calculationMode: calculationMode)
        if isAdditive { point = Point.add(binding.get(properties), point) }
        binding.set(&properties, point)
        if let rotationMode {
            var angle = keyframes.tangentAngle(at: progress, calculationMode: calculationMode)
            if rotationMode == .autoReverse { angle += .pi }
            properties.transform = properties.transform.rotated(by: angle, x: 0, y: 0, z: 1)
        }
    }
}

/// An animation group: members run on the group's local time and stop with it.
struct GroupTrack: RenderAnimation {
    let key: String?
    let timing: AnimationTiming
    let members: [any RenderAnimation]

    func apply(to properties: inout LayerProperties, atLocalTime time: Double) {
        guard let sample = timing.sample(atParentTime: time) else { return }
        let local = sample.progress * timing.duration
        for member in members { member.apply(to: &properties, atLocalTime: local) }
    }
}

/// A transition: publishes its progress and the previous state for the renderer.
struct TransitionTrack: RenderAnimation {
    let key: String?
    let timing: AnimationTiming
    let timingFunction: MediaTimingFunction?
    let type: TransitionType
    let subtype: TransitionSubtype
    let startProgress: Double
    let endProgress: Double
    let previousTree: RenderTree?
    let layerID: LayerID

    func apply(to properties: inout LayerProperties, atLocalTime time: Double) {
        guard let sample = timing.sample(atParentTime: time) else { return }
        let eased = timingFunction?.value(atTime: sample.progress) ?? sample.progress
        let progress = startProgress + (endProgress - startProgress) * eased
        properties.transition = TransitionState(
            type: type, subtype: subtype, progress: progress, previousTree: previousTree, layerID: layerID)
    }
}
