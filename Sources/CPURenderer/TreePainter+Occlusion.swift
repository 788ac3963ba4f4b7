import Buffers
import LayerKit
import RendererContract

/// Occlusion: a frame starts drawing at the last layer whose own background or contents hide
/// everything it redraws (opaque, at full opacity, unclipped, square and axis-aligned, covering
/// the whole box), so nothing beneath it is drawn and the target is not cleared. For the kiosk's
/// common frame, one opaque window covering the output texel for pixel with nothing above it, that
/// leaves one blit of the window's damaged rows from the client's memory into the scanout buffer.
/// The occluder is kept while only contents change (`KnownOccluder`).
struct Occluder: Equatable {
    enum Part { case background, contents }

    var id: LayerID
    /// What of the layer hides the box: contents hide its background too.
    var part: Part
}

extension TreePainter {
    /// Notes `layer` as the occluder when its background or contents hide the canvas's box: a
    /// later one replaces an earlier one, as it is drawn above it. `p`: the layer's values.
    mutating func measureOcclusion(
        by layer: RenderLayer, _ p: LayerProperties, bounds: RoundedRect, contentsFrame: Rect?, transform: Transform3D, opacity: Double
    ) {
        guard opacity >= 1 else { return }
        if let frame = contentsFrame, layer.hasOpaqueContents, !(p.masksToBounds && !bounds.isSquare),
            !(p.contentsGravity.isResizing && p.contentsCenter != Rect(x: 0, y: 0, width: 1, height: 1)),
            let box = centresBox(of: frame, transform), box == canvas.box
        {
            occluder = Occluder(id: layer.id, part: .contents)
        } else if let background = p.backgroundColor, background.converted(to: .sRGB).alpha >= 1,
            let box = alignedBox(of: bounds, transform), box == canvas.box
        {
            occluder = Occluder(id: layer.id, part: .background)
        }
    }
}

extension RenderLayer {
    /// Whether every pixel of the layer's contents is opaque whatever its alpha bits hold: a
    /// client buffer or an image in a format without alpha.
    var hasOpaqueContents: Bool { opaqueContentsPixelSize != nil }

    /// The size in pixels of the layer's contents where they are opaque (`hasOpaqueContents`); nil
    /// otherwise. Read where the values lie.
    var opaqueContentsPixelSize: (width: Int, height: Int)? {
        if let external = externalContents {
            guard let client = external as? ClientContents, !client.buffer.format.hasAlpha else { return nil }
            return client.pixelSize
        }
        guard let image = properties.contents, !image.pixelFormat.hasAlpha else { return nil }
        return (image.width, image.height)
    }
}

/// The occluder the last measuring walk found, kept for the frames after it: while trees change
/// nothing but layers' contents (`DamageTracker.changedContentsAlone`, said of each tree), each as
/// large and as opaque as before (a window's next buffer), a walk over the same box finds the same
/// occluder, and is not made again. Only values are kept: no layer or contents outlives its frame
/// here.
struct KnownOccluder {
    /// What the occluder was found over.
    private struct Walk: Equatable {
        var box: PixelBox
        var target: PixelBox
    }

    /// The walk, the context and the generation of the tree last asked about.
    private var last: (walk: Walk, contextID: UInt64, generation: UInt64)?
    /// Whether a tree since the last asked about changed more than layers' contents.
    private var changedBeyondContents = false
    /// The size in pixels of a layer's opaque contents (`RenderLayer.opaqueContentsPixelSize`):
    /// what of a layer whose contents change decides whether they hide the box. Contents that may
    /// let what is behind them show through hide nothing, whatever their size. The rest of where
    /// contents land (`contentsRect`, `contentsScale`, the bounds) is not contents: it stays while
    /// trees change contents alone, and any other change is walked.
    private struct OpaqueContents: Equatable {
        var width: Int
        var height: Int

        init?(_ layer: RenderLayer) {
            guard let (width, height) = layer.opaqueContentsPixelSize else { return nil }
            (self.width, self.height) = (width, height)
        }
    }

    /// For layers that changed, their opaque contents as they are in the tree last asked about,
    /// the latest changed last: the layers most likely to change again. A few, looked through in
    /// turn.
    private var facts: [(id: LayerID, opaque: OpaqueContents?)] = []
    /// The occluder found for the last tree (`holds(for:box:target:)`).
    var occluder: Occluder?
    /// Changed layers whose facts are kept; more changes at once need a walk.
    static let factsLimit = 8

    /// Notes a tree that changed more than layers' contents (`DamageTracker.changedContentsAlone`
    /// is false for it, as for one of another context or root, drawn at another scale, or with
    /// layers animated): the next tree asked about is walked. Said of every tree: while it is not,
    /// the trees since the last asked about differ from it in contents alone.
    mutating func noteChangeBeyondContents() {
        changedBeyondContents = true
    }

    /// Whether `occluder`, found for the last tree asked about, is the occluder of `tree` over
    /// `box`; remembers `tree` as the last either way, for the next frame to ask.
    mutating func holds(for tree: RenderTree, box: PixelBox, target: PixelBox) -> Bool {
        let walk = Walk(box: box, target: target)
        let changedContentsAlone = !changedBeyondContents
        let contextID = tree.contextID
        defer { (last, changedBeyondContents) = ((walk, contextID, tree.generation), false) }
        // The layers changed since the last tree asked about, whose facts are kept whatever
        // changed: the walk finds the same occluder where only their contents changed, to
        // contents as large and as opaque as before, and the box is the same. (Generations count
        // in one context.)
        guard let last, last.contextID == contextID, let changed = tree.changedLayerIDs(since: last.generation), changed.count <= Self.factsLimit else {
            facts.removeAll(keepingCapacity: true)
            return false
        }
        var holds = changedContentsAlone && last.walk == walk
        for id in changed {
            let now = tree[id].flatMap(OpaqueContents.init)
            // A window's buffers: its layer is the last changed already, and is kept in place.
            if let kept = facts.indices.last, facts[kept].id == id {
                if facts[kept].opaque != now { holds = false }
                facts[kept].opaque = now
                continue
            }
            let before = facts.firstIndex { $0.id == id }.map { facts.remove(at: $0) }
            if before.map({ $0.opaque != now }) ?? true { holds = false }
            facts.append((id, now))
        }
        if facts.count > Self.factsLimit { facts.removeFirst(facts.count - Self.factsLimit) }
        return holds
    }

    /// Forgets the last tree: the next one is walked.
    mutating func forget() {
        last = nil
        facts.removeAll(keepingCapacity: true)
    }
}
