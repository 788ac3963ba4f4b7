import LayerKit

/// The box each layer and its sublayers may draw in, in the layer's own bounds space, kept from
/// frame to frame per context and made again only for the layers that changed and their
/// ancestors; with it, each layer's sublayers indexed by their boxes (`SublayerBoxes`). A frame
/// that redraws a small region asks a layer for the sublayers that may draw there
/// (`sublayers(of:in:transform:within:)`) and walks only those, so a change in a tree of ten
/// thousand layers costs a few boxes made again and a walk of the layers near it, not a visit of
/// every layer. Both renderers skip by the same answer.
///
/// A subtree whose drawing does not follow from plane maps of its values in layer units has no
/// box (nil) and is always walked: transitions, replicators, emitters (their particles move with
/// time), transform layers (3D), filters and backdrops, and shadows of composited alpha (all reach
/// by target pixels, not layer units).
public final class SubtreeBounds {
    /// What is known of one layer. No layer or value is held that could hold contents (a
    /// client's buffer) past the frames that show them.
    private final class Entry {
        /// Its subtree's box, while `isMeasured`.
        var box: Rect?
        var isMeasured = false
        /// Its sublayers' boxes, and what places them: the sublayers and the values of the layer
        /// that map them into its space, as they were when the boxes were made.
        var sublayers: (boxes: SublayerBoxes, ids: [LayerID], space: Space)?
        /// Sublayers whose subtree changed since `sublayers` was made or brought up to date.
        var changedSublayers: Set<LayerID> = []
        /// What the box was made from besides the values a commit counts
        /// (`RenderLayer.revisionExceptContents`): the size its contents showed in.
        var measuredFrom: (revision: UInt64, contentsSize: Size?)?
    }

    /// The values of a layer that map its sublayers into its bounds space.
    private struct Space: Equatable {
        var bounds: Rect
        var anchorPoint: Point
        var sublayerTransform: Transform3D
        var isGeometryFlipped: Bool

        init(_ p: LayerProperties) {
            (bounds, anchorPoint, sublayerTransform, isGeometryFlipped) = (p.bounds, p.anchorPoint, p.sublayerTransform, p.isGeometryFlipped)
        }
    }

    /// One context's entries and the snapshot they were brought up to date with.
    private final class ContextState {
        var entries: [LayerID: Entry] = [:]
        var last: (generation: UInt64, animated: Set<LayerID>)?
        var lastUse = 0
    }

    /// Per context (one per output): a renderer drawing several outputs in turn keeps each one's.
    private var contexts: [UInt64: ContextState] = [:]
    private var current = ContextState()
    private var uses = 0
    /// Contexts kept; the least recently drawn one is forgotten beyond this.
    static let contextLimit = 8
    /// How many layers' boxes were made since the renderer was made (each made again counts).
    public private(set) var measuredCount = 0

    public init() {}

