extension Layer {
    /// Draws the layer and its subtree into `context`, in the layer's bounds space (the role of
    /// `CALayer.render(in:)`): the model values, without animations, the layer itself treated as
    /// a root (its own transform and position are not applied; its opacity is).
    ///
    /// Drawn as the renderer draws on screen, shadow, background, gradient, contents, shape, text,
    /// emitter particles, sublayers or replicator instances, border, with masks, masksToBounds
    /// and group opacity. What can stay vector does: paths, backgrounds, borders, gradients, shape
    /// and text layers, and the drawing of layers whose contents come from `draw(in:)` or a
    /// drawing delegate, which is done again into `context` rather than copied from the backing
    /// store. Bitmap contents (images, client surfaces) are drawn as images, and shadows as
    /// blurred bitmaps. Transforms are flattened into each superlayer's plane as on screen; a layer
    /// under perspective is drawn flat into a bitmap and resampled through its projective map.
    public func render(in context: GraphicsContext) {
        context.saveGState()
        var drawer = LayerTreeDrawer(context: context, time: currentMediaTime())
        drawer.place(self, flipped: false)
        context.restoreGState()
    }
}

/// Walks a model layer tree into a `GraphicsContext`; see `Layer.render(in:)`.
struct LayerTreeDrawer {
    let context: GraphicsContext
    /// Media time for emitters.
    let time: Double
    /// The sign of the CTM's determinant at the root: a layer whose CTM winds the other way shows
    /// its back (unless an odd number of geometry flips mirrors it).
    var rootWinding: Double
    /// Multiplies every colour drawn: replicator instance colours and particle colours.
    var tint = (red: 1.0, green: 1.0, blue: 1.0)

    init(context: GraphicsContext, time: Double, rootWinding: Double? = nil) {
        self.context = context
        self.time = time
        self.rootWinding = rootWinding ?? (context.ctm.determinant < 0 ? -1 : 1)
    }

    private var isTinted: Bool { tint != (1, 1, 1) }

    // MARK: - The tree

    /// Draws `layer` where its superlayer's bounds space is the current user space.
    mutating func visit(_ layer: Layer, parentSpace: LayerProperties.SublayerSpace?, flipped: Bool) {
        let p = layer.properties
        guard !p.isHidden, p.opacity > 0 else { return }
        let toSuperlayer = p.transformToSuperlayer(parentSpace)
        if p.isTransformLayer {
            let outerAlpha = context.alpha
            for plane in depthSortedPlanes(of: layer, transform: toSuperlayer) {
                context.saveGState()
                context.setAlpha(outerAlpha * p.opacity * plane.opacity)
                placeTransformed(plane.layer, by: plane.transform.flattened, flipped: flipped != plane.isFlipped, appliesOpacity: false)
                context.restoreGState()
            }
            return
        }
        context.saveGState()
        placeTransformed(layer, by: toSuperlayer.flattened, flipped: flipped)
        context.restoreGState()
    }

