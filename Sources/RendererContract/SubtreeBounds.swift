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
    fileprivate final class Entry {
        let id: LayerID
        /// Its subtree's box, while `isMeasured`.
        var box: Rect?
        var isMeasured = false
        /// Its sublayers' boxes, and what places them: the sublayers and the values of the layer
        /// that map them into its space, as they were when the boxes were made.
        var sublayers: (boxes: SublayerBoxes, ids: [LayerID], space: Space)?
        /// With `sublayers`, the sublayers' entries in drawing order (nil: one that draws nothing
        /// by its own values, not measured), which a walk hands on (`Known`).
        var sublayerEntries: [Entry?] = []
        /// With `sublayers`, whether their space maps them as they are (`Space.isPlain`), which a
        /// walk hands on.
        var sublayerSpaceIsPlain = false
        /// Sublayers whose subtree changed since `sublayers` was made or brought up to date.
        var changedSublayers: Set<LayerID> = []
        /// What the box was made from besides the values a commit counts
        /// (`RenderLayer.revisionExceptContents`): the size its contents showed in.
        var measuredFrom: (revision: UInt64, contentsSize: Size?)?

        init(id: LayerID) {
            self.id = id
        }
    }

    /// A sublayer's entry as a walk of its superlayer's sublayers found it
    /// (`SublayerWalk.known`): handed back when the walk asks for that sublayer's own sublayers,
    /// it spares looking the entry up by the layer's identifier (a dictionary's hashing, at every
    /// layer a frame visits). Good for the frame the walk was made in.
    public struct Known {
        fileprivate let entry: Entry
    }

    /// The values of a layer that map its sublayers into its bounds space.
    fileprivate struct Space: Equatable {
        var bounds: Rect
        var anchorPoint: Point
        var sublayerTransform: Transform3D
        var isGeometryFlipped: Bool

        init(_ p: LayerProperties) {
            (bounds, anchorPoint, sublayerTransform, isGeometryFlipped) = (p.bounds, p.anchorPoint, p.sublayerTransform, p.isGeometryFlipped)
        }

        /// Whether the space maps sublayers as they are: no sublayerTransform, not flipped.
        var isPlain: Bool { !isGeometryFlipped && sublayerTransform.isIdentity }
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
    /// The context `current` is of: most renderers draw one, whose state is not looked up again.
    private var currentID: UInt64?
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
        if tree.contextID != currentID {
            if let state = contexts[tree.contextID] {
                current = state
            } else {
                current = ContextState()
                contexts[tree.contextID] = current
                if contexts.count > Self.contextLimit, let oldest = contexts.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                    contexts[oldest.key] = nil
                }
            }
            currentID = tree.contextID
        }
        let state = current
        state.lastUse = uses
        // Read once: each read of a tree's set is a call, a retain and a release.
        let animatedNow = tree.animatedLayerIDs
        defer { state.last = (tree.generation, animatedNow) }
        guard let last = state.last, var changed = tree.changedLayerIDs(since: last.generation) else {
            state.entries = [:]
            return
        }
        // Most trees animate nothing, nor did the last: no set made.
        let animated = last.animated.isEmpty ? animatedNow : animatedNow.union(last.animated)
        if !animated.isEmpty { changed.formUnion(animated) }
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
                from.contentsSize == layer.contentsLogicalSize
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
        var walk = sublayerIDs(of: layer, in: tree, transform: t, within: region)
        while let id = walk.next() {
            if let sublayer = tree[id] { found.append(sublayer) }
        }
        return found
    }

    /// The identifiers of the sublayers `sublayers(of:in:transform:within:)` returns, in drawing
    /// order, found one at a time: a frame's walk asks this of every layer it visits, and looks
    /// each sublayer up only as it comes to it (no array, no closure, no copy of the tree).
    /// `known`: the layer's entry as the walk of its superlayer's sublayers found it, if the
    /// caller has it (another layer's is ignored).
    public func sublayerIDs(
        of layer: RenderLayer, in tree: RenderTree, transform t: Transform3D, within region: PixelBox, known: Known? = nil
    ) -> SublayerWalk {
        // Most layers have no sublayers: nothing to look up.
        guard !region.isEmpty, !layer.sublayerIDs.isEmpty else { return SublayerWalk(index: nil, entries: [], filter: .all) }
        // The index and the entries read from the entry apart: a copy of `sublayers` as a whole
        // retains and copies all it holds.
        let entry = measure(layer, in: tree, known: known?.entry)
        guard let index = entry.sublayers?.boxes else { return SublayerWalk(index: nil, entries: [], filter: .all) }
        let entries = entry.sublayerEntries
        // Two pixels wider: `region.rect.insetBy(dx: -2, dy: -2)`, without its checks for a null
        // or negative box, which a non-empty region is not.
        let wide = Rect(
            x: Double(region.minX) - 2, y: Double(region.minY) - 2, width: Double(region.width) + 4, height: Double(region.height) + 4)
        let query: Rect
        if t.m11 == 1, t.m12 == 0, t.m14 == 0, t.m21 == 0, t.m22 == 1, t.m24 == 0, t.m44 == 1 {
            // A translation (where most layers lie on the output): the region moved back, the
            // values `planeInverse` and `boundingBox(ofCorners:)` would give, found without them.
            let (x0, x1, y0, y1) = (wide.minX - t.m41, wide.maxX - t.m41, wide.minY - t.m42, wide.maxY - t.m42)
            query = Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        } else {
            guard t.m14 == 0, t.m24 == 0, t.m44 > 0, let inverse = t.planeInverse else {
                return SublayerWalk(index: index, entries: entries, filter: .projected(t, wide), plain: entry.sublayerSpaceIsPlain)
            }
            guard let mapped = inverse.boundingBox(ofCorners: wide) else {
                return SublayerWalk(index: index, entries: entries, filter: .all, plain: entry.sublayerSpaceIsPlain)
            }
            query = mapped
        }
        // A few sublayers (one group) are looked at in turn: no search, no sort.
        guard index.boxes.count > SublayerBoxes.fanout else {
            return SublayerWalk(index: index, entries: entries, filter: .meeting(query), plain: entry.sublayerSpaceIsPlain)
        }
        let places = index.places(meeting: query)
        return SublayerWalk(index: index, entries: entries, filter: .places(places), plain: entry.sublayerSpaceIsPlain)
    }

    /// The sublayers of one layer that may draw within a region, in drawing order
    /// (`SubtreeBounds.sublayerIDs(of:in:transform:within:)`).
    public struct SublayerWalk: IteratorProtocol {
        fileprivate enum Filter {
            /// Every sublayer.
            case all
            /// Those whose box meets the query or is not known, each looked at.
            case meeting(Rect)
            /// Those at these places, found by the index's search.
            case places([Int])
            /// Those whose box, mapped by the transform, meets the wide region, lies partly
            /// behind the eye or is not known. Boxed: the walk is copied as each sublayer is
            /// found, and the transform would make every walk five times the size.
            indirect case projected(Transform3D, Rect)
        }

        private let index: SublayerBoxes?
        private let entries: [Entry?]
        private let filter: Filter
        /// Whether the layer maps the sublayers found as they are (no sublayerTransform, not
        /// flipped): known from its index, made in that space, without a look at its values.
        public let mapsSublayersAsTheyAre: Bool
        private var step = 0
        /// The place in drawing order of the sublayer found last.
        private var place = -1

        fileprivate init(index: SublayerBoxes?, entries: [Entry?], filter: Filter, plain: Bool = false) {
            (self.index, self.entries, self.filter, mapsSublayersAsTheyAre) = (index, entries, filter, plain)
        }

        /// The entry of the sublayer `next()` found last, for asking for its own sublayers.
        public var known: Known? {
            guard place >= 0, let entry = entries[place] else { return nil }
            return Known(entry: entry)
        }

        public mutating func next() -> LayerID? {
            guard let index else { return nil }
            switch filter {
            case .all:
                guard step < index.order.count else { return nil }
                step += 1
                place = step - 1
            case .meeting(let query):
                while step < index.order.count {
                    step += 1
                    if index.boxes[step - 1].map({ SublayerBoxes.overlap($0, query) }) ?? true {
                        place = step - 1
                        return index.order[place]
                    }
                }
                return nil
            case .places(let places):
                guard step < places.count else { return nil }
                step += 1
                place = places[step - 1]
            case .projected(let t, let wide):
                while step < index.order.count {
                    step += 1
                    guard let box = index.boxes[step - 1] else {
                        place = step - 1
                        return index.order[place]
                    }
                    if !box.isNull, t.boundingBox(ofCorners: box).map({ SublayerBoxes.overlap($0, wide) }) ?? true {
                        place = step - 1
                        return index.order[place]
                    }
                }
                return nil
            }
            return index.order[place]
        }
    }

    /// The entry of `layer`, its box and its sublayers' index up to date; `known`: its entry, if
    /// the caller has it (another layer's is ignored).
    private func measure(_ layer: RenderLayer, in tree: RenderTree, known: Entry? = nil) -> Entry {
        let entry: Entry
        if let known = known?.id == layer.id ? known : current.entries[layer.id] {
            entry = known
            if entry.isMeasured { return entry }
        } else {
            entry = Entry(id: layer.id)
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
                let (box, sublayerEntry) = mappedBox(of: sublayer, into: p, in: tree)
                index.setBox(box, at: i)
                entry.sublayerEntries[i] = sublayerEntry
            }
        } else {
            entry.sublayers = nil
        }
        let boxes: SublayerBoxes
        if let known = entry.sublayers?.boxes {
            boxes = known
        } else {
            let order = tree.sortedSublayers(of: layer)
            let mapped = order.map { mappedBox(of: $0, into: p, in: tree) }
            boxes = SublayerBoxes(order: order, boxes: mapped.map(\.box))
            entry.sublayers = (boxes, layer.sublayerIDs, space)
            entry.sublayerEntries = mapped.map(\.entry)
            entry.sublayerSpaceIsPlain = space.isPlain
        }
        entry.changedSublayers = []
        entry.box = makeBox(of: layer, sublayers: boxes, in: tree)
        entry.measuredFrom = (layer.revisionExceptContents, p.contentsLogicalSize)
        entry.isMeasured = true
        return entry
    }

    /// A sublayer's box in its superlayer's bounds space: null when it draws nothing, nil when
    /// not known; with its entry, unless it draws nothing by its own values (it is not measured).
    private func mappedBox(of sublayer: RenderLayer, into p: LayerProperties, in tree: RenderTree) -> (box: Rect?, entry: Entry?) {
        let s = sublayer.properties
        if (s.isHidden || s.opacity <= 0) && s.transition == nil { return (.null, nil) }
        let entry = measure(sublayer, in: tree)
        guard let inner = entry.box else { return (nil, entry) }
        if inner.isNull { return (.null, entry) }
        let toLayer = s.transformToSuperlayer(p.sublayerSpace).flattened
        // A corner behind the eye: the sublayer's image is not bounded by its corners.
        return (toLayer.boundingBox(ofCorners: inner), entry)
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
