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
    /// client buffer or an image in a format without alpha. Read where the values lie.
    var hasOpaqueContents: Bool {
        if let external = externalContents {
            guard let client = external as? ClientContents else { return false }
            return !client.buffer.format.hasAlpha
        }
        return properties.contents.map { !$0.pixelFormat.hasAlpha } ?? false
    }
}

/// The occluder the last measuring walk found, kept for the frames after it: while a tree changes
/// only layers' contents, each as large and as opaque as before (a window's next buffer), a walk
/// over the same box finds the same occluder, and is not made again. Only values are kept: no
/// layer or contents outlives its frame here.
struct KnownOccluder {
    /// What the occluder was found over.
    private struct Walk: Equatable {
        var contextID: UInt64
        var rootID: LayerID
        var scale: Double
        var box: PixelBox
        var target: PixelBox
    }

    /// What of a layer whose contents change decides whether it hides the box.
    private struct Facts: Equatable {
        var revision: UInt64
        var contentsSize: Size?
        var isOpaque: Bool

        init(_ layer: RenderLayer) {
            // Values read where they lie.
            revision = layer.revisionExceptContents
            contentsSize = layer.contentsLogicalSize
            isOpaque = layer.hasOpaqueContents
        }
    }

    /// The walk, the generation and whether the tree had animations, when it was last asked.
    private var last: (walk: Walk, generation: UInt64, animated: Bool)?
    /// The facts of layers that changed, as they are in the tree last asked about, the latest
    /// changed last: the layers most likely to change again. A few, looked through in turn.
    private var facts: [(id: LayerID, facts: Facts)] = []
    /// The occluder found for the last tree (`holds(for:scale:box:target:)`).
    var occluder: Occluder?
    /// Changed layers whose facts are kept; more changes at once need a walk.
    static let factsLimit = 8

    /// Whether `occluder`, found for the last tree asked about, is the occluder of `tree` over
    /// `box`; remembers `tree` as the last either way, for the next frame to ask.
    mutating func holds(for tree: RenderTree, scale: Double, box: PixelBox, target: PixelBox) -> Bool {
        let walk = Walk(contextID: tree.contextID, rootID: tree.rootID, scale: scale, box: box, target: target)
        let animated = !tree.animatedLayerIDs.isEmpty
        defer { last = (walk, tree.generation, animated) }
        // The layers changed since the last tree asked about: the walk finds the same occluder
        // there when nothing but their contents changed, to contents as large and as opaque,
        // nothing animates and the box is the same.
        guard let last, let changed = tree.changedLayerIDs(since: last.generation), changed.count <= Self.factsLimit else {
            facts.removeAll(keepingCapacity: true)
            return false
        }
        var holds = last.walk == walk && !last.animated && !animated
        for id in changed {
            let before = facts.firstIndex { $0.id == id }.map { facts.remove(at: $0).facts }
            guard let layer = tree[id] else {
                holds = false
                continue
            }
            let now = Facts(layer)
            if before != now { holds = false }
            facts.append((id, now))
        }
        if facts.count > Self.factsLimit { facts.removeFirst(facts.count - Self.factsLimit) }
        return holds
    }

    /// Forgets the last tree: the next one is walked.
    mutating func forget() {
        last = nil
        facts.removeAll()
    }
}
