import Synchronization

/// Connects a root layer to a consumer of its render trees (the role of a CAContext): every commit
/// that changes the root's tree publishes a new `RenderTree` here. Layers outside any context are
/// still laid out and displayed at commit, but are not snapshotted.
///
/// Like its root layer's tree, a context is used from one thread at a time: the commits of that
/// thread's transactions publish to it, and `onCommit` runs on that thread.
public final class RenderContext {
    public let rootLayer: Layer
    /// The latest snapshot; nil until the first commit after the context was made.
    public private(set) var renderTree: RenderTree?
    /// Called with each new snapshot, right after the commit that made it.
    public var onCommit: ((RenderTree) -> Void)?

    private var layers = LayerTable()
    /// The model layer of every snapshotted entry, for building presentation copies.
    private var modelLayers: [LayerID: Layer] = [:]
    /// The presentation copies made for the current snapshot at one media time.
    private var presentationCache: (generation: UInt64, time: Double, layers: [LayerID: Layer])?
    private var animatedLayerIDs: Set<LayerID> = []
    private var tiledLayerIDs: Set<LayerID> = []
    private var externalContentsLayerIDs: Set<LayerID> = []
    private var backdropLayerIDs: Set<LayerID> = []
    /// The layers stored or removed since the last snapshot; its storage serves every commit.
    private var changes: [LayerID] = []
    private var recentChanges: GenerationChanges?
    /// Whether a layer entered or left one of the sets above since the last snapshot.
    private var setsChanged = false
    private var generation: UInt64 = 0
    /// How many generations of changes a snapshot remembers (`RenderTree.changedLayerIDs(since:)`).
    public static let changeHistoryLength = 16
    private let id: UInt64
    /// Context ids are unique in the process, whichever thread makes the context.
    private static let nextID = Atomic<UInt64>(1)

    /// Makes `rootLayer`, which must have no superlayer and no other context, the root of a
    /// context; its whole tree is snapshotted by the next commit.
    public init(rootLayer: Layer) {
        precondition(rootLayer.parentInTree == nil, "a context's root layer must not have a superlayer")
        precondition(rootLayer.hostingContext == nil, "the layer is already the root of a context")
        self.rootLayer = rootLayer
        id = RenderContext.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        rootLayer.hostingContext = self
        rootLayer.markChanged()
    }

    /// The layers refer to their context without counting it: it forgets them as it goes, as weak
    /// references would have. Every layer that names it as `committedContext` is in `modelLayers`.
    deinit {
        if rootLayer.hostingContext === self { rootLayer.hostingContext = nil }
        for layer in modelLayers.values where layer.committedContext === self { layer.committedContext = nil }
    }

    /// Releases the root: the next commit empties this context.
    public func invalidate() {
        guard rootLayer.hostingContext === self else { return }
        rootLayer.hostingContext = nil
        rootLayer.markChanged()
    }

    // MARK: - Commit

    /// Brings every context's snapshot up to date with `changed`, each layer changed once:
    /// a layer that entered or left a context takes its whole subtree with it.
    static func commitChanges(of changed: [Layer]) {
        // Most commits touch one context: only the others are gathered in an array.
        var firstTouched: RenderContext?
        var touched: [RenderContext] = []
        func touch(_ context: RenderContext) {
            if firstTouched == nil {
                firstTouched = context
            } else if firstTouched !== context, !touched.contains(where: { $0 === context }) {
                touched.append(context)
            }
        }
        let serial = commitSerial.wrappingAdd(1, ordering: .relaxed).newValue
        for layer in changed { layer.isMarkedChanged = false }
        // `changed` holds the layers, and their trees hold the contexts, for the whole commit:
        // neither is retained for a layer that stays in its context (the common commit: a
        // client's new buffer), where a retain and release of the layer, its context and its
        // committed context cost some 150 instructions.
        for index in changed.indices {
            Unmanaged.passUnretained(changed[index])._withUnsafeGuaranteedRef { layer in
                guard layer.storedInCommit != serial else { return }
                let context = layer.rootLayerReference._withUnsafeGuaranteedRef { $0.hostingContextReference }
                if layer.committedContextReference?.toOpaque() != context?.toOpaque() {
                    move(layer, from: layer.committedContext, to: context?.takeUnretainedValue(), serial: serial, touch: touch)
                } else if let context {
                    context._withUnsafeGuaranteedRef { context in
                        context.store(layer, serial: serial, entering: false)
                        touch(context)
                    }
                }
            }
        }
        firstTouched?.publish()
        for context in touched { context.publish() }
    }

    private static func move(
        _ layer: Layer, from old: RenderContext?, to new: RenderContext?, serial: UInt64,
        touch: (RenderContext) -> Void
    ) {
        if let old, layer.committedContext === old {
            old.remove(layer.id)
            touch(old)
        }
        layer.committedContext = new
        layer.committedIndexes = []
        if let new {
            new.store(layer, serial: serial, entering: true)
            touch(new)
        }
        for sublayer in layer.sublayers where sublayer.committedContext !== new {
            move(sublayer, from: sublayer.committedContext, to: new, serial: serial, touch: touch)
        }
        if let mask = layer.mask, mask.committedContext !== new {
            move(mask, from: mask.committedContext, to: new, serial: serial, touch: touch)
        }
    }

    /// Numbers commits, so a layer stored with its moved subtree is not stored again in the same
    /// commit; process-wide, so a tree handed to another thread never sees a serial twice.
    private static let commitSerial = Atomic<UInt64>(0)

