internal import CPixman
import LayerKit
import RendererContract

/// Transitions (`Transition`, and the fade LayerKit runs for `isHidden`), drawn as the Vulkan
/// renderer draws them (its SceneEncoder+Transitions.swift): LayerKit says what a frame shows
/// (`TransitionState.parts(in:)`), and each state of the layer, with its subtree, is drawn into
/// an image of the pixels the frame redraws, moved by the part's offset in the layer's plane: the
/// previous state from the snapshot the transition kept (sampled at this frame's time, the layer
/// placed where it is now), the current one from this tree. A fade mixes the two by progress; the
/// other types composite them back to front. The layer's masksToBounds clips them at its bounds,
/// which do not move with the parts.
extension TreePainter {
    mutating func drawTransition(
        _ layer: RenderLayer, _ transition: TransitionState, transform: Transform3D, opacity parentOpacity: Double,
        clip: Coverage?, flipped: Bool
    ) {
        // Nothing in a transition hides what is behind it, and while skipping, all of it lies
        // beneath the occluder.
        guard !isMeasuring, !isSkipping else { return }
        let p = layer.properties
        var partClip = clip
        if p.masksToBounds {
            guard let bounds = clipCoverage(RoundedRect(rect: p.bounds, radii: p.cornerRadii), transform: transform, within: clip)
            else { return }
            partClip = bounds
        }
        let box = partClip.map { $0.box.intersection(canvas.box) } ?? canvas.box
        guard !box.isEmpty else { return }
        let parts = transition.parts(in: p.bounds)
        let previous = transition.previousTree(shownWith: tree)
        var images: [PixmanImage?] = []
        for part in parts {
            let moved = Transform3D(translationX: part.offset.width, y: part.offset.height).concatenating(transform)
            let image = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
            switch part.state {
            case .current:
                guard !p.isHidden else {
                    images.append(nil)
                    continue
                }
                var painter = offscreenPainter(onto: image, box: box)
                painter.drawnWithoutTransition = layer.id
                painter.place(layer, transform: moved, opacity: 1, clip: nil, flipped: flipped)
                absorb(painter)
            case .previous:
                guard let previous, let old = previous[layer.id], !old.properties.isHidden else {
                    images.append(nil)
                    continue
                }
                var painter = offscreenPainter(onto: image, box: box, tree: previous)
                painter.place(old, transform: moved, opacity: 1, clip: nil, flipped: flipped)
                absorb(painter)
            }
            images.append(image)
        }
        let mask = Coverage.uniform(parentOpacity, box: box, clip: partClip)
        if transition.dissolves {
            // previous × (1 − progress) + current × progress, each part weighted.
            let mixed = PixmanImage(format: PIXMAN_a8r8g8b8, width: box.width, height: box.height)
            for (part, image) in zip(parts, images) {
                guard let image else { continue }
                let weight = PixmanImage(solid: (0, 0, 0, part.weight))
                pixman_image_composite32(
                    PIXMAN_OP_ADD, image.handle, weight.handle, mixed.handle, 0, 0, 0, 0, 0, 0, Int32(box.width), Int32(box.height))
                withExtendedLifetime(weight) {}
            }
            canvas.composite(mixed, at: (box.minX, box.minY), mask: mask, box: box)
            composites += 1
        } else {
            for image in images.compactMap({ $0 }) {
                canvas.composite(image, at: (box.minX, box.minY), mask: mask, box: box)
                composites += 1
            }
        }
    }
}
