import LayerKit

extension RenderTree {
    /// The external contents of every layer the tree shows (it and every layer above it neither
    /// hidden nor fully transparent), in drawing order, a replicated one once per instance,
    /// whether or not a frame redraws its pixels: what a frame of the tree shows (client buffers
    /// whose surfaces hear of the frame). Found from `externalContentsLayerIDs`; the tree is
    /// walked only where a replicator above one repeats it.
    public func shownExternalContents() -> [any ExternalContents] {
        var found: [any ExternalContents] = []
        forEachShownExternalContents { found.append($0) }
        return found
    }

    /// Calls `body` with each of `shownExternalContents()` in turn, making no array where one
    /// layer shows them (a frame's common case).
    public func forEachShownExternalContents(_ body: (any ExternalContents) -> Void) {
        let found = forEachLayerShowingExternalContents { layer in
            if let contents = layer.externalContents { body(contents) }
        }
        if !found { walkedExternalContents().forEach(body) }
    }

    /// Calls `body` with each layer whose external contents the tree shows, in drawing order;
    /// false, having called it with none, when a replicator above one repeats it (its instances
    /// are found by walking the tree).
    func forEachLayerShowingExternalContents(_ body: (RenderLayer) -> Void) -> Bool {
        var first: RenderLayer?
        var shown: [RenderLayer] = []
        for id in externalContentsLayerIDs {
            guard let layer = self[id], layer.externalContents != nil else { continue }
            // One walk up to the root, keeping nothing: most frames show one client's buffer.
            var (reachesRoot, isShown, isReplicated) = (false, true, false)
            var current: RenderLayer? = layer
            while let level = current {
                // Each value is read where it lies: a copy of a layer's values costs more than the walk.
                if level.properties.isHidden || level.properties.opacity <= 0 { isShown = false }
                if level !== layer, level.isReplicator { isReplicated = true }
                guard let superlayer = level.superlayerID else {
                    reachesRoot = level.id == rootID
                    break
                }
                current = self[superlayer]
            }
            guard reachesRoot, isShown else { continue }
            if isReplicated { return false }
            if first == nil { first = layer } else { shown.append(layer) }
        }
        guard let first else { return true }
        guard !shown.isEmpty else {
            body(first)
            return true
        }
        shown.insert(first, at: 0)
        // Back to front: by each level's place among its siblings, from the root down.
        var places: [LayerID: [LayerID: Int]] = [:]
        func path(_ chain: [RenderLayer]) -> [Int] {
            zip(chain.dropLast(), chain.dropFirst()).reversed().map { layer, superlayer in
                if places[superlayer.id] == nil {
                    places[superlayer.id] = Dictionary(uniqueKeysWithValues: sortedSublayers(of: superlayer).enumerated().map { ($1.id, $0) })
                }
                return places[superlayer.id]?[layer.id] ?? 0
            }
        }
        shown = shown.map { ($0, path(superlayerChain(of: $0.id) ?? [])) }.sorted { $0.1.lexicographicallyPrecedes($1.1) }.map(\.0)
        shown.forEach(body)
        return true
    }

    /// The same by walking the whole tree.
    func walkedExternalContents() -> [any ExternalContents] {
        var found: [any ExternalContents] = []
        func collect(_ layer: RenderLayer, in tree: RenderTree) {
            let p = layer.properties
            guard !p.isHidden, p.opacity > 0 else { return }
            if let contents = p.externalContents { found.append(contents) }
            if p.replicator != nil {
                for instance in tree.replicatorInstances(of: layer) {
                    switch instance.part {
                    case .plane(let plane): collect(plane.layer, in: instance.tree)
                    case .sublayers(let sublayers, _): for sublayer in sublayers { collect(sublayer, in: instance.tree) }
                    }
                }
            } else {
                for sublayer in tree.sortedSublayers(of: layer) { collect(sublayer, in: tree) }
            }
        }
        if let root { collect(root, in: self) }
        return found
    }

    /// `id`'s layer and the layers above it through their superlayers, up to the root; nil when
    /// that does not end at the root (the layer is in a mask, or not in the tree).
    public func superlayerChain(of id: LayerID) -> [RenderLayer]? {
        var chain: [RenderLayer] = []
        var current = self[id]
        while let layer = current {
            chain.append(layer)
            guard let superlayer = layer.superlayerID else { return layer.id == rootID ? chain : nil }
            current = self[superlayer]
        }
        return nil
    }
}

/// The layers whose external contents a frame showed (`RenderTree.forEachShownExternalContents`),
/// kept for the frames after it: while trees change nothing but layers' contents
/// (`DamageTracker.changedContentsAlone`, said of each tree) and the same layers hold external
/// contents, the same layers show them in the same order, and a frame reads their contents again
/// without walking up from each (a window's next buffer looks up the window's layer alone). Only
/// ids are kept: no layer or contents outlives its frame here.
public struct ShownContentsLayers {
    /// The layers, in drawing order, when `isKnown`; the storage is kept for the next walk.
    private var layerIDs: [LayerID] = []
    private var isKnown = false
    /// The tree's `externalContentsLayerIDs` when they were found.
    private var candidates: Set<LayerID> = []

    public init() {}

    /// Forgets the layers, for a tree that changed more than contents: the next one is walked.
    public mutating func forget() {
        isKnown = false
    }

    /// Calls `body` with each of the external contents `tree` shows, as
    /// `tree.forEachShownExternalContents` does, where every tree since the last one asked about
    /// changed contents alone (`forget()` was called for any other). Says whether it read the
    /// layers kept rather than walking.
    @discardableResult
    public mutating func forEach(in tree: RenderTree, _ body: (any ExternalContents) -> Void) -> Bool {
        // Contents that came to or left a layer are a change of contents alone, which the
        // tracker lets by, but they change the set of layers that have some; the same set
        // compares by one identity check.
        let candidates = tree.externalContentsLayerIDs
        if isKnown, candidates == self.candidates {
            for id in layerIDs {
                if let contents = tree[id]?.externalContents { body(contents) }
            }
            return true
        }
        self.candidates = candidates
        layerIDs.removeAll(keepingCapacity: true)
        let found = tree.forEachLayerShowingExternalContents { layer in
            guard let contents = layer.externalContents else { return }
            layerIDs.append(layer.id)
            body(contents)
        }
        isKnown = found
        if !found { tree.walkedExternalContents().forEach(body) }
        return false
    }
}
