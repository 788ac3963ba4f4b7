import LayerKit

/// What of a target must be redrawn for a new frame.
public enum Damage: Equatable, Sendable {
    /// Nothing changed: the previous frame stands and no drawing is needed.
    case none
    /// Redraw everything (the first frame, a new size or scale, or changes not known in detail).
    case full
    /// Redraw only this rectangle of output pixels, over the previous frame's pixels.
    case region(PixelRect)
}

/// Works out, from the trees drawn into one target, what changed on screen since its last frame
/// (buffer-age style, for a target that keeps its pixels between frames).
///
/// Consecutive commits name their changed layers (`changedLayerIDs`), and animated layers change
/// whenever the sample time moves; each such layer damages the pixel bounds of its whole subtree
/// before and after (a moved layer takes its sublayers along), with shadows and overflowing
/// contents included, and where the change shows in the shadows above it that are silhouettes
/// of their layers' drawing (no `shadowPath`): the change's box moved by each one's offset and
/// grown by its blur. Commits skipped since the last frame add their changed layers (up to
/// `RenderContext.changeHistoryLength` of them); a longer gap, or a change of size or scale,
/// redraws all.
public struct DamageTracker {
    private var last: LastFrame?
    /// Each tiled layer's `TileCache.revision` when the last frame was drawn.
    private var tileRevisions: [LayerID: UInt64] = [:]
    /// What lies above each layer that changed, as found in the trees since the last frame that
    /// changed more than layers' contents (a client's next buffer changes nothing of it), and the
    /// root they were found under. A short list searched in order, not a dictionary: a frame
    /// changes a layer or a few, and hashing an id costs more than passing a few; past
    /// `maxAncestries` it starts again.
    private var ancestries: [Ancestry] = []
    /// The root of the tree last asked about (the one `ancestries` were found under): a renderer
    /// drawing that tree takes it from here rather than looking it up in the tree again.
    public private(set) var lastRoot: RenderLayer?
    /// Whether the tree last asked about differs from the one before it in nothing but layers'
    /// contents (a layer's external contents may have come or gone), in one context under the
    /// same root, with nothing animated in either: what depends on anything else of a tree
    /// (which layers show, where) is as it was.
    public private(set) var changedContentsAlone = false
    /// Whether the tree last asked about may show layers with `backgroundFilters` (it lists some,
    /// or animates layers, which may give some their filters): a frame of a tree that may not
    /// grows nothing for backdrops (`growForBackdrops`).
    public private(set) var mayShowBackdrops = true

    /// Forgets the last frame, so that the next one is drawn in full.
    public init() {}

    public mutating func reset() { last = nil }