    /// Draws `layer` mapped into the current user space by `transform`: through the CTM when the
    /// map is affine, otherwise (a perspective) drawn flat into a bitmap that is then resampled
    /// through the projective map pixel by pixel, as the renderer maps it on screen.
    private mutating func placeTransformed(_ layer: Layer, by transform: Transform3D, flipped: Bool, appliesOpacity: Bool = true) {
        if transform.m14 == 0 && transform.m24 == 0 && transform.m44 == 1 {
            context.concatenate(transform.affineTransform)
            place(layer, flipped: flipped, appliesOpacity: appliesOpacity)
            return
        }
        let toDevice = transform.concatenating(Transform3D(context.ctm))
        let p = layer.properties
        let box = Self.includingShadow(drawingBox(of: layer), of: p)
        let page = Rect(x: 0, y: 0, width: Double(context.width), height: Double(context.height))
        let seen = Self.boundingBox(of: box, through: toDevice).intersection(page)
        guard !seen.isNull, seen.width > 0, seen.height > 0, !box.isNull, box.width > 0, box.height > 0,
            let inverse = toDevice.planeInverse
        else { return }
        // The flat drawing at about the density it is seen at (more for a document's page).
        let resolution = context.isDrawingToScreen ? 1 : GraphicsContext.documentShadowResolution
        let largest = Double(Image.maximumDimension - 2)
        let k = min(max(seen.width / box.width, seen.height / box.height, 1) * resolution * 3, largest / box.width, largest / box.height)
        guard let flat = try? GraphicsContext(width: Int((box.width * k).rounded(.up)), height: Int((box.height * k).rounded(.up))) else {
            return
        }
        flat.scaleBy(x: k, y: k)
        flat.translateBy(x: -box.minX, y: -box.minY)
        flat.setAlpha(context.alpha)
        var drawer = LayerTreeDrawer(context: flat, time: time, rootWinding: Self.showsBack(p.bounds, toDevice) ? -1 : 1)
        drawer.tint = tint
        drawer.place(layer, flipped: flipped, appliesOpacity: appliesOpacity)
        let source = flat.makeImage()
        // Device pixels (of the page at `resolution`) that the layer covers, each sampled back.
        let x0 = (seen.minX * resolution).rounded(.down), y0 = (seen.minY * resolution).rounded(.down)
        let w = Int((seen.maxX * resolution).rounded(.up) - x0), h = Int((seen.maxY * resolution).rounded(.up) - y0)
        guard w > 0, h > 0 else { return }
        // Three by three samples a pixel from a drawing three times as dense: edges antialiased
        // about as finely as the renderer's.
        let warped = source.resampled(width: w, height: h, samples: 3) { x, y in
            let device = (x: (x0 + x) / resolution, y: (y0 + y) / resolution)
            guard let point = inverse.apply(x: device.x, y: device.y) else { return nil }
            return ((point.x - box.minX) * k, (point.y - box.minY) * k)
        }
        context.saveGState()
        context.concatenate(context.ctm.inverted())
        context.setAlpha(1)
        context.draw(warped, in: Rect(x: x0 / resolution, y: y0 / resolution, width: Double(w) / resolution, height: Double(h) / resolution))
        context.restoreGState()
    }

    /// Draws `layer`, whose bounds space is the current user space, at its opacity (unless the
    /// caller applied it), through its mask, as one group when group opacity asks for it.
    mutating func place(_ layer: Layer, flipped: Bool, appliesOpacity: Bool = true) {
        let p = layer.properties
        guard !p.isHidden, p.opacity > 0 else { return }
        let backFacing = (context.ctm.determinant < 0 ? -1.0 : 1.0) != rootWinding
        if !p.isDoubleSided && backFacing != flipped { return }
        context.saveGState()
        defer { context.restoreGState() }
        if appliesOpacity { context.setAlpha(context.alpha * p.opacity) }
        let group = p.opacity < 1 && p.allowsGroupOpacity && layer.sublayers.contains { !$0.isHidden }
        if let mask = layer.mask {
            var drawer = self
            context.drawMasked(
                content: { drawer.drawLayer(layer, flipped: flipped) },
                mask: { drawer.visit(mask, parentSpace: nil, flipped: flipped) })
        } else if group {
            context.beginTransparencyLayer()
            drawLayer(layer, flipped: flipped)
            context.endTransparencyLayer()
        } else {
            drawLayer(layer, flipped: flipped)
        }
    }

