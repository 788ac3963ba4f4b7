import Graphics
import LayerKit
import RendererContract

/// Occlusion culling on the target: pixels an opaque layer covers need nothing drawn under them.
///
/// A draw is an occluder when it fills a pixel-aligned rectangle with opaque colour: a body draw at
/// full opacity, without clip or rounded corners, under an axis-aligned transform, whose background
/// is opaque or whose contents are (`isOpaque`, or XRGB pixels) and cover what it claims. Walking
/// the target's draws from the top, every draw loses the parts of it that occluders above already
/// cover: it is dropped when nothing is left, or drawn once per remaining piece (a window's
/// surroundings, say) through the scissor.
extension SceneEncoder {
    /// The pixels the body draw of `p` covers with opaque colour, if it is an occluder.
    func opaqueBox(of p: LayerProperties, instance: Instance, contentsFrame: Rect?) -> PixelBox? {
        let t = instance.transform
        guard instance.opacity >= 1, instance.clip == nil, instance.radii == (0, 0, 0, 0),
            t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m34 == 0, t.m44 == 1
        else { return nil }
        var covered = Rect.null
        if let background = p.backgroundColor, background.alpha >= 1 { covered = p.bounds }
        let contentsAreOpaque: Bool = if let client = p.externalContents as? ClientBufferContents {
            p.isOpaque || client.isOpaque
        } else if let image = p.contents, p.externalContents?.pixelSize == nil {
            p.isOpaque || image.pixelFormat == .xrgb8888
        } else {
            false
        }
        if contentsAreOpaque, let contentsFrame, p.contentsCrossFade == nil {
            let frame = p.masksToBounds ? contentsFrame.intersection(p.bounds) : contentsFrame
            // Two opaque rectangles cover their union only when one holds the other.
            if covered.isNull || frame.contains(covered) {
                covered = frame
            } else if !covered.contains(frame) {
                covered = covered.width * covered.height >= frame.width * frame.height ? covered : frame
            }
        }
        guard !covered.isNull, !covered.isEmpty,
            let a = t.apply(x: covered.minX, y: covered.minY), let b = t.apply(x: covered.maxX, y: covered.maxY)
        else { return nil }
        // Only whole pixels inside the edges: anti-aliased edges are partly transparent.
        let box = PixelBox(
            minX: Int(min(a.x, b.x).rounded(.up)), minY: Int(min(a.y, b.y).rounded(.up)),
            maxX: Int(max(a.x, b.x).rounded(.down)), maxY: Int(max(a.y, b.y).rounded(.down)))
        return box.isEmpty ? nil : box
    }

    /// Drops or splits the target's draws hidden under occluders above them; with `region`, draws
    /// are first limited to it (a partial redraw).
    mutating func cullOccludedDraws(within region: PixelRect?) {
        guard var pass = passes.last, pass.intermediate == nil else { return }
        let limit = region.map { PixelBox($0) }
            ?? PixelBox(x: 0, y: 0, width: targetSize.width, height: targetSize.height)
        var occluders: [PixelBox] = []
        func addOccluder(_ box: PixelBox) {
            occluders.append(box)
            // The largest few hide almost everything; more would cost more than they save.
            if occluders.count > Self.maximumOccluders {
                occluders.sort { $0.width * $0.height > $1.width * $1.height }
                occluders.removeLast()
            }
        }
        var kept: [EncodedDraw] = []
        kept.reserveCapacity(pass.draws.count)
        for draw in pass.draws.reversed() {
            let reach = draw.reach.intersection(limit)
            guard !reach.isEmpty else { continue }
            // Most draws overlap no occluder: keep them without building pieces.
            guard occluders.contains(where: { !$0.intersection(reach).isEmpty }) else {
                var whole = draw
                whole.scissor = reach.pixelRect
                whole.wholeWithin = .some(draw.scissor)
                kept.append(whole)
                if let opaque = draw.opaqueBox?.intersection(reach), !opaque.isEmpty { addOccluder(opaque) }
                continue
            }
            var pieces = [reach]
            for occluder in occluders where !pieces.isEmpty {
                pieces = pieces.flatMap { $0.subtracting(occluder) }
            }
            if pieces == [reach] {
                var whole = draw
                whole.scissor = reach.pixelRect
                whole.wholeWithin = .some(draw.scissor)
                kept.append(whole)
            } else if pieces.count <= Self.maximumPieces {
                // Reversed like the walk, so the pieces come out above, below, left, right.
                for piece in pieces.reversed() {
                    var part = draw
                    part.scissor = piece.pixelRect
                    kept.append(part)
                }
            } else {
                var whole = draw
                whole.scissor = reach.pixelRect
                whole.wholeWithin = .some(draw.scissor)
                kept.append(whole)
            }
            if let opaque = draw.opaqueBox?.intersection(reach), !opaque.isEmpty { addOccluder(opaque) }
        }
        pass.draws = kept.reversed()
        passes[passes.count - 1] = pass
    }

    /// Removes the target's bottom draw when it fills all of `region` (the whole target when nil)
    /// with one opaque colour and nothing else, an output's background say, and returns that
    /// colour (premultiplied) for the target pass to clear to: a clear writes the same pixels for
    /// far less than shading each of them (at 1080p on lavapipe, about 15 ms less).
    mutating func takeBottomFill(within region: PixelRect?) -> (Double, Double, Double, Double)? {
        guard var pass = passes.last, pass.intermediate == nil, let bottom = pass.draws.first,
            bottom.kind == .body, bottom.flags == [.hasBackground], bottom.contents == nil, bottom.externalTexture == nil,
            bottom.clientContents == nil,
            bottom.previousContents == nil, bottom.intermediate == nil, bottom.intermediate2 == nil, let box = bottom.opaqueBox
        else { return nil }
        let area = region.map { PixelBox($0) } ?? PixelBox(x: 0, y: 0, width: targetSize.width, height: targetSize.height)
        let instance = instances[Int(bottom.instance)]
        // Its reach has its scissor: a draw cut to less than the area does not fill it.
        guard box.intersection(bottom.reach).intersection(area) == area, instance.tint == (1, 1, 1), instance.blendMode == 0
        else { return nil }
        pass.draws.removeFirst()
        passes[passes.count - 1] = pass
        return instance.color
    }

    /// A draw split into more pieces than this is drawn whole instead.
    static let maximumPieces = 8
    static let maximumOccluders = 8
}

extension PixelBox {
    /// What of this box lies outside `other`: up to four boxes (above, below, left, right).
    func subtracting(_ other: PixelBox) -> [PixelBox] {
        let overlap = intersection(other)
        guard !overlap.isEmpty else { return [self] }
        var pieces: [PixelBox] = []
        if overlap.minY > minY { pieces.append(PixelBox(minX: minX, minY: minY, maxX: maxX, maxY: overlap.minY)) }
        if overlap.maxY < maxY { pieces.append(PixelBox(minX: minX, minY: overlap.maxY, maxX: maxX, maxY: maxY)) }
        if overlap.minX > minX {
            pieces.append(PixelBox(minX: minX, minY: overlap.minY, maxX: overlap.minX, maxY: overlap.maxY))
        }
        if overlap.maxX < maxX {
            pieces.append(PixelBox(minX: overlap.maxX, minY: overlap.minY, maxX: maxX, maxY: overlap.maxY))
        }
        return pieces
    }
}