    public mutating func damage(for tree: RenderTree, scale: Double, width: Int, height: Int) -> Damage {
        let time = tree.sampleTime
        // The new frame's values take the last's place, the trees swapped: the last one is moved
        // out rather than copied (a copy of a tree retains each of its parts).
        var old = tree
        let previous: (time: Double?, scale: Double, width: Int, height: Int)?
        if isKnownUniquelyReferenced(&last), let frame = last {
            previous = (frame.time, frame.scale, frame.width, frame.height)
            swap(&old, &frame.tree)
            (frame.time, frame.scale, frame.width, frame.height) = (time, scale, width, height)
        } else {
            // A copy of the tracker shares it: then it is made anew.
            previous = last.map { ($0.time, $0.scale, $0.width, $0.height) }
            if let last { old = last.tree }
            last = LastFrame(tree: tree, time: time, scale: scale, width: width, height: height)
        }
        let changedTiles = changedTiledLayers(in: tree, lastTime: previous?.time, time: time)
        let root = tree.root
        defer { lastRoot = root }
        changedContentsAlone = false
        // Whether the trees animate, found once and kept for the checks below.
        let animates = !tree.animatedLayerIDs.isEmpty
        mayShowBackdrops = animates || !tree.backdropLayerIDs.isEmpty
        guard let previous, previous.scale == scale, previous.width == width, previous.height == height,
            old.contextID == tree.contextID,
            // Snapshots skipped in between (several commits in one frame) add their changes.
            let committed = tree.changedLayerIDs(since: old.generation)
        else {
            ancestries.removeAll(keepingCapacity: true)
            return .full
        }
        let animated = animates || !old.animatedLayerIDs.isEmpty
        // Animated layers change whenever the sample time moves, tiled ones when their tiles do.
        var moving = changedTiles
        if time != previous.time {
            moving.formUnion(tree.animatedLayerIDs)
            moving.formUnion(old.animatedLayerIDs)
        }
        // What lies above a layer stays while nothing but layers' contents changes, nothing
        // moves or animates and the root is the same (a tree placed otherwise has another).
        var keepsAncestries = moving.isEmpty && !animated && root === lastRoot
        // Several changed layers are all checked before any ancestry is taken; a frame's only one
        // (a client's next buffer) where the loop below looks it up, so that it is looked up once.
        let onlyOne = committed.count == 1
        if !onlyOne {
            for changed in committed where keepsAncestries { keepsAncestries = DamageTracker.changedContentsAlone(old[changed], tree[changed]) }
        }
        if !keepsAncestries { ancestries.removeAll(keepingCapacity: true) }
        var box = Rect.null
        for changed in committed where moving.isEmpty || !moving.contains(changed) {
            let (before, after) = (old[changed], tree[changed])
            if onlyOne, keepsAncestries, !DamageTracker.changedContentsAlone(before, after) {
                keepsAncestries = false
                ancestries.removeAll(keepingCapacity: true)
            }
            // A layer that only gained, lost or reordered sublayers draws the same itself: those
            // sublayers are changed and damage their own pixels, and the shadows of their silhouettes.
            if let before, let after, before.revisionExceptSublayers == after.revisionExceptSublayers { continue }
            guard DamageTracker.addDamage(
                of: changed, before, after, from: old, to: tree, scale: scale, animated: animated, ancestries: &ancestries,
                reusing: keepsAncestries, into: &box)
            else { return .full }
        }
        for changed in moving {
            let (before, after) = (old[changed], tree[changed])
            guard DamageTracker.addDamage(
                of: changed, before, after, from: old, to: tree, scale: scale, animated: animated, ancestries: &ancestries,
                reusing: false, into: &box)
            else { return .full }
        }
        changedContentsAlone = keepsAncestries
        guard !box.isNull, !box.isEmpty else { return .none }
        if mayShowBackdrops { box = DamageTracker.addingBackdrops(to: box, in: tree, scale: scale) }
        // Anti-aliased edges reach half a pixel past the geometry: round outwards with a pixel to spare.
        let x0 = max(0, Int((box.minX - 1).rounded(.down))), y0 = max(0, Int((box.minY - 1).rounded(.down)))
        let x1 = min(width, Int((box.maxX + 1).rounded(.up))), y1 = min(height, Int((box.maxY + 1).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return .none }
        if x0 == 0 && y0 == 0 && x1 == width && y1 == height { return .full }
        return .region(PixelRect(x: Int32(x0), y: Int32(y0), width: UInt32(x1 - x0), height: UInt32(y1 - y0)))
    }

    /// Whether a layer in two trees (in both) changed nothing but its contents.
    private static func changedContentsAlone(_ before: RenderLayer?, _ after: RenderLayer?) -> Bool {
        guard let before, let after else { return false }
        return before.revisionExceptContents == after.revisionExceptContents
    }

    /// Adds to `box` the output pixels a change of layer `changed` (`before` in the old tree,
    /// `after` in the new) between two trees damages; false when all must be redrawn (it lies in
    /// a replicator whose instances are delayed). What lies above the layer in the new tree is
    /// kept in `ancestries`, and taken from there when `reusing` (the trees differ in contents alone).
    /// `animated`: whether either tree animates layers.
    private static func addDamage(
        of changed: LayerID, _ before: RenderLayer?, _ after: RenderLayer?, from old: RenderTree, to new: RenderTree, scale: Double,
        animated: Bool, ancestries: inout [Ancestry], reusing: Bool, into box: inout Rect
    ) -> Bool {
        // What lies above the layer, found in one walk up each tree: most layers have no
        // replicator, filter or shadow above them, and those are not looked for again. Between
        // trees that differ in contents alone, it is the same in both. Kept in place, the entry
        // is changed there (its map to the pixels found once) and not copied.
        let above: AncestorEffects
        let entry: Int
        if reusing, let kept = ancestries.firstIndex(where: { $0.id == changed }) {
            above = ancestries[kept].effects
            entry = kept
        } else {
            let effects = AncestorEffects(above: after, in: new)
            above = AncestorEffects(above: before, in: old).union(effects)
            if ancestries.count == maxAncestries { ancestries.removeAll(keepingCapacity: true) }
            ancestries.append(Ancestry(id: changed, effects: effects))
            entry = ancestries.count - 1
        }
        // A layer inside a replicator shows once per instance: the replicator's subtree covers
        // them all. Delayed instances show other moments of their animations: redraw all.
        var id = changed
        if above.hasReplicator {
            for replicator in replicators(above: changed, in: old) + replicators(above: changed, in: new) {
                guard replicator.properties.replicator?.instanceDelay == 0 else { return false }
                id = replicator.id
            }
        }
        // A blurring ancestor spreads the change by its reach.
        let spread = above.hasFilters ? max(filterReach(above: id, in: old, scale: scale), filterReach(above: id, in: new, scale: scale)) : 0
        var changedBox = Rect.null
        // A change of contents alone changes the layer's own silhouette there too; a whole
        // subtree's bounds hold its shadow already.
        var contentsOnly = false
        // The walk up the new tree counted the flips above `changed` already.
        let contentsChange = id == changed
            ? changedContentsBounds(of: id, before, after, under: &ancestries[entry], in: new, old: old, scale: scale, animated: animated)
            : changedContentsBounds(of: id, from: old, to: new, scale: scale)
        if let changed = contentsChange {
            changedBox = changed
            contentsOnly = true
        } else {
            changedBox = pixelBounds(ofSubtree: id, in: old, scale: scale).union(pixelBounds(ofSubtree: id, in: new, scale: scale))
        }
        guard !changedBox.isNull else { return true }
        box = box.union(spread > 0 ? changedBox.insetBy(dx: -spread, dy: -spread) : changedBox)
        // A distorting ancestor may show the change anywhere in its circles.
        let distorted = above.hasFilters
            ? distortedBounds(above: id, in: old, scale: scale).union(distortedBounds(above: id, in: new, scale: scale)) : .null
        box = box.union(distorted)
        if above.hasShadow {
            let shadows = silhouetteShadowBounds(ofChangeIn: changedBox.union(distorted), of: id, itself: contentsOnly, old: old, new: new, scale: scale)
            if !shadows.isNull { box = box.union(shadows.insetBy(dx: -spread, dy: -spread)) }
        }
        return true
    }

    /// The last frame's tree and what it was drawn at: an object, made once, whose values each
    /// frame replaces (its tree swapped with the frame's).
    private final class LastFrame {
        var tree: RenderTree
        var time: Double?
        var scale: Double
        var width: Int
        var height: Int

        init(tree: RenderTree, time: Double?, scale: Double, width: Int, height: Int) {
            (self.tree, self.time, self.scale, self.width, self.height) = (tree, time, scale, width, height)
        }
    }

    /// Whether the layers above one (in one tree or two) hold a replicator or filters, and whether
    /// it or they cast a shadow: what decides which of the walks `addDamage` makes are needed.
    private struct AncestorEffects {
        var hasReplicator = false
        var hasFilters = false
        var hasShadow = false
        /// Whether an odd number of the layers above are geometry-flipped (in one tree).
        var isFlipped = false

        init(above layer: RenderLayer?, in tree: RenderTree) {
            guard let layer else { return }
            hasShadow = layer.properties.shadowOpacity > 0
            var parent = layer.parentID.flatMap { tree[$0] }
            // Each value is read where it lies: a copy of a layer's values costs more than the walk.
            while let layer = parent {
                if layer.isReplicator { hasReplicator = true }
                if !layer.properties.filters.isEmpty { hasFilters = true }
                if layer.properties.shadowOpacity > 0 { hasShadow = true }
                if layer.properties.isGeometryFlipped { isFlipped.toggle() }
                parent = layer.parentID.flatMap { tree[$0] }
            }
        }

        func union(_ other: AncestorEffects) -> AncestorEffects {
            var both = self
            both.hasReplicator = hasReplicator || other.hasReplicator
            both.hasFilters = hasFilters || other.hasFilters
            both.hasShadow = hasShadow || other.hasShadow
            return both
        }
    }

    /// What lies above a layer in one tree that a change of contents does not change: the effects
    /// above it, and its map to output pixels once a change of its contents asked for it (kept
    /// ancestries are of one scale: a new scale redraws all and drops them), and where a client's
    /// buffer of a size lands in the layer (its other values do not change either).
    private struct Ancestry {
        let id: LayerID
        let effects: AncestorEffects
        var toPixels: Transform3D?
        var clientContentsFrame: (width: Int, height: Int, frame: Rect)?

        init(id: LayerID, effects: AncestorEffects) {
            (self.id, self.effects) = (id, effects)
        }
    }

    /// How many ancestries are kept at most: the list is searched in order.
    private static let maxAncestries = 16

    /// The tiled layers whose tiles changed since the last frame (drawn or invalidated between
    /// commits), or that were fading in then and are sampled at another time now.
    private mutating func changedTiledLayers(in tree: RenderTree, lastTime: Double?, time: Double?) -> Set<LayerID> {
        // Most trees have none, nor had: no set or dictionary made.
        if tree.tiledLayerIDs.isEmpty && tileRevisions.isEmpty { return [] }
        var changed = Set<LayerID>()
        var revisions: [LayerID: UInt64] = [:]
        for id in tree.tiledLayerIDs {
            guard let cache = tree[id]?.properties.tiled?.cache else { continue }
            let revision = cache.revision
            revisions[id] = revision
            let fading = time != lastTime && (lastTime.map { cache.isFading(after: $0) } ?? true)
            if tileRevisions[id] != revision || fading { changed.insert(id) }
        }
        tileRevisions = revisions
        return changed
    }

    /// When a layer changed only its contents, and its new image was made from the old one by
    /// updates (`Image.changedRect(since:)`, a client's damaged shm buffer say), the output-pixel
    /// box of the changed contents pixels (null when none of them shows); nil otherwise, and for
    /// animated layers and nine-part stretching, where the simple mapping does not hold.
    public static func changedContentsBounds(of id: LayerID, from old: RenderTree, to new: RenderTree, scale: Double) -> Rect? {
        guard let after = new[id] else { return nil }
        var ancestry = Ancestry(id: id, effects: AncestorEffects(above: after, in: new))
        return changedContentsBounds(of: id, old[id], after, under: &ancestry, in: new, old: old, scale: scale, animated: true)
    }

    /// The same for the layer's entries in the two trees, found already, under `ancestry` (what
    /// lies above it in the new tree: its map to output pixels is found there once), where
    /// `animated` says whether either tree animates layers.
    private static func changedContentsBounds(
        of id: LayerID, _ before: RenderLayer?, _ after: RenderLayer?, under ancestry: inout Ancestry, in new: RenderTree, old: RenderTree,
        scale: Double, animated: Bool
    ) -> Rect? {
        guard let before, let after, before.revisionExceptContents == after.revisionExceptContents,
            !animated || (!old.animatedLayerIDs.contains(id) && !new.animatedLayerIDs.contains(id)),
            let (changed, width, height, isClient) = contentsChange(from: before, to: after)
        else { return nil }
        // Values read where they lie.
        guard after.properties.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1) else { return nil }
        // Read once: comparing an optional transform with nil copies it too.
        let transform: Transform3D
        if let known = ancestry.toPixels {
            transform = known
        } else {
            guard let found = new.transformToRoot(of: id)?.concatenating(Transform3D(scaleX: scale, y: scale)) else { return nil }
            (ancestry.toPixels, transform) = (found, found)
        }
        // Contents are flipped under an odd number of geometry-flipped ancestors (as the encoder
        // draws them), which moves both their frame and their rows.
        let flipped = ancestry.effects.isFlipped
        // A client's next buffer of the same size lands where the last did: found once. (Other
        // contents may be placed by another size than the changed image's: an external one's.)
        let frame: Rect
        if isClient, let known = ancestry.clientContentsFrame, known.width == width, known.height == height {
            frame = known.frame
        } else {
            guard let found = after.contentsFrame(contentsAreFlipped: flipped) else { return nil }
            frame = found
            if isClient { ancestry.clientContentsFrame = (width, height, found) }
        }
        // A texel more on each side: filtering blends neighbours into the pixels around a change.
        let w = Double(width), h = Double(height), source = after.properties.contentsRect
        guard source.width > 0, source.height > 0 else { return .null }
        func unit(_ v: Double, _ origin: Double, _ length: Double) -> Double { min(1, max(0, (v - origin) / length)) }
        let u0 = unit(Double(changed.x - 1) / w, source.minX, source.width)
        let u1 = unit(Double(changed.x + changed.width + 1) / w, source.minX, source.width)
        var v0 = unit(Double(changed.y - 1) / h, source.minY, source.height)
        var v1 = unit(Double(changed.y + changed.height + 1) / h, source.minY, source.height)
        guard u1 > u0, v1 > v0 else { return .null }
        if flipped { (v0, v1) = (1 - v1, 1 - v0) }
        let rect = Rect(
            x: frame.minX + u0 * frame.width, y: frame.minY + v0 * frame.height,
            width: (u1 - u0) * frame.width, height: (v1 - v0) * frame.height)
        // A corner behind the eye: the box is unknown, so the whole layer is redrawn.
        return boundingBox(ofCorners: rect, transform)
    }

