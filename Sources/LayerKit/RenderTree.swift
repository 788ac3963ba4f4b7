/// Something attached to a committed layer that changes its values over time: the animation
/// issue's animations implement it. `apply` receives the layer's local time.
public protocol RenderAnimation: Sendable {
    var key: String? { get }
    func apply(to properties: inout LayerProperties, atLocalTime time: Double)
}

/// One layer as committed: its values, its place in the tree and what animates it. Immutable and
/// shared between snapshots, so looking one up costs a reference, not a copy of its values.
public final class RenderLayer: Sendable {
    public let id: LayerID
    public let properties: LayerProperties
    public let superlayerID: LayerID?
    /// Back to front, in `sublayers` order (drawing order also sorts by zPosition).
    public let sublayerIDs: [LayerID]
    public let maskID: LayerID?
    /// The layer this one masks, when it is a mask.
    public let maskedLayerID: LayerID?
    public let animations: [any RenderAnimation]
    /// Counts the layer's committed changes of anything but `contents` (values, sublayers, mask):
    /// two entries of one layer with the same revision differ at most in their contents, which
    /// lets the renderer redraw only the contents' changed pixels (see `Image.changedRect(since:)`).
    public let revisionExceptContents: UInt64
    /// Counts the layer's committed changes of anything but which sublayers it has and their
    /// order: two entries of one layer with the same revision draw the same themselves, and a
    /// sublayer that came, went or moved is changed itself (so a window's removal damages only
    /// the window's pixels, not its container's).
    public let revisionExceptSublayers: UInt64

    init(
        id: LayerID, properties: LayerProperties, superlayerID: LayerID?, sublayerIDs: [LayerID],
        maskID: LayerID?, maskedLayerID: LayerID?, animations: [any RenderAnimation], revisionExceptContents: UInt64,
        revisionExceptSublayers: UInt64
    ) {
        self.revisionExceptContents = revisionExceptContents
        self.revisionExceptSublayers = revisionExceptSublayers
        self.id = id
        self.properties = properties
        self.superlayerID = superlayerID
        self.sublayerIDs = sublayerIDs
        self.maskID = maskID
        self.maskedLayerID = maskedLayerID
        self.animations = animations
    }

    /// `layer` as committed now. Its values are copied from the layer into the new object
    /// directly: passed as an argument, they were copied into a temporary and moved from there.
    /// Borrowed, the layer is not retained for the call (on the runtime's slow path, for a layer
    /// with a side table).
    init(committing layer: borrowing Layer, animations: [any RenderAnimation]) {
        id = layer.id
        properties = layer.properties
        superlayerID = layer.superlayerID
        sublayerIDs = layer.sublayers.map(\.id)
        maskID = layer.mask?.id
        maskedLayerID = superlayerID == nil ? layer.maskedLayerID : nil
        self.animations = animations
        revisionExceptContents = layer.revisionExceptContents
        revisionExceptSublayers = layer.revisionExceptSublayers
    }

    /// The same layer with other values (a presentation sample).
    func with(properties: LayerProperties) -> RenderLayer {
        RenderLayer(
            id: id, properties: properties, superlayerID: superlayerID, sublayerIDs: sublayerIDs,
            maskID: maskID, maskedLayerID: maskedLayerID, animations: animations,
            revisionExceptContents: revisionExceptContents, revisionExceptSublayers: revisionExceptSublayers)
    }

    /// The layer above this one: its superlayer, or the layer it masks.
    public var parentID: LayerID? { superlayerID ?? maskedLayerID }

    /// `properties.transformToSuperlayer` for `superlayer`'s sublayer space, read from the two
    /// layers' values where they are rather than from copies of them (a walk up the tree asks
    /// this of every level).
    func transformToSuperlayer(_ superlayer: RenderLayer?) -> Transform3D {
        let space = superlayer.map { s in
            LayerProperties.SublayerSpace(
                bounds: s.properties.bounds, anchorPoint: s.properties.anchorPoint, sublayerTransform: s.properties.sublayerTransform,
                isGeometryFlipped: s.properties.isGeometryFlipped)
        }
        return LayerProperties.transformToSuperlayer(
            bounds: properties.bounds, anchorPoint: properties.anchorPoint, anchorPointZ: properties.anchorPointZ,
            position: properties.position, zPosition: properties.zPosition, transform: properties.transform, superlayer: space)
    }
}