    /// The layer's own parts and its sublayers, in its bounds space.
    mutating func drawLayer(_ layer: Layer, flipped: Bool, drawsShadow: Bool = true) {
        let p = layer.properties
        let rounded = Self.roundedRect(p.bounds, radii: p.cornerRadii)

        if drawsShadow, p.shadowOpacity > 0, let shadowColor = p.shadowColor {
            // Under masksToBounds the shadow is clipped at the layer's edges (seed ch. 2, "Adding
            // Shadows to Layers"): only its part beneath the layer shows, through what is transparent.
            let color = tinted(shadowColor).withAlphaComponent(shadowColor.alpha * p.shadowOpacity)
            clipped(to: p.masksToBounds ? rounded : nil) { drawer in
                drawer.drawShadow(of: layer, color: color, rounded: rounded, flipped: flipped)
            }
        }

        if let background = p.backgroundColor, background.alpha > 0 {
            context.setFillColor(tinted(background))
            context.beginPath()
            context.addPath(rounded)
            context.fillPath()
        }
        if var gradient = p.gradient {
            gradient.colors = gradient.colors?.map(tinted)
            clipped(to: rounded) { gradient.draw(in: $0.context, bounds: p.bounds) }
        }

        clipped(to: p.masksToBounds ? rounded : nil) { drawer in
            drawer.drawContents(of: layer, flipped: flipped)
            if var shape = p.shape {
                shape.fillColor = shape.fillColor.map(drawer.tinted)
                shape.strokeColor = shape.strokeColor.map(drawer.tinted)
                shape.draw(in: drawer.context)
            }
            if let text = p.text {
                drawer.drawUpright(p.bounds, when: flipped) { drawer in
                    drawer.drawTintedIfNeeded(covering: p.bounds) { text.draw(in: $0, bounds: p.bounds) }
                }
            }
        }

        clipped(to: p.masksToBounds ? rounded : nil) { drawer in
            if let emitter = p.emitter {
                drawer.drawParticles(emitter, localTime: layer.convertTime(drawer.time, from: nil))
            }
            let childFlipped = flipped != p.isGeometryFlipped
            if let replicator = p.replicator {
                drawer.drawInstances(of: layer, replicator, flipped: childFlipped)
            } else {
                for sublayer in layer.sublayersInDrawingOrder {
                    drawer.visit(sublayer, parentSpace: p.sublayerSpace, flipped: childFlipped)
                }
            }
        }

        if p.borderWidth > 0, let border = p.borderColor, border.alpha > 0 {
            let w = p.borderWidth
            let (r0, r1, r2, r3) = p.cornerRadii
            var ring = rounded
            ring.addPath(Self.roundedRect(
                p.bounds.insetBy(dx: w, dy: w), radii: (max(r0 - w, 0), max(r1 - w, 0), max(r2 - w, 0), max(r3 - w, 0))))
            context.setFillColor(tinted(border))
            context.beginPath()
            context.addPath(ring)
            context.fillPath(using: .evenOdd)
        }
    }

    /// Contents from drawing are drawn again (a tiled layer's too, in one piece, its clip the
    /// bounds); bitmap contents are placed by gravity, contentsRect and contentsCenter, upright
    /// under an odd number of flips (ca-semantics G10).
    private mutating func drawContents(of layer: Layer, flipped: Bool) {
        let p = layer.properties
        let redrawing = layer.delegate as? any LayerRedrawingDelegate
        if layer.contentsAreBackingStore || redrawing != nil || p.tiled != nil {
            var redrawn = false
            // The backing store covers the bounds, so drawing outside them never showed.
            clipped(to: Path(rect: p.bounds)) { drawer in
                drawer.drawTintedIfNeeded(covering: p.bounds) { context in
                    // The state a fresh backing store context starts with.
                    context.setFillColor(.black)
                    context.setStrokeColor(.black)
                    context.setLineWidth(1)
                    context.setLineDash(phase: 0, lengths: [])
                    if let redrawing {
                        redrawn = redrawing.redraw(layer, in: context)
                    } else {
                        layer.draw(in: context)
                        redrawn = true
                    }
                }
            }
            if redrawn { return }
        }
        guard let contents = p.contents ?? p.externalContents?.snapshot(), let frame = p.contentsFrame(contentsAreFlipped: flipped),
            frame.width > 0, frame.height > 0
        else { return }
        let image = isTinted ? contents.multiplyingColors(by: tint) : contents
        let rect = p.contentsRect
        let source = Rect(
            x: rect.minX * Double(image.width), y: rect.minY * Double(image.height),
            width: rect.width * Double(image.width), height: rect.height * Double(image.height))
        let interpolation: ImageInterpolation = p.magnificationFilter == .nearest ? .nearest : .linear
        drawUpright(frame, when: flipped) { drawer in
            if p.contentsGravity.isResizing && p.contentsCenter != Rect(x: 0, y: 0, width: 1, height: 1) {
                drawer.drawNinePart(image, source: source, center: p.contentsCenter, in: frame, scale: p.contentsScale, interpolation: interpolation)
            } else {
                drawer.context.draw(image, from: source, in: frame, interpolation: interpolation)
            }
        }
    }

