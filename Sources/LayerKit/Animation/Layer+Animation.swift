/// One animation attached to a layer: the copy made when it was added, and, from the commit that
/// first carried it, its begin time and render track.
final class AnimationEntry {
    let key: String?
    let animation: Animation
    /// The transaction's animationDuration when the animation was added.
    let defaultDuration: Double
    unowned let layer: Layer
    var groups: [CompletionGroup]
    /// Set by the first commit that carries the animation, in the layer's time space.
    var beginTime: Double?
    var track: (any RenderAnimation)?
    /// The scheduler of the thread whose commit started it, which finishes it at that thread's flushes.
    weak var scheduler: AnimationScheduler?
    var hasStarted = false
    var hasEnded = false

    init(key: String?, animation: Animation, layer: Layer, defaultDuration: Double, groups: [CompletionGroup]) {
        self.key = key
        self.animation = animation
        self.layer = layer
        self.defaultDuration = defaultDuration
        self.groups = groups
    }

    var timing: AnimationTiming? {
        beginTime.map { animation.timing(defaultDuration: defaultDuration, beginTime: $0) }
    }

    /// Tells the delegate and the waiting completion blocks that the animation is over.
    func end(finished: Bool) {
        guard !hasEnded else { return }
        hasEnded = true
        scheduler?.forget(self)
        animation.delegate?.animationDidStop(animation, finished: finished)
        for group in groups { group.animationEnded() }
        groups = []
    }
}

extension Layer {
    /// Attaches a copy of `animation` (later changes to it have no effect) under `key`, replacing
    /// any animation with that key. It starts at the commit that carries it, unless its beginTime
    /// (in this layer's time space) says otherwise; a duration of 0 takes the transaction's
    /// animationDuration. An animation whose key path this layer does not animate, or whose
    /// values have the wrong type, is kept but changes nothing, as in Core Animation.
    public func add(_ animation: Animation, forKey key: String?) {
        guard !isPresentation else { return }
        if let key { removeAnimation(forKey: key) }
        let groups = Transaction.withState { $0.openCompletionGroups }
        for group in groups { group.animationAdded() }
        let entry = AnimationEntry(
            key: key, animation: animation.copy(), layer: self,
            defaultDuration: Transaction.animationDuration, groups: groups)
        animationEntries.append(entry)
        markChanged()
    }

    /// The keys of the attached animations, in the order they were added.
    public func animationKeys() -> [String] {
        animationEntries.compactMap(\.key)
    }

    /// The attached animation for `key` (do not change it: it is the layer's own copy).
    public func animation(forKey key: String) -> Animation? {
        animationEntries.first { $0.key == key }?.animation
    }

    public func removeAnimation(forKey key: String) {
        guard let index = animationEntries.firstIndex(where: { $0.key == key }) else { return }
        let entry = animationEntries.remove(at: index)
        entry.end(finished: false)
        birthRateAnimationsChanged([entry], atMediaTime: MediaTime.now)
        markChanged()
    }

    public func removeAllAnimations() {
        guard !animationEntries.isEmpty else { return }
        let entries = animationEntries
        animationEntries.removeAll()
        for entry in entries { entry.end(finished: false) }
        birthRateAnimationsChanged(entries, atMediaTime: MediaTime.now)
        markChanged()
    }

    /// Removes an animation that ran its course (isRemovedOnCompletion).
    func removeFinished(_ entry: AnimationEntry) {
        guard let index = animationEntries.firstIndex(where: { $0 === entry }) else { return }
        animationEntries.remove(at: index)
        birthRateAnimationsChanged([entry], atMediaTime: MediaTime.now)
        markChanged()
    }