/// An immutable snapshot of one context's layer tree, made by a transaction's commit. It holds
/// everything the renderer needs and is `Sendable`, so the compositor samples it per frame, on
/// any thread, without the model tree.
///
/// Layers live in a persistent trie on their ids' bits (`LayerTable`): a commit replaces only the
/// entries of the layers that changed and shares everything else with the previous snapshot, so
/// its cost follows the change, not the size of the tree.
public struct RenderTree: Sendable {
    /// Names the context that made this snapshot: generations count within one context only.
    @inlinable public var contextID: UInt64 { indexes.contextID }
    @inlinable public var rootID: LayerID { indexes.rootID }
    /// Increases by one with every commit that changed this context.
    public let generation: UInt64
    /// The snapshot's sets of layers (and its context's and root's ids), in one object that its
    /// copies and samples share: a frame passes the tree around by value, and each copy retains a
    /// few references rather than one per set. Seven words, a tree is copied by code made for it;
    /// at eight, copies went through its type's value witnesses (about 110 instructions each).
    /// Its sets are read in place by the getters below, inlined into the caller's module: called,
    /// each retained its set for the caller to release, and a compositor asks two of them every frame.
    @usableFromInline let indexes: Indexes
    /// The layers added, changed or removed since the previous snapshot (damage for the renderer).
    @inlinable public var changedLayerIDs: Set<LayerID> { indexes.changedLayerIDs }
    /// The layers that carry animations, so sampling does not scan the whole tree.
    @inlinable public var animatedLayerIDs: Set<LayerID> { indexes.animatedLayerIDs }
    /// The tiled layers, whose tiles arrive and fade in between commits (see `TiledLayer`).
    @inlinable public var tiledLayerIDs: Set<LayerID> { indexes.tiledLayerIDs }
    /// The layers with `externalContents` (a client's buffer, a `VulkanLayer`'s drawables) and
    /// those with `backgroundFilters`, as committed: what a renderer looks for in the whole tree
    /// every frame, found without walking it.
    @inlinable public var externalContentsLayerIDs: Set<LayerID> { indexes.externalContentsLayerIDs }
    @inlinable public var backdropLayerIDs: Set<LayerID> { indexes.backdropLayerIDs }
    /// The changed layers of this and earlier generations, newest first.
    var recentChanges: GenerationChanges? { indexes.recentChanges }
    let layers: LayerTable
    /// Nil for the committed values themselves.
    private let sample: Sample?
    /// In a sample, the presentation values of the animated layers, laid over the committed ones.
    var sampledProperties: [LayerID: LayerProperties] { sample?.properties ?? [:] }
    /// The media time a sample shows; nil for the committed values themselves.
    public var sampleTime: Double? { sample?.time }

    init(
        contextID: UInt64, rootID: LayerID, generation: UInt64, changedLayerIDs: Set<LayerID>, animatedLayerIDs: Set<LayerID>,
        tiledLayerIDs: Set<LayerID> = [], externalContentsLayerIDs: Set<LayerID> = [], backdropLayerIDs: Set<LayerID> = [],
        layers: LayerTable, recentChanges: GenerationChanges? = nil,
        sampledProperties: [LayerID: LayerProperties] = [:], sampleTime: Double? = nil
    ) {
        self.init(
            generation: generation,
            indexes: Indexes(
                contextID: contextID, rootID: rootID, changedLayerIDs: changedLayerIDs, animatedLayerIDs: animatedLayerIDs, tiledLayerIDs: tiledLayerIDs,
                externalContentsLayerIDs: externalContentsLayerIDs, backdropLayerIDs: backdropLayerIDs, recentChanges: recentChanges),
            layers: layers, sampledProperties: sampledProperties, sampleTime: sampleTime)
    }

    private init(
        generation: UInt64, indexes: Indexes, layers: LayerTable, sampledProperties: [LayerID: LayerProperties], sampleTime: Double?
    ) {
        (self.generation, self.indexes) = (generation, indexes)
        self.layers = layers
        assert(sampleTime != nil || sampledProperties.isEmpty, "presentation values belong to a sample")
        sample = sampleTime.map { Sample(time: $0, properties: sampledProperties) }
    }