    /// Core Animation's nine-part stretching: corners keep their size (source pixels over
    /// contentsScale, shrunk together when the frame is smaller), edges stretch along one axis,
    /// the centre along both.
    private func drawNinePart(_ image: Image, source: Rect, center: Rect, in frame: Rect, scale: Double, interpolation: ImageInterpolation) {
        let k = scale > 0 ? scale : 1
        func split(_ start: Double, _ length: Double, _ c0: Double, _ cw: Double, _ destStart: Double, _ destLength: Double)
            -> [(source: (Double, Double), dest: (Double, Double))]
        {
            let before = c0 * length, after = (1 - c0 - cw) * length
            let shrink = (before + after) / k > destLength ? destLength / max((before + after) / k, 1e-9) : 1
            let b = before / k * shrink, a = after / k * shrink
            return [
                ((start, before), (destStart, b)),
                ((start + before, length - before - after), (destStart + b, max(destLength - b - a, 0))),
                ((start + length - after, after), (destStart + destLength - a, a)),
            ]
        }
        let columns = split(source.minX, source.width, center.minX, center.width, frame.minX, frame.width)
        let rows = split(source.minY, source.height, center.minY, center.height, frame.minY, frame.height)
        for row in rows where row.source.1 > 0 && row.dest.1 > 0 {
            for column in columns where column.source.1 > 0 && column.dest.1 > 0 {
                context.draw(
                    image, from: Rect(x: column.source.0, y: row.source.0, width: column.source.1, height: row.source.1),
                    in: Rect(x: column.dest.0, y: row.dest.0, width: column.dest.1, height: row.dest.1), interpolation: interpolation)
            }
        }
    }

    /// The shadow of `shadowPath`, or of everything the layer draws (its composited alpha), or
    /// of its rounded bounds when it draws nothing else, as the renderer casts it.
    private func drawShadow(of layer: Layer, color: Color, rounded: Path, flipped: Bool) {
        let p = layer.properties
        let offset = p.shadowOffset, blur = max(0, p.shadowRadius)
        let simple: Path? = p.shadowPath ?? (
            p.contents == nil && p.shape == nil && p.text == nil && !layer.contentsAreBackingStore
                && !(layer.delegate is any LayerRedrawingDelegate) && !layer.sublayers.contains { !$0.isHidden } ? rounded : nil)
        if let simple {
            guard !simple.isEmpty else { return }
            context.drawShadow(color: color, offset: offset, blur: blur, bounds: simple.boundingBox) { shadow in
                shadow.setFillColor(.black)
                shadow.addPath(simple)
                shadow.fillPath()
            }
            return
        }
        let (time, winding, tint) = (self.time, rootWinding, self.tint)
        context.drawShadow(color: color, offset: offset, blur: blur, bounds: drawingBox(of: layer)) { shadow in
            var drawer = LayerTreeDrawer(context: shadow, time: time, rootWinding: winding)
            drawer.tint = tint
            drawer.drawLayer(layer, flipped: flipped, drawsShadow: false)
        }
    }