    /// `transform.boundingBox(ofCorners: rect)`, from two corners by the same arithmetic where
    /// the transform keeps the axes and has no perspective (a window's map to the output): the
    /// terms it drops are zeros.
    private static func boundingBox(ofCorners rect: Rect, _ t: Transform3D) -> Rect? {
        guard t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 > 0 else { return t.boundingBox(ofCorners: rect) }
        let xa = (rect.minX * t.m11 + t.m41) / t.m44, xb = (rect.maxX * t.m11 + t.m41) / t.m44
        let ya = (rect.minY * t.m22 + t.m42) / t.m44, yb = (rect.maxY * t.m22 + t.m42) / t.m44
        let x0 = min(xa, xb), x1 = max(xa, xb), y0 = min(ya, yb), y1 = max(ya, yb)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The pixels of a layer's contents that may differ between two states, and the contents'
    /// size, and whether they are a client's buffer: an image made from the old one by updates,
    /// or a client's buffer committed over the old one with damage; nil when that is not known.
    private static func contentsChange(from old: RenderLayer, to new: RenderLayer) -> (ImageRect, Int, Int, isClient: Bool)? {
        if let client = new.externalContents as? ClientContents, let oldClient = old.externalContents as? ClientContents,
            client !== oldClient, let changed = client.changedRect(sinceContents: oldClient)
        {
            return (changed, client.buffer.width, client.buffer.height, true)
        }
        if let image = new.properties.contents, let oldImage = old.properties.contents, image !== oldImage,
            let changed = image.changedRect(since: oldImage)
        {
            return (changed, image.width, image.height, false)
        }
        return nil
    }

    /// The replicators above `id` in `tree`, nearest first.
    public static func replicators(above id: LayerID, in tree: RenderTree) -> [RenderLayer] {
        var found: [RenderLayer] = []
        var parent = tree[id]?.parentID.flatMap { tree[$0] }
        while let layer = parent {
            if layer.isReplicator { found.append(layer) }
            parent = layer.parentID.flatMap { tree[$0] }
        }
        return found
    }

    /// The output-pixel bounding box of everything a layer and its sublayers may draw; null when
    /// the layer is not in the tree. A layer in a transition draws each of its parts, moved.
    public static func pixelBounds(ofSubtree id: LayerID, in tree: RenderTree, scale: Double) -> Rect {
        guard let layer = tree[id], let toRoot = tree.transformToRoot(of: id) else { return .null }
        return pixelBounds(ofSubtree: layer, in: tree, transform: toRoot.concatenating(Transform3D(scaleX: scale, y: scale)), scale: scale)
    }

    /// The output-pixel bounding box of everything `layer` and its sublayers may draw where
    /// `transform` maps the layer to output pixels (a transition's moved part, a replicator's
    /// instance).
    public static func pixelBounds(ofSubtree layer: RenderLayer, in tree: RenderTree, transform: Transform3D, scale: Double) -> Rect {
        var box = Rect.null
        func visit(_ layer: RenderLayer, in tree: RenderTree, _ transform: Transform3D, asIs: Bool = false, shadowless: Bool = false) {
            let p = layer.properties
            if !asIs, let transition = p.transition {
                let previous = transition.previousTree(shownWith: tree)
                for part in transition.parts(in: p.bounds) {
                    let moved = Transform3D(translationX: part.offset.width, y: part.offset.height).concatenating(transform)
                    if part.state == .current {
                        visit(layer, in: tree, moved, asIs: true)
                    } else if let previous, let old = previous[layer.id] {
                        visit(old, in: previous, moved)
                    }
                }
                return
            }
            var extent = p.bounds
            if let contents = p.contentsFrame(), !p.masksToBounds { extent = extent.union(contents) }
            if let shape = p.shape, !p.masksToBounds {
                // The shape's image reaches a pixel of rounding past its drawing.
                let drawn = shape.drawingBounds
                if !drawn.isNull { extent = extent.union(drawn.insetBy(dx: -1, dy: -1)) }
            }
            if let emitter = p.emitter, !p.masksToBounds {
                let drawn = emitter.drawingBounds(atTime: tree.emitterTime(of: layer))
                if !drawn.isNull { extent = extent.union(drawn.insetBy(dx: -1, dy: -1)) }
            }
            if p.shadowOpacity > 0 {
                let reach = 3 * max(0, p.shadowRadius) + 1
                // A shadowPath may reach past the bounds; either is offset in the layer's plane.
                let shape = p.shadowPath.map(\.boundingBox).flatMap { $0.isNull ? nil : $0 } ?? p.bounds
                extent = extent.union(shape.offsetBy(dx: p.shadowOffset.width, dy: p.shadowOffset.height)
                    .insetBy(dx: -reach, dy: -reach))
            }
            let corners = extent.corners.compactMap { c in transform.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } }
            // The subtree's box, grown by the layer's blurs when it has them.
            let outer = box
            box = Rect(boundingPoints: corners)
            for space in p.instanceSublayerSpaces {
                for sublayer in tree.sortedSublayers(of: layer) {
                    let level = sublayer.properties.transformToSuperlayer(space)
                    visit(sublayer, in: tree, (p.isTransformLayer ? level : level.flattened).concatenating(transform))
                }
            }
            let spread = p.isTransformLayer ? 0 : filterReach(of: p, scale: scale)
            if spread > 0, !box.isNull { box = box.insetBy(dx: -spread, dy: -spread) }
            if !p.isTransformLayer { box = box.union(distortedBounds(of: p, transform)) }
            if !shadowless, p.shadowOpacity > 0, p.shadowPath == nil,
                p.contentsLogicalSize != nil || p.shape != nil || p.text != nil || tree.hasVisibleSublayers(layer)
            {
                // A shadow of the composited alpha: the subtree drawn offset in the layer's plane,
                // blurred in target pixels by σ of the transform's longer axis.
                let drawn = box
                box = .null
                visit(layer, in: tree, Transform3D(translationX: p.shadowOffset.width, y: p.shadowOffset.height).concatenating(transform),
                      asIs: true, shadowless: true)
                let reach = Double(ShadowBlur.reach(sigma: ShadowBlur.sigma(pixels: max(0, p.shadowRadius) * transform.pixelsPerUnit))) + 1
                box = drawn.union(box.isNull ? box : box.insetBy(dx: -reach, dy: -reach))
            }
            box = outer.union(box)
        }
        visit(layer, in: tree, transform)
        return box
    }