    /// What a sample shows, in one object: a copy of a tree retains one reference less than with
    /// the two values apart, and trees are copied many times a frame.
    private final class Sample: Sendable {
        let time: Double
        let properties: [LayerID: LayerProperties]

        init(time: Double, properties: [LayerID: LayerProperties]) {
            (self.time, self.properties) = (time, properties)
        }
    }

    /// A snapshot's sets of layers (see `RenderTree.indexes`).
    @usableFromInline final class Indexes: Sendable {
        @usableFromInline let contextID: UInt64
        @usableFromInline let rootID: LayerID
        @usableFromInline let changedLayerIDs: Set<LayerID>
        @usableFromInline let animatedLayerIDs: Set<LayerID>
        @usableFromInline let tiledLayerIDs: Set<LayerID>
        @usableFromInline let externalContentsLayerIDs: Set<LayerID>
        @usableFromInline let backdropLayerIDs: Set<LayerID>
        let recentChanges: GenerationChanges?

        init(
            contextID: UInt64, rootID: LayerID, changedLayerIDs: Set<LayerID>, animatedLayerIDs: Set<LayerID>, tiledLayerIDs: Set<LayerID>,
            externalContentsLayerIDs: Set<LayerID>, backdropLayerIDs: Set<LayerID>, recentChanges: GenerationChanges?
        ) {
            (self.contextID, self.rootID) = (contextID, rootID)
            (self.changedLayerIDs, self.animatedLayerIDs, self.tiledLayerIDs) = (changedLayerIDs, animatedLayerIDs, tiledLayerIDs)
            (self.externalContentsLayerIDs, self.backdropLayerIDs, self.recentChanges) = (externalContentsLayerIDs, backdropLayerIDs, recentChanges)
        }
    }

    /// The committed values (no sample) with the sets of `indexes`: the next snapshot of a
    /// context, after a commit that changed only values, and the same layers as the commit before.
    init(generation: UInt64, indexes: Indexes, layers: LayerTable) {
        (self.generation, self.indexes) = (generation, indexes)
        self.layers = layers
        sample = nil
    }

    public var count: Int { layers.count }
    public var root: RenderLayer? { self[rootID] }

    /// A layer with the values this tree shows: committed, or presentation values in a sample.
    public subscript(id: LayerID) -> RenderLayer? {
        guard let layer = layers[id] else { return nil }
        if let sample, !sample.properties.isEmpty, let shown = sample.properties[id] { return layer.with(properties: shown) }
        return layer
    }

    /// The first layer with this name, searching the whole tree.
    public func layer(named name: String) -> RenderLayer? {
        layers.first { $0.properties.name == name }
    }

    /// Whether any animation can change what is seen: an animated layer with no hidden or fully
    /// transparent layer above it (or itself). Animations that only run under a hidden layer (a
    /// spinner waiting to be shown) need no frames; a hidden layer in a transition (the fade of
    /// `isHidden`) still shows.
    public var hasVisibleAnimations: Bool {
        // Tiles drawn or fading in between commits animate their layer (see `TileCache.needsFrames`).
        if tiledLayerIDs.contains(where: { self[$0]?.properties.tiled?.cache.needsFrames == true }) { return true }
        return animatedLayerIDs.contains { id in
            var current = self[id]
            while let layer = current {
                let hidden = layer.properties.isHidden && !layer.animations.contains { $0 is TransitionTrack }
                if hidden || (layer.properties.opacity <= 0 && !animatedLayerIDs.contains(layer.id)) {
                    return false
                }
                current = layer.parentID.flatMap { self[$0] }
            }
            return true
        }
    }

    /// Sublayers back to front: zPosition ascending, ties in `sublayers` order.
    public func sortedSublayers(of layer: RenderLayer) -> [RenderLayer] {
        sortedByDrawingOrder(layer.sublayerIDs.compactMap { self[$0] }) { $0.properties.zPosition }
    }