    /// `entering`: the layer was not in this context's last snapshot.
    private func store(_ layer: Layer, serial: UInt64, entering: Bool) {
        layer.storedInCommit = serial
        // Tracks first: starting one can change the values (an emitter's birth schedule).
        let animations = layer.animationEntries.isEmpty ? [] : layer.renderTracks(previousTree: renderTree, now: MediaTime.now)
        let node = RenderLayer(committing: layer, animations: animations)
        layers[layer.id] = node
        if entering { modelLayers[layer.id] = layer }
        var indexes: RenderIndexes = node.animations.isEmpty ? [] : .animated
        // The layer's class values looked at once and none copied out: asking for `emitter` and
        // `tiled` copied an optional of each out and destroyed it, for every layer stored.
        switch node.properties.classProperties {
        // An emitter's particles move whether or not anything animates its values.
        case .emitter?: indexes.insert(.animated)
        case .tiled?: indexes.insert(.tiled)
        case .externalContents?: indexes.insert(.externalContents)
        default: break
        }
        if !node.properties.backgroundFilters.isEmpty { indexes.insert(.backdrop) }
        // Most commits leave a layer in the indexes it was in (new contents of a client's surface).
        let moved = indexes.symmetricDifference(layer.committedIndexes)
        if !moved.isEmpty {
            func update(_ set: inout Set<LayerID>, _ index: RenderIndexes) {
                guard moved.contains(index) else { return }
                if indexes.contains(index) { set.insert(layer.id) } else { set.remove(layer.id) }
            }
            update(&animatedLayerIDs, .animated)
            update(&tiledLayerIDs, .tiled)
            update(&externalContentsLayerIDs, .externalContents)
            update(&backdropLayerIDs, .backdrop)
            layer.committedIndexes = indexes
            setsChanged = true
        }
        changes.append(layer.id)
    }

    /// Removes a layer from every index (`RenderIndexes`) and from the snapshot.
    private func remove(_ id: LayerID) {
        layers[id] = nil
        modelLayers[id] = nil
        animatedLayerIDs.remove(id)
        tiledLayerIDs.remove(id)
        externalContentsLayerIDs.remove(id)
        backdropLayerIDs.remove(id)
        setsChanged = true
        changes.append(id)
    }

    // MARK: - Presentation

    /// The presentation copy of `layer` at media time `t`, from a presentation tree built once per
    /// snapshot and time.
    func presentationLayer(for layer: Layer, atMediaTime t: Double) -> Layer? {
        guard let tree = renderTree else { return nil }
        if let cache = presentationCache, cache.generation == tree.generation, cache.time == t {
            return cache.layers[layer.id]
        }
        let sampled = tree.sampled(atMediaTime: t)
        var copies: [LayerID: Layer] = [:]
        func copy(_ id: LayerID) -> Layer? {
            guard let node = sampled[id], let model = modelLayers[id] else { return nil }
            let shadow = type(of: model).init(layer: model)
            shadow.isPresentation = true
            shadow.presentedModel = model
            shadow.properties = node.properties
            shadow.linkPresentation(sublayers: node.sublayerIDs.compactMap(copy), mask: node.maskID.flatMap(copy))
            copies[id] = shadow
            return shadow
        }
        _ = copy(tree.rootID)
        presentationCache = (tree.generation, t, copies)
        return copies[layer.id]
    }

    private func publish() {
        generation += 1
        let tree: RenderTree
        // A commit mostly changes the one layer the one before changed (a client's new buffer each
        // frame): it continues that commit's run of changes, and when no layer entered or left a
        // set either, the new snapshot shares the last one's sets, where new ones would be made.
        if changes.count == 1, let latest = recentChanges, latest.soleLayer == changes[0] {
            // Only the last snapshot's sets are read, where a copy of it retained each of its parts.
            if !setsChanged, let indexes = renderTree?.indexes, indexes.recentChanges === latest {
                tree = RenderTree(generation: generation, indexes: indexes, layers: layers)
            } else {
                tree = makeTree(changedLayerIDs: latest.layers)
            }
        } else {
            // The chain is cut back to the history's length when it is four times as long: a copy
            // of a few entries every few dozen runs, not one of the whole history every commit.
            let earlier = recentChanges.flatMap { $0.length < 4 * Self.changeHistoryLength ? $0 : $0.keepingNewest(Self.changeHistoryLength - 1) }
            recentChanges = GenerationChanges(firstGeneration: generation, layers: Set(changes), previous: earlier)
            tree = makeTree(changedLayerIDs: recentChanges!.layers)
        }
        // As `TransactionState.performCommit` empties its list of layers, for the same reason.
        while changes.popLast() != nil {}
        setsChanged = false
        renderTree = tree
        // The copies show the last snapshot, and their models may have left the tree since: kept,
        // they would hold removed layers (and their contents) until the next hit test.
        presentationCache = nil
        onCommit?(tree)
    }

    private func makeTree(changedLayerIDs: Set<LayerID>) -> RenderTree {
        RenderTree(
            contextID: id, rootID: rootLayer.id, generation: generation, changedLayerIDs: changedLayerIDs,
            animatedLayerIDs: animatedLayerIDs, tiledLayerIDs: tiledLayerIDs,
            externalContentsLayerIDs: externalContentsLayerIDs, backdropLayerIDs: backdropLayerIDs, layers: layers, recentChanges: recentChanges)
    }
}

/// The indexes of a snapshot (`RenderTree.animatedLayerIDs` and the like) that hold a layer.
struct RenderIndexes: OptionSet {
    let rawValue: UInt8
    static let animated = RenderIndexes(rawValue: 1)
    static let tiled = RenderIndexes(rawValue: 2)
    static let externalContents = RenderIndexes(rawValue: 4)
    static let backdrop = RenderIndexes(rawValue: 8)
}