    /// A rectangle (in the layer's bounds space) holding everything the layer and its subtree draw.
    private func drawingBox(of layer: Layer) -> Rect {
        let p = layer.properties
        var box = p.bounds
        if let frame = p.contentsFrame() { box = box.union(frame) }
        if let shape = p.shape, !shape.drawingBounds.isNull { box = box.union(shape.drawingBounds) }
        if let emitter = p.emitter {
            let particles = emitter.drawingBounds(atTime: layer.convertTime(time, from: nil))
            if !particles.isNull { box = box.union(particles) }
        }
        guard !p.masksToBounds else { return box }
        let spaces = p.instanceSublayerSpaces
        for sublayer in layer.sublayers where !sublayer.isHidden {
            let s = sublayer.properties
            let sub = Self.includingShadow(drawingBox(of: sublayer), of: s)
            for space in spaces {
                box = box.union(Self.boundingBox(of: sub, through: s.transformToSuperlayer(space).flattened))
            }
        }
        return box
    }

    /// `box` grown by where the layer's shadow can reach: offset, and three standard deviations.
    private static func includingShadow(_ box: Rect, of p: LayerProperties) -> Rect {
        guard p.shadowOpacity > 0 else { return box }
        let reach = 3 * max(p.shadowRadius, 0)
        return box.union(box.offsetBy(dx: p.shadowOffset.width, dy: p.shadowOffset.height).insetBy(dx: -reach, dy: -reach))
    }

    // MARK: - Replicators and emitters

    /// Each instance of the sublayers: instance k under instanceTransform k times (then the
    /// sublayerTransform), its colour multiplying everything it draws.
    private mutating func drawInstances(of layer: Layer, _ replicator: ReplicatorProperties, flipped: Bool) {
        let p = layer.properties
        if replicator.preservesDepth { return drawDepthSortedInstances(of: layer, replicator, flipped: flipped) }
        let outerTint = tint
        let outerAlpha = context.alpha
        for (k, space) in p.instanceSublayerSpaces.enumerated() {
            let c = replicator.color(ofInstance: k)
            guard c.alpha > 0 else { continue }
            tint = (outerTint.red * c.red, outerTint.green * c.green, outerTint.blue * c.blue)
            context.setAlpha(outerAlpha * c.alpha)
            for sublayer in layer.sublayersInDrawingOrder {
                visit(sublayer, parentSpace: space, flipped: flipped)
            }
        }
        tint = outerTint
        context.setAlpha(outerAlpha)
    }

    /// The particles alive at `localTime`, each its cell's image centred on its position, turned,
    /// scaled and coloured.
    private mutating func drawParticles(_ emitter: EmitterProperties, localTime: Double) {
        let outerAlpha = context.alpha
        for particle in emitter.particles(atTime: localTime) {
            let cell = emitter.cell(of: particle)
            guard let image = cell.contents, let size = emitter.particleSize(of: cell), particle.scale > 0, particle.color.alpha > 0 else {
                continue
            }
            let colour = particle.color
            let tinted = image.multiplyingColors(by: (tint.red * colour.red, tint.green * colour.green, tint.blue * colour.blue))
            let r = cell.contentsRect
            context.saveGState()
            context.translateBy(x: particle.position.x, y: particle.position.y)
            context.rotate(by: particle.angle)
            context.scaleBy(x: particle.scale, y: particle.scale)
            context.setAlpha(outerAlpha * colour.alpha)
            context.draw(
                tinted,
                from: Rect(x: r.minX * Double(image.width), y: r.minY * Double(image.height),
                           width: r.width * Double(image.width), height: r.height * Double(image.height)),
                in: Rect(x: -size.width / 2, y: -size.height / 2, width: size.width, height: size.height))
            context.restoreGState()
        }
    }

    /// A transform layer's planes, back to front by the depth of their centres, through nested
    /// transform layers (as `RenderTree.depthSortedSublayers` orders them on screen).
    private func depthSortedPlanes(of transformLayer: Layer, transform: Transform3D) -> [Plane] {
        var found: [Plane] = []
        collectPlanes(
            of: transformLayer, space: transformLayer.properties.sublayerSpace, transform: transform, opacity: 1,
            flipped: transformLayer.properties.isGeometryFlipped, instance: 0, into: &found)
        return sortedByDrawingOrder(found) { $0.depth }
    }