    /// The tracks the render tree carries for this layer, building those of animations this commit
    /// is the first to carry: their begin time is now (in the layer's time) unless they set one,
    /// and missing from/to values resolve against the model and what `previousTree` shows.
    func renderTracks(previousTree: RenderTree?, now: Double) -> [any RenderAnimation] {
        var tracks: [any RenderAnimation] = []
        var started: [AnimationEntry] = []
        for entry in animationEntries {
            if entry.beginTime == nil {
                started.append(entry)
                let localNow = localTime(fromMediaTime: now)
                let begin = entry.animation.beginTime != 0 ? entry.animation.beginTime : localNow
                entry.beginTime = begin
                let shown = previousTree?.presentationProperties(of: id, atMediaTime: now) ?? properties
                let context = TrackContext(
                    defaultDuration: entry.defaultDuration, beginTime: begin, model: properties,
                    presentation: shown, previousTree: previousTree)
                entry.track = makeTrack(for: entry.animation, key: entry.key, context: context)
                LayerKitThreadState.current.animationScheduler.watch(entry)
            }
            if let track = entry.track { tracks.append(track) }
        }
        birthRateAnimationsChanged(started, atMediaTime: now)
        return tracks
    }

    private func makeTrack(for animation: Animation, key: String?, context: TrackContext) -> (any RenderAnimation)? {
        if let property = animation as? PropertyAnimation, let keyPath = property.keyPath, !keyPath.contains("."),
           type(of: self).propertyEntry(forKey: keyPath) == nil {
            // A key the layer does not declare: a custom property, typed by the animation's values.
            let sample: (any Sendable)? = (property as? BasicAnimation).flatMap { $0.toValue ?? $0.fromValue ?? $0.byValue }
                ?? (property as? KeyframeAnimation)?.values?.first ?? properties.customValues[keyPath]
            guard let custom = AnimatableProperty.resolveCustom(keyPath, sample: sample) else { return nil }
            if let basic = property as? BasicAnimation { return custom.makeBasicTrack(basic, key, context) }
            if let keyframes = property as? KeyframeAnimation { return custom.makeKeyframeTrack(keyframes, key, context) }
            return nil
        }
        return animation.makeTrack(for: self, key: key, context: context)
    }

    // MARK: - Presentation

    /// A copy of the layer as it is on screen now: the values of the last commit with every
    /// running animation applied at the current media time. Nil until the layer has been committed
    /// to a context. Its superlayer, sublayers and mask are presentation copies too; it is made
    /// anew for each commit or media time, so do not keep it, and do not change it.
    public func presentation() -> Self? {
        if isPresentation { return self }
        guard let context = committedContext else { return nil }
        return context.presentationLayer(for: self, atMediaTime: MediaTime.now) as? Self
    }

    /// On a presentation copy, the model layer it shows; on a model layer, the layer itself.
    public var modelLayer: Layer { presentedModel ?? self }
}

/// Watches the animations that have started rendering, to tell delegates when they start and
/// stop, remove finished ones from their layers, and release waiting completion blocks. Each
/// thread has one; it runs on that thread's loop (`Transaction.flush()`), after the frame that
/// finished them.
final class AnimationScheduler {
    private var running: [ObjectIdentifier: AnimationEntry] = [:]

    func watch(_ entry: AnimationEntry) {
        entry.scheduler = self
        running[ObjectIdentifier(entry)] = entry
    }

    func forget(_ entry: AnimationEntry) {
        running[ObjectIdentifier(entry)] = nil
    }

    var isRunning: Bool { !running.isEmpty }

    func tick(now: Double) {
        for entry in Array(running.values) {
            guard let timing = entry.timing else { continue }
            let localNow = entry.layer.localTime(fromMediaTime: now)
            if !entry.hasStarted && (localNow - timing.beginTime) * timing.speed >= 0 {
                entry.hasStarted = true
                entry.animation.delegate?.animationDidStart(entry.animation)
            }
            guard timing.hasFinished(atParentTime: localNow) else { continue }
            if entry.animation.isRemovedOnCompletion { entry.layer.removeFinished(entry) }
            entry.end(finished: true)
        }
    }
}
