import LayerKit
import RendererContract

/// Transitions (`Transition`, and the fade LayerKit runs for `isHidden`): LayerKit decides what a
/// frame shows (`TransitionState.parts(in:)`), and the encoder draws each state of the layer, with
/// its subtree, into an intermediate of one shared box, moved by the part's offset in the layer's
/// plane: the previous state from the snapshot the transition kept (sampled at this frame's time,
/// the layer placed where it is now), the current one from this tree. A dissolve is one draw
/// mixing the two intermediates by progress; the other types composite them back to front. The
/// layer's masksToBounds clips the composites at its bounds, which do not move with the parts.
extension SceneEncoder {
    mutating func encodeTransition(
        _ layer: RenderLayer, _ transition: TransitionState, transform: Transform3D, parentOpacity: Double,
        clip: Clip?, scissor: PixelRect?, flipped: Bool
    ) {
        let p = layer.properties
        let parts = transition.parts(in: p.bounds)
        let previous = transition.previousTree(shownWith: tree)
        let (partClip, partScissor) = boundsClip(of: p, transform: transform, radii: p.cornerRadii, clip: clip, scissor: scissor)
        let (outerTint, outerCulling) = (tint, culling)
        // The parts move, and the previous one is another tree's.
        (tint, culling) = ((1, 1, 1), nil)
        defer { (tint, culling) = (outerTint, outerCulling) }

        // The parts' passes nest, so that their box, known once all are drawn, can be shared.
        for part in parts {
            beginPass()
            let moved = Transform3D(translationX: part.offset.width, y: part.offset.height).concatenating(transform)
            switch part.state {
            case .current:
                guard !p.isHidden else { continue }
                layersDrawnWithoutTransition.insert(layer.id)
                place(layer, transform: moved, opacity: 1, clip: nil, scissor: nil, flipped: flipped)
                layersDrawnWithoutTransition.remove(layer.id)
            case .previous:
                guard let previous, let old = previous[layer.id], !old.properties.isHidden else { continue }
                let sample = tree
                tree = previous
                place(old, transform: moved, opacity: 1, clip: nil, scissor: nil, flipped: flipped)
                tree = sample
            }
        }
        let reach = openPasses.suffix(parts.count).reduce(PixelBox.empty) { $0.union($1.reach) }
        let box = reach.intersection(limit(clip: partClip, scissor: partScissor))
        var images: [(index: Int, box: PixelBox)?] = []
        for _ in parts { images.insert(endPass(box: box, limit: box), at: 0) }
        tint = outerTint
        if transition.dissolves {
            guard let i = parts.firstIndex(where: { $0.state == .current }), let currentImage = images[i],
                let previousImage = images[1 - i]
            else { return }
            let rect = box.rect
            append(
                Instance(
                    transform: .identity, clip: partClip, quad: rect, bounds: rect, contentsFrame: rect,
                    opacity: parentOpacity, flags: [.hasContents, .crossFade],
                    crossFadeProgress: parts[i].weight),
                kind: .body, scissor: partScissor, filter: .nearest, intermediate: currentImage.index,
                intermediate2: previousImage.index)
        } else {
            for image in images.compactMap({ $0 }) {
                appendComposite(
                    of: image, flags: [.hasContents], color: (0, 0, 0, 0), opacity: parentOpacity, clip: partClip,
                    scissor: partScissor)
            }
        }
    }
}