    /// A layer of a 3D space: a transform layer's, or a depth-preserving replicator's instance's.
    private struct Plane {
        var layer: Layer, transform: Transform3D, opacity: Double, isFlipped: Bool, depth: Double, instance: Int
    }

    /// `layer`'s visible sublayers placed in `space`, transform layers opened up into their
    /// sublayers' planes (as `RenderTree.collectPlanes`).
    private func collectPlanes(
        of layer: Layer, space: LayerProperties.SublayerSpace, transform: Transform3D, opacity: Double, flipped: Bool,
        instance: Int, into found: inout [Plane]
    ) {
        for sublayer in layer.sublayersInDrawingOrder where !sublayer.isHidden {
            let p = sublayer.properties
            let t = p.transformToSuperlayer(space).concatenating(transform)
            if p.isTransformLayer {
                collectPlanes(
                    of: sublayer, space: p.sublayerSpace, transform: t, opacity: opacity * p.opacity,
                    flipped: flipped != p.isGeometryFlipped, instance: instance, into: &found)
            } else {
                let depth = t.apply(x: p.bounds.midX, y: p.bounds.midY)?.z ?? -.infinity
                found.append(Plane(layer: sublayer, transform: t, opacity: opacity, isFlipped: flipped, depth: depth, instance: instance))
            }
        }
    }

    /// A depth-preserving replicator's instances: every instance's planes, back to front by depth
    /// (as `RenderTree.depthSortedInstances` orders them on screen).
    private mutating func drawDepthSortedInstances(of layer: Layer, _ replicator: ReplicatorProperties, flipped: Bool) {
        var found: [Plane] = []
        for (k, space) in layer.properties.instanceSublayerSpaces.enumerated() {
            collectPlanes(of: layer, space: space, transform: .identity, opacity: 1, flipped: false, instance: k, into: &found)
        }
        let outerTint = tint
        let outerAlpha = context.alpha
        for plane in sortedByDrawingOrder(found, zPosition: { $0.depth }) {
            let c = replicator.color(ofInstance: plane.instance)
            guard c.alpha > 0 else { continue }
            tint = (outerTint.red * c.red, outerTint.green * c.green, outerTint.blue * c.blue)
            context.saveGState()
            context.setAlpha(outerAlpha * c.alpha * plane.opacity)
            placeTransformed(plane.layer, by: plane.transform.flattened, flipped: flipped != plane.isFlipped)
            context.restoreGState()
        }
        tint = outerTint
    }

    // MARK: - Helpers

    /// `color` times the current tint.
    func tinted(_ color: Color) -> Color {
        guard isTinted else { return color }
        let c = color.converted(to: .sRGB)
        return Color(red: c.red * tint.red, green: c.green * tint.green, blue: c.blue * tint.blue, alpha: c.alpha)
    }

    /// Runs `body` with the clip narrowed to `path` (when given), state restored after.
    private mutating func clipped(to path: Path?, _ body: (inout LayerTreeDrawer) -> Void) {
        context.saveGState()
        if let path {
            context.beginPath()
            context.addPath(path)
            context.clip()
        }
        body(&self)
        context.restoreGState()
    }

    /// Runs `body` mirrored top to bottom within `rect` when `flipped`, so that what it draws
    /// reads upright under an odd number of geometry flips.
    private mutating func drawUpright(_ rect: Rect, when flipped: Bool, _ body: (inout LayerTreeDrawer) -> Void) {
        context.saveGState()
        if flipped {
            context.translateBy(x: 0, y: rect.minY + rect.maxY)
            context.scaleBy(x: 1, y: -1)
        }
        body(&self)
        context.restoreGState()
    }