    /// The map from `id`'s bounds space to the root's parent space (the output's points), with
    /// each level flattened into its superlayer's plane as normal layers do, except into a
    /// transform layer.
    public func transformToRoot(of id: LayerID) -> Transform3D? {
        guard var layer = self[id] else { return nil }
        var result = Transform3D.identity
        while true {
            let parent = layer.superlayerID.flatMap { self[$0] }
            let level = layer.transformToSuperlayer(parent)
            // A transform layer's sublayers keep their z into its space (see TransformLayer).
            result = result.concatenating(parent?.properties.isTransformLayer == true ? level : level.flattened)
            if let parent {
                layer = parent
            } else if let masked = layer.maskedLayerID.flatMap({ self[$0] }) {
                layer = masked
            } else {
                return result
            }
        }
    }

    /// The layer's local time at media time `t`, through every ancestor's beginTime, speed and timeOffset.
    public func localTime(of id: LayerID, atMediaTime t: Double) -> Double {
        var memo: [LayerID: Double] = [:]
        return localTime(of: id, atMediaTime: t, memo: &memo)
    }

    /// Local times remembered per layer, so sampling many layers walks each ancestor once.
    private func localTime(of id: LayerID, atMediaTime t: Double, memo: inout [LayerID: Double]) -> Double {
        if let known = memo[id] { return known }
        guard let layer = layers[id] else { return t }
        let time = layer.properties.localTime(fromParentTime: parentTime(of: layer, atMediaTime: t, memo: &memo))
        memo[id] = time
        return time
    }

    private func parentTime(of layer: RenderLayer, atMediaTime t: Double, memo: inout [LayerID: Double]) -> Double {
        layer.parentID.map { localTime(of: $0, atMediaTime: t, memo: &memo) } ?? t
    }

    /// The layers added, changed or removed since the snapshot of `generation` of the same
    /// context: what a consumer that skipped snapshots must redraw. Nil when `generation` is too
    /// far back to know (a snapshot keeps the changes of its last `RenderContext.changeHistoryLength`
    /// generations) or not earlier than this one's.
    public func changedLayerIDs(since generation: UInt64) -> Set<LayerID>? {
        guard generation <= self.generation else { return nil }
        guard generation < self.generation else { return [] }
        guard self.generation - generation <= UInt64(RenderContext.changeHistoryLength), let latest = recentChanges else { return nil }
        // The common case, a consumer of every snapshot: one run's set, shared rather than copied.
        if latest.firstGeneration <= generation + 1 { return latest.layers }
        var changed = latest.layers
        var entry = latest.previous
        // Runs of generations follow each other, newest first.
        while let current = entry {
            changed.formUnion(current.layers)
            if current.firstGeneration <= generation + 1 { return changed }
            entry = current.previous
        }
        return nil
    }

    /// The presentation values at media time `t`: every animation applied at its layer's local
    /// time. The sample shares the committed layers and lays the animated layers' values over them.
    public func sampled(atMediaTime t: Double) -> RenderTree {
        guard !animatedLayerIDs.isEmpty else {
            return RenderTree(
                generation: generation, indexes: indexes, layers: layers, sampledProperties: [:],
                sampleTime: t)
        }
        var shown: [LayerID: LayerProperties] = [:]
        shown.reserveCapacity(animatedLayerIDs.count)
        // Only ancestors' times are remembered: they are few and shared, the animated layers many.
        var memo: [LayerID: Double] = [:]
        for id in animatedLayerIDs {
            guard let layer = layers[id] else { continue }
            let time = layer.properties.localTime(fromParentTime: parentTime(of: layer, atMediaTime: t, memo: &memo))
            var properties = layer.properties
            for animation in layer.animations { animation.apply(to: &properties, atLocalTime: time) }
            shown[id] = properties
        }
        return RenderTree(
            generation: generation, indexes: indexes, layers: layers, sampledProperties: shown,
            sampleTime: t)
    }