    /// Brings what is known up to date with `tree`, the snapshot (or a sample of it) a frame draws:
    /// the layers that changed since the tree given last for its context are measured again, and
    /// their ancestors take the change from them; animated layers are measured again each time
    /// (their values move with the sample time). Another context keeps its own; changes not
    /// known in detail (too many commits in between) start it afresh.
    public func update(for tree: RenderTree) {
        uses += 1
        if let state = contexts[tree.contextID] {
            current = state
        } else {
            current = ContextState()
            contexts[tree.contextID] = current
            if contexts.count > Self.contextLimit, let oldest = contexts.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                contexts[oldest.key] = nil
            }
        }
        let state = current
        state.lastUse = uses
        defer { state.last = (tree.generation, tree.animatedLayerIDs) }
        guard let last = state.last, var changed = tree.changedLayerIDs(since: last.generation) else {
            state.entries = [:]
            return
        }
        let animated = tree.animatedLayerIDs.union(last.animated)
        changed.formUnion(animated)
        for id in changed {
            guard let layer = tree[id] else {
                // Removed: its superlayer changed too, and makes its sublayers' index again.
                state.entries[id] = nil
                continue
            }
            // New contents of the size of the old (a client's next buffer) draw in the same box:
            // neither it nor any box above it changes.
            if let entry = state.entries[id], entry.isMeasured, let from = entry.measuredFrom,
                from.revision == layer.revisionExceptContents, !animated.contains(id),
                from.contentsSize == layer.properties.contentsLogicalSize
            {
                continue
            }
            state.entries[id]?.isMeasured = false
            var child = id
            var parentID = layer.superlayerID
            while let parent = parentID, let entry = state.entries[parent] {
                let known = !entry.isMeasured && entry.changedSublayers.contains(child)
                entry.isMeasured = false
                entry.changedSublayers.insert(child)
                // Everything above was told of this path already.
                if known { break }
                child = parent
                parentID = tree[parent]?.superlayerID
            }
        }
    }

    /// What `layer` and its sublayers in `tree` may draw, in the layer's bounds space (a layer
    /// unit of margin included); nil when that is not known.
    public func box(of layer: RenderLayer, in tree: RenderTree) -> Rect? {
        measure(layer, in: tree).box
    }

    /// The sublayers of `layer` in drawing order that may draw within `region` (target pixels)
    /// when `transform` maps the layer's bounds space to target pixels; the others draw nothing
    /// there and are skipped. A sublayer is kept when its box is not known or meets the region's
    /// preimage: for an affine transform, the bounding box of the region's corners (two pixels
    /// wider, for anti-aliased edges) mapped back into the layer's space; under perspective, when
    /// its box mapped to pixels meets that wider region or lies partly behind the eye.
    public func sublayers(of layer: RenderLayer, in tree: RenderTree, transform t: Transform3D, within region: PixelBox) -> [RenderLayer] {
        var found: [RenderLayer] = []
        forEachSublayer(of: layer, in: tree, transform: t, within: region) { found.append($0) }
        return found
    }

    /// Calls `body` with each of the sublayers `sublayers(of:in:transform:within:)` returns, in
    /// drawing order, without making an array of them (a frame's walk asks this of every layer
    /// it visits).
    public func forEachSublayer(
        of layer: RenderLayer, in tree: RenderTree, transform t: Transform3D, within region: PixelBox, _ body: (RenderLayer) -> Void
    ) {
        // Most layers have no sublayers: nothing to look up.
        guard !region.isEmpty, !layer.sublayerIDs.isEmpty, let index = measure(layer, in: tree).sublayers?.boxes else { return }
        let wide = region.rect.insetBy(dx: -2, dy: -2)
        if t.m14 == 0, t.m24 == 0, t.m44 > 0, let inverse = t.planeInverse {
            guard let query = inverse.boundingBox(ofCorners: wide) else {
                for id in index.order { if let sublayer = tree[id] { body(sublayer) } }
                return
            }
            index.forEachPlace(meeting: query) { i in
                if let sublayer = tree[index.order[i]] { body(sublayer) }
            }
        } else {
            for (i, id) in index.order.enumerated() {
                if let box = index.boxes[i] {
                    guard !box.isNull, t.boundingBox(ofCorners: box).map({ SublayerBoxes.overlap($0, wide) }) ?? true else { continue }
                }
                if let sublayer = tree[id] { body(sublayer) }
            }
        }
    }

    /// The entry of `layer`, its box and its sublayers' index up to date.
    private func measure(_ layer: RenderLayer, in tree: RenderTree) -> Entry {
        let entry: Entry
        if let known = current.entries[layer.id] {
            entry = known
            if entry.isMeasured { return entry }
        } else {
            entry = Entry()
            current.entries[layer.id] = entry
        }
        measuredCount += 1
        let p = layer.properties
        let space = Space(p)
        if let (index, ids, old) = entry.sublayers, ids == layer.sublayerIDs, old == space {
            // The same sublayers in the same space: only the changed ones' boxes are replaced,
            // unless one moved in the drawing order.
            for id in entry.changedSublayers {
                guard let i = index.position[id], let sublayer = tree[id], sublayer.properties.zPosition == index.zPositions[i] else {
                    entry.sublayers = nil
                    break
                }
                index.setBox(mappedBox(of: sublayer, into: p, in: tree), at: i)
            }
        } else {
            entry.sublayers = nil
        }
        let boxes: SublayerBoxes
        if let known = entry.sublayers?.boxes {
            boxes = known
        } else {
            let order = tree.sortedSublayers(of: layer)
            boxes = SublayerBoxes(order: order, boxes: order.map { mappedBox(of: $0, into: p, in: tree) })
            entry.sublayers = (boxes, layer.sublayerIDs, space)
        }
        entry.changedSublayers = []
        entry.box = makeBox(of: layer, sublayers: boxes, in: tree)
        entry.measuredFrom = (layer.revisionExceptContents, p.contentsLogicalSize)
        entry.isMeasured = true
        return entry
    }

    /// A sublayer's box in its superlayer's bounds space: null when it draws nothing, nil when
    /// not known.
    private func mappedBox(of sublayer: RenderLayer, into p: LayerProperties, in tree: RenderTree) -> Rect? {
        let s = sublayer.properties
        if (s.isHidden || s.opacity <= 0) && s.transition == nil { return .null }
        guard let inner = measure(sublayer, in: tree).box else { return nil }
        if inner.isNull { return .null }
        let toLayer = s.transformToSuperlayer(p.sublayerSpace).flattened
        // A corner behind the eye: the sublayer's image is not bounded by its corners.
        return toLayer.boundingBox(ofCorners: inner)
    }

    private func makeBox(of layer: RenderLayer, sublayers: SublayerBoxes, in tree: RenderTree) -> Rect? {
        let p = layer.properties
        guard p.transition == nil, p.replicator == nil, p.emitter == nil, !p.isTransformLayer, !layer.hasFilterEffects,
            !layer.hasBackdrop
        else { return nil }
        var box = p.bounds
        if !p.masksToBounds {
            // Contents turn upright under an odd number of flipped superlayers, which moves a
            // frame that overflows the bounds: either may be drawn.
            if let contents = p.contentsFrame() { box = box.union(contents) }
            if let contents = p.contentsFrame(contentsAreFlipped: true) { box = box.union(contents) }
            if let shape = p.shape {
                let drawn = shape.drawingBounds
                if !drawn.isNull { box = box.union(drawn) }
            }
            if p.text != nil {
                // The text's image is whole pixels of its scale (at most 4096 a side), which can
                // reach past the bounds by one of them.
                let b = p.bounds
                let pixel = max(1 / max(p.contentsScale, 1e-3), b.width / 4096, b.height / 4096)
                box = box.union(Rect(x: b.minX, y: b.minY, width: b.width + pixel, height: b.height + pixel))
            }
        }
        guard var drawn = sublayers.union else { return nil }
        if p.masksToBounds { drawn = drawn.intersection(p.bounds) }
        box = box.union(drawn)
        if p.shadowOpacity > 0 {
            // A shadow of the composited alpha is blurred in target pixels, by σ of the
            // transform's longer axis: no box in layer units holds it under every transform.
            let backgroundOnly = p.contentsLogicalSize == nil && p.shape == nil && p.text == nil && !tree.hasVisibleSublayers(layer)
            guard p.shadowPath != nil || backgroundOnly else { return nil }
            let reach = 3 * max(0, p.shadowRadius)
            let shape = p.shadowPath.map(\.boundingBox).flatMap { $0.isNull ? nil : $0 } ?? p.bounds
            box = box.union(shape.offsetBy(dx: p.shadowOffset.width, dy: p.shadowOffset.height).insetBy(dx: -reach, dy: -reach))
        }
        // Anti-aliased edges and a shape's rounding reach past the geometry.
        return box.insetBy(dx: -1, dy: -1)
    }
}