    /// Draws directly, or, under a tint (which colours a drawing cannot carry), into a bitmap at
    /// the target's resolution that is then tinted and drawn over `rect`.
    private func drawTintedIfNeeded(covering rect: Rect, _ draw: (GraphicsContext) -> Void) {
        guard isTinted else {
            draw(context)
            return
        }
        let ctm = context.ctm
        let device = rect.applying(ctm)
        let k = context.isDrawingToScreen ? 1 : GraphicsContext.documentShadowResolution
        let x0 = (device.minX * k).rounded(.down), y0 = (device.minY * k).rounded(.down)
        let w = Int((device.maxX * k).rounded(.up) - x0), h = Int((device.maxY * k).rounded(.up) - y0)
        guard w > 0, h > 0, let bitmap = try? GraphicsContext(width: w, height: h) else { return }
        bitmap.translateBy(x: -x0, y: -y0)
        bitmap.scaleBy(x: k, y: k)
        bitmap.concatenate(ctm)
        draw(bitmap)
        let image = bitmap.makeImage().multiplyingColors(by: tint)
        guard ctm.determinant != 0 else { return }
        context.saveGState()
        context.concatenate(ctm.inverted())
        context.draw(image, in: Rect(x: x0 / k, y: y0 / k, width: Double(w) / k, height: Double(h) / k))
        context.restoreGState()
    }

    /// A rounded rectangle with a radius per corner (min-x/min-y, max-x/min-y, max-x/max-y,
    /// min-x/max-y), clockwise on screen.
    static func roundedRect(_ rect: Rect, radii: (Double, Double, Double, Double)) -> Path {
        guard radii != (0, 0, 0, 0) else { return Path(rect: rect) }
        // The quarter-ellipse control distance of a cubic Bézier.
        let kappa = 0.5522847498307936
        let (x0, y0, x1, y1) = (rect.minX, rect.minY, rect.maxX, rect.maxY)
        let (r0, r1, r2, r3) = radii
        var path = Path()
        path.move(to: Point(x: x0 + r0, y: y0))
        path.addLine(to: Point(x: x1 - r1, y: y0))
        path.addCurve(to: Point(x: x1, y: y0 + r1), control1: Point(x: x1 - r1 + kappa * r1, y: y0), control2: Point(x: x1, y: y0 + r1 - kappa * r1))
        path.addLine(to: Point(x: x1, y: y1 - r2))
        path.addCurve(to: Point(x: x1 - r2, y: y1), control1: Point(x: x1, y: y1 - r2 + kappa * r2), control2: Point(x: x1 - r2 + kappa * r2, y: y1))
        path.addLine(to: Point(x: x0 + r3, y: y1))
        path.addCurve(to: Point(x: x0, y: y1 - r3), control1: Point(x: x0 + r3 - kappa * r3, y: y1), control2: Point(x: x0, y: y1 - r3 + kappa * r3))
        path.addLine(to: Point(x: x0, y: y0 + r0))
        path.addCurve(to: Point(x: x0 + r0, y: y0), control1: Point(x: x0, y: y0 + r0 - kappa * r0), control2: Point(x: x0 + r0 - kappa * r0, y: y0))
        path.closeSubpath()
        return path
    }

    /// The box holding `rect`'s corners mapped by `t` (those in front of the viewer).
    static func boundingBox(of rect: Rect, through t: Transform3D) -> Rect {
        rect.corners.compactMap { t.apply(x: $0.x, y: $0.y) }
            .reduce(Rect.null) { $0.union(Rect(x: $1.x, y: $1.y, width: 0, height: 0)) }
    }

    /// Whether `t` shows the back of `rect`: its image winds the other way round.
    static func showsBack(_ rect: Rect, _ t: Transform3D) -> Bool {
        let corners = rect.corners.compactMap { t.apply(x: $0.x, y: $0.y) }
        guard corners.count == 4 else { return false }
        var area = 0.0
        for i in 0..<4 {
            let (a, b) = (corners[i], corners[(i + 1) % 4])
            area += a.x * b.y - b.x * a.y
        }
        return area < 0
    }
}