    /// Where the shadows that are silhouettes of what their layers draw (no `shadowPath`, and
    /// contents, a shape, text or visible sublayers) change when `box` (output pixels) changes in
    /// layer `id` (its contents only: `itself`) or its sublayers: for each such layer above it (or
    /// it), in each tree that holds it, `box` moved by the shadow's offset and grown by its blur;
    /// the shadows higher up take those shadows in too. A shadow that turns from a silhouette
    /// into its layer's rounded bounds or back (its first visible sublayer came or its last went),
    /// or whose layer's transform has perspective, changes whole: its layer's subtree bounds, before
    /// and after. Null when there is no such shadow.
    private static func silhouetteShadowBounds(
        ofChangeIn box: Rect, of id: LayerID, itself: Bool, old: RenderTree, new: RenderTree, scale: Double
    ) -> Rect {
        func isSilhouette(_ layer: RenderLayer, in tree: RenderTree) -> Bool {
            let p = layer.properties
            return p.contentsLogicalSize != nil || p.shape != nil || p.text != nil || tree.hasVisibleSublayers(layer)
        }
        var shadows = Rect.null
        // Each tree in turn, the other as what it changed from or to (no array of trees made).
        func add(in tree: RenderTree, other: RenderTree) {
            var changed = box
            var next = tree[id].flatMap { itself ? $0 : $0.parentID.flatMap { tree[$0] } }
            while let layer = next {
                next = layer.parentID.flatMap { tree[$0] }
                let p = layer.properties
                guard p.shadowOpacity > 0, p.shadowPath == nil else { continue }
                let silhouette = isSilhouette(layer, in: tree)
                let wasSilhouette = other[layer.id].map { isSilhouette($0, in: other) } ?? silhouette
                guard silhouette || wasSilhouette else { continue }
                let shadow: Rect
                if silhouette == wasSilhouette, let moved = movedShadow(of: layer, changedIn: changed, in: tree, scale: scale) {
                    shadow = moved
                } else {
                    shadow = pixelBounds(ofSubtree: layer.id, in: tree, scale: scale)
                        .union(silhouette == wasSilhouette ? .null : pixelBounds(ofSubtree: layer.id, in: other, scale: scale))
                }
                changed = changed.union(shadow)
                shadows = shadows.union(shadow)
            }
        }
        add(in: old, other: new)
        add(in: new, other: old)
        return shadows
    }