    /// This sample with the animations of `id`'s descendants applied `delay` seconds of `id`'s
    /// local time earlier (a replicator's instance k, with k × instanceDelay); `id`'s own values and
    /// everything outside its subtree stay as sampled. A tree that is not a sample is returned as it is.
    public func sampled(sublayersOf id: LayerID, delayedBy delay: Double) -> RenderTree {
        guard let t = sampleTime, delay != 0, layers[id] != nil else { return self }
        func isInside(_ layer: RenderLayer) -> Bool {
            var parent = layer.parentID
            while let p = parent {
                if p == id { return true }
                parent = layers[p]?.parentID
            }
            return false
        }
        var memo: [LayerID: Double] = [id: localTime(of: id, atMediaTime: t) - delay]
        var shown = sampledProperties
        for animated in animatedLayerIDs {
            guard let layer = layers[animated], isInside(layer) else { continue }
            let time = layer.properties.localTime(fromParentTime: parentTime(of: layer, atMediaTime: t, memo: &memo))
            var properties = layer.properties
            for animation in layer.animations { animation.apply(to: &properties, atLocalTime: time) }
            shown[animated] = properties
        }
        return RenderTree(
            generation: generation, indexes: indexes, layers: layers, sampledProperties: shown,
            sampleTime: t)
    }

    /// One layer's presentation values at media time `t`: its committed values with its own
    /// animations applied.
    public func presentationProperties(of id: LayerID, atMediaTime t: Double) -> LayerProperties? {
        guard let layer = layers[id] else { return nil }
        guard !layer.animations.isEmpty else { return layer.properties }
        let time = localTime(of: id, atMediaTime: t)
        var properties = layer.properties
        for animation in layer.animations { animation.apply(to: &properties, atLocalTime: time) }
        return properties
    }

    /// One visible layer in drawing order, with where it lands on the output.
    public struct DrawItem: Sendable {
        public let layer: RenderLayer
        /// From the layer's bounds space to the root's parent space, flattened per level (but not
        /// into a transform layer).
        public let transform: Transform3D
        /// The product of the opacities from the root down to this layer.
        public let opacity: Double
        /// 0 for the root.
        public let depth: Int
    }

    /// The visible layers back to front: each layer before its sublayers, sublayers in drawing
    /// order; hidden layers and their subtrees are left out, and so are masks (reach them by `maskID`).
    public func drawList() -> [DrawItem] {
        guard let root else { return [] }
        var items: [DrawItem] = []
        items.reserveCapacity(layers.count)
        func visit(_ layer: RenderLayer, parent: RenderLayer?, parentTransform: Transform3D, parentOpacity: Double, depth: Int) {
            let p = layer.properties
            guard !p.isHidden else { return }
            let level = p.transformToSuperlayer(parent?.properties.sublayerSpace)
            let transform = (parent?.properties.isTransformLayer == true ? level : level.flattened).concatenating(parentTransform)
            let opacity = parentOpacity * p.opacity
            items.append(DrawItem(layer: layer, transform: transform, opacity: opacity, depth: depth))
            for sublayer in sortedSublayers(of: layer) {
                visit(sublayer, parent: layer, parentTransform: transform, parentOpacity: opacity, depth: depth + 1)
            }
        }
        visit(root, parent: nil, parentTransform: .identity, parentOpacity: 1, depth: 0)
        return items
    }
}

/// The layers changed by a run of commits of a context that each changed the same layers (a
/// client's surface, frame after frame), and the runs before it: each run adds one entry in front
/// and shares the rest with the snapshots before it. A run ends where the next entry's begins,
/// or at its snapshot's own generation: the snapshots of one run share its entry.
final class GenerationChanges: Sendable {
    let firstGeneration: UInt64
    let layers: Set<LayerID>
    let previous: GenerationChanges?
    /// The entries from this one back, this one included.
    let length: Int

    /// The one layer of `layers`, when it has one: asked of the run at every commit, where the
    /// set's `first` costs some sixty instructions.
    let soleLayer: LayerID?

    init(firstGeneration: UInt64, layers: Set<LayerID>, previous: GenerationChanges?) {
        self.firstGeneration = firstGeneration
        self.layers = layers
        soleLayer = layers.count == 1 ? layers.first : nil
        self.previous = previous
        length = (previous?.length ?? 0) + 1
    }

    /// The newest `count` entries from this one back, as a chain of their own (the older ones
    /// are let go once no snapshot holds them).
    func keepingNewest(_ count: Int) -> GenerationChanges? {
        guard count > 0 else { return nil }
        guard length > count else { return self }
        return GenerationChanges(firstGeneration: firstGeneration, layers: layers, previous: previous?.keepingNewest(count - 1))
    }
}