    /// The pixels of `layer`'s shadow that a change of its drawing within `box` changes: the box
    /// moved by the shadow's offset and grown by its blur; nil under perspective, where the
    /// offset, in the layer's plane, does not move all its pixels alike.
    private static func movedShadow(of layer: RenderLayer, changedIn box: Rect, in tree: RenderTree, scale: Double) -> Rect? {
        guard let toRoot = tree.transformToRoot(of: layer.id) else { return nil }
        let t = toRoot.concatenating(Transform3D(scaleX: scale, y: scale))
        guard t.m14 == 0, t.m24 == 0, t.m34 == 0, t.m44 > 0 else { return nil }
        let p = layer.properties
        let (dx, dy) = (p.shadowOffset.width, p.shadowOffset.height)
        let reach = Double(ShadowBlur.reach(sigma: ShadowBlur.sigma(pixels: max(0, p.shadowRadius) * t.pixelsPerUnit))) + 1
        return box.offsetBy(dx: (dx * t.m11 + dy * t.m21) / t.m44, dy: (dx * t.m12 + dy * t.m22) / t.m44).insetBy(dx: -reach, dy: -reach)
    }

    /// The pixels a layer's `filters` spread its image by (three σ per blur, and a pixel).
    public static func filterReach(of p: LayerProperties, scale: Double) -> Double {
        let sigmas = p.filters.compactMap(\.blurSigma)
        return sigmas.isEmpty ? 0 : sigmas.reduce(1) { $0 + 3 * $1 * scale }
    }

    /// The pixels a layer's distortion `filters` may draw on (their circles), for a layer that
    /// `transform` maps to output pixels; null when it has none.
    static func distortedBounds(of p: LayerProperties, _ transform: Transform3D) -> Rect {
        p.filters.compactMap(\.distortion).filter { $0.radius > 0 }.reduce(Rect.null) { box, d in
            let corners = d.bounds.corners.compactMap { c in transform.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } }
            return corners.count == 4 ? box.union(Rect(boundingPoints: corners)) : box
        }
    }

    /// The circles of the distortions above `id`, in output pixels: a change in it may show
    /// anywhere in them.
    static func distortedBounds(above id: LayerID, in tree: RenderTree, scale: Double) -> Rect {
        var box = Rect.null
        var parent = tree[id]?.parentID.flatMap { tree[$0] }
        while let layer = parent {
            // Most layers have no filters: their place is not worked out.
            if !layer.properties.filters.isEmpty, let toRoot = tree.transformToRoot(of: layer.id) {
                box = box.union(distortedBounds(of: layer.properties, toRoot.concatenating(Transform3D(scaleX: scale, y: scale))))
            }
            parent = layer.parentID.flatMap { tree[$0] }
        }
        return box
    }

    /// How far the blurring `filters` of the layers above `id` spread a change in it.
    public static func filterReach(above id: LayerID, in tree: RenderTree, scale: Double) -> Double {
        var reach = 0.0
        var parent = tree[id]?.parentID.flatMap { tree[$0] }
        while let layer = parent {
            if !layer.properties.filters.isEmpty { reach += filterReach(of: layer.properties, scale: scale) }
            parent = layer.parentID.flatMap { tree[$0] }
        }
        return reach
    }

    /// The layers with `backgroundFilters`: each one's shape (its bounds' box in output pixels)
    /// and how far its blurs read around it (three σ each, and a pixel).
    /// Those not hidden (nor under a hidden layer) and not in a mask count, in no order; an
    /// animation may give a layer its filters.
    public static func backdrops(in tree: RenderTree, scale: Double) -> [(shape: Rect, reach: Double)] {
        // Most frames have neither: no set made.
        if tree.backdropLayerIDs.isEmpty && tree.animatedLayerIDs.isEmpty { return [] }
        return tree.backdropLayerIDs.union(tree.animatedLayerIDs).compactMap { id in
            guard let layer = tree[id], !layer.properties.backgroundFilters.isEmpty,
                let chain = tree.superlayerChain(of: id), !chain.contains(where: \.properties.isHidden),
                let toRoot = tree.transformToRoot(of: id)
            else { return nil }
            let p = layer.properties
            let transform = toRoot.concatenating(Transform3D(scaleX: scale, y: scale))
            let corners = p.bounds.corners.compactMap { c in transform.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } }
            let sigmas = p.backgroundFilters.compactMap(\.blurSigma)
            return corners.count == 4 ? (Rect(boundingPoints: corners), sigmas.reduce(1) { $0 + 3 * $1 * scale }) : nil
        }
    }

    /// Grows what a frame redraws (`meets` asks whether it holds any of a box's pixels, `add` adds
    /// a box to it) by the pixels each layer with `backgroundFilters` whose shape it meets reads
    /// behind itself (its shape and its blurs' reach), within `full`: so that the backdrop is made
    /// of this frame's pixels. Repeated while a layer added reaches another.
    public static func growForBackdrops(
        in tree: RenderTree, scale: Double, within full: PixelBox, meets: (PixelBox) -> Bool, add: (PixelBox) -> Void
    ) {
        var pending = backdrops(in: tree, scale: scale)
        var grew = !pending.isEmpty
        while grew {
            grew = false
            pending.removeAll { backdrop in
                let shape = PixelBox(covering: backdrop.shape).intersection(full)
                guard !shape.isEmpty, meets(shape) else { return false }
                add(PixelBox(covering: backdrop.shape.insetBy(dx: -backdrop.reach, dy: -backdrop.reach)).intersection(full))
                grew = true
                return true
            }
        }
    }

    /// `box` grown as `growForBackdrops` grows a region, to the box of the result.
    public static func growingForBackdrops(_ box: PixelBox, in tree: RenderTree, scale: Double, within full: PixelBox) -> PixelBox {
        var grown = box
        growForBackdrops(in: tree, scale: scale, within: full, meets: { !$0.intersection(grown).isEmpty }, add: { grown = grown.union($0) })
        return grown
    }

    /// `box` with the bounds of every layer with `backgroundFilters` whose filtered backdrop it
    /// reaches (its pixels and their blur's reach): such a layer shows what is behind it, blurred
    /// over its whole shape. Repeated while a layer added reaches another.
    public static func addingBackdrops(to box: Rect, in tree: RenderTree, scale: Double) -> Rect {
        let backdrops = backdrops(in: tree, scale: scale)
        guard !backdrops.isEmpty else { return box }
        var result = box
        var pending = backdrops
        var grew = true
        while grew {
            grew = false
            pending.removeAll { backdrop in
                guard backdrop.shape.insetBy(dx: -backdrop.reach, dy: -backdrop.reach).intersects(result) else { return false }
                result = result.union(backdrop.shape)
                grew = true
                return true
            }
        }
        return result
    }
}

/// A rectangle of whole output pixels.
public struct PixelRect: Equatable, Sendable {
    public var x: Int32, y: Int32, width: UInt32, height: UInt32

    public init(x: Int32, y: Int32, width: UInt32, height: UInt32) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}
