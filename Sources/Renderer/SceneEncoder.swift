import LayerKit
import RendererContract

/// One draw of the layer shader: which instance, which part of the layer, and its textures.
struct EncodedDraw: Equatable {
    enum Kind: UInt32 {
        /// `blur` is one direction of a separable Gaussian over an earlier pass's alpha (shadows);
        /// the last four are layer filters (FilterEffects.swift).
        case body = 0, border = 1, shadow = 2, blur = 3, filterBlur = 4, colorMatrix = 5, blend = 6, distortion = 7
    }

    var instance: UInt32
    var kind: Kind
    /// What of the shader the draw uses (with `kind`, it picks the draw's specialized pipeline).
    var flags: SceneEncoder.Flags
    var contents: Image?
    /// A texture the renderer made, sampled instead of `contents`: a `VulkanLayer`'s presented
    /// drawable or a client dma-buf's copy (see `Texture.showing`).
    var externalTexture: Texture?
    /// A client's buffer, sampled through its surface's texture once the frame brought that up to
    /// date (`ClientBufferContents`).
    var clientContents: ClientBufferContents?
    var previousContents: Image?
    var filter: ContentsFilter
    /// In the pixels of the draw's pass (the target's, or its intermediate's); nil for all of them.
    var scissor: PixelRect?
    /// Binding 1 samples this intermediate, rendered by an earlier pass, instead of `contents`.
    var intermediate: Int? = nil
    /// Binding 2 samples this intermediate (a mask) instead of `previousContents`.
    var intermediate2: Int? = nil
    /// The target pixels the draw can touch (its quad's box, cut by scissor and clip).
    var reach = PixelBox.empty
    /// The target pixels it covers with opaque colour, when it hides what is under it.
    var opaqueBox: PixelBox? = nil
    /// Set by occlusion culling on a draw it kept whole and narrowed to its reach: the scissor
    /// the draw had before (nil: none). Such draws may share a call whose scissor spans them.
    var wholeWithin: PixelRect?? = nil
}

/// The draws of one pass, into the target or into one of the encoder's intermediates.
struct EncodedPass: Equatable {
    /// An index into `SceneEncoder.intermediates`; nil for the target.
    var intermediate: Int?
    var draws: [EncodedDraw]
    /// Whether the intermediate starts as the frame's clear colour (what is behind a layer on the
    /// target, drawn there instead: FilterEffects.swift) rather than transparent.
    var clearsToTargetColor = false
}

/// Turns a (sampled) render tree into the layer shader's instances and draws, in Core Animation's
/// per-layer order: shadow, background and contents, sublayers in drawing order, border.
///
/// Geometry is flattened per layer as CALayer does (`transformToSuperlayer(_:).flattened`), then
/// scaled to output pixels. A `masksToBounds` layer clips its sublayers and its shadow to its
/// rounded bounds in the shader; when clips nest, the outer ones also clip through the scissor
/// (their pixel bounding boxes). Colours are premultiplied sRGB-encoded values, blended as they are.
///
/// Effects that need a subtree as one image (group opacity, masks, shadows of composited alpha)
/// render it into an intermediate first (see OffscreenGroups.swift): the encoder then produces
/// several passes, intermediates before the passes that sample them, the target's last.
struct SceneEncoder {
    /// Floats per instance: two matrices and twelve vectors (std430, see Shaders/layer.glsl).
    static let floatsPerInstance = 16 * 2 + 4 * 12

    private(set) var floats: [Float] = []
    /// In the order they are rendered; the last renders into the target.
    var passes: [EncodedPass] = []
    /// Each intermediate's place on the target, in target pixels (its size is the image's).
    var intermediates: [PixelRect] = []
    /// The tree being drawn: the sample given, or while a replicator's delayed instance is drawn,
    /// that sample with the instance's sublayers sampled earlier.
    var tree: RenderTree
    let scale: Double
    let targetSize: (width: Int, height: Int)
    /// Shape and text layers' images, kept between frames by the renderer.
    let shapes: RasterCache<ShapeProperties>
    let texts: RasterCache<TextRasterSource>
    /// Shadow paths' blurred masks, kept between frames by the renderer.
    let shadowMasks: RasterCache<ShadowMaskSource>

    /// Instances as recorded: their floats are written once every pass's place is known.
    var instances: [Instance] = []
    /// The passes being recorded, innermost last; the first is the target's.
    var openPasses: [OpenPass] = [OpenPass()]
    /// Multiplies the red, green and blue of what is drawn now (replicator instances' colours).
    var tint = (1.0, 1.0, 1.0)
    /// A layer's backdrop made before the layer went into an intermediate, for its drawLayer to
    /// draw there (nil: already drawn beneath it). See FilterEffects.swift.
    var carriedBackdrop: (id: LayerID, backdrop: Backdrop?)?
    /// Layers in a transition whose current state is being drawn as one of its parts (see
    /// SceneEncoder+Transitions.swift).
    var layersDrawnWithoutTransition: Set<LayerID> = []
    /// What each subtree may draw and the target pixels the frame redraws: sublayers that draw
    /// nothing there are not encoded, as the CPU renderer does not draw them. Nil where what is
    /// drawn spreads past its pixels or is not the sample's (shadow shapes, filters, transitions,
    /// masks, replicator instances): everything there is encoded.
    var culling: (bounds: SubtreeBounds, region: PixelBox)?
    /// Layers placed (see `FrameStatistics.placedLayerCount`).
    private(set) var placedLayers = 0

    /// Every draw of every pass, in rendering order.
    var draws: [EncodedDraw] { passes.flatMap(\.draws) }

    struct Clip {
        var bounds: Rect
        var radii: (Double, Double, Double, Double)
        var inverse: Transform3D
        var pixelBox: Rect
    }

    struct Flags: OptionSet, Hashable {
        let rawValue: UInt32
        static let hasContents = Flags(rawValue: 1)
        static let clip = Flags(rawValue: 2)
        static let contentsRounded = Flags(rawValue: 4)
        static let ninePart = Flags(rawValue: 8)
        static let flipContents = Flags(rawValue: 16)
        static let hasBackground = Flags(rawValue: 32)
        static let crossFade = Flags(rawValue: 64)
        /// The contents' alpha tints `color` (a blurred shadow shape).
        static let tint = Flags(rawValue: 128)
        /// Texture 2's alpha multiplies the contents (a mask).
        static let mask = Flags(rawValue: 256)
        /// A gradient layer's gradient, from the instance's gradient block.
        static let gradient = Flags(rawValue: 512)
        /// The colour is added to what is below (an additive emitter's particles).
        static let additive = Flags(rawValue: 1024)
    }

    /// One instance of Shaders/layer.glsl's `LayerInstance`, in target pixels.
    struct Instance {
        var transform: Transform3D
        var clip: Clip?
        var quad: Rect
        var bounds: Rect
        var radii: (Double, Double, Double, Double) = (0, 0, 0, 0)
        var color: (Double, Double, Double, Double) = (0, 0, 0, 0)
        var contentsFrame = Rect.zero
        var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
        var contentsCenter: (Double, Double, Double, Double) = (0, 0, 1, 1)
        var opacity: Double
        var borderWidth = 0.0
        var sigma = 0.0
        var flags: Flags
        var crossFadeProgress = 1.0
        var contentsScale = 1.0
        /// Multiplies red, green and blue (a replicator instance's colour); `append` sets it.
        var tint = (1.0, 1.0, 1.0)
        /// The gradient block of a gradient layer (see Shaders/layer.glsl, FLAG_GRADIENT), or a
        /// colour matrix's (KIND_COLOR_MATRIX).
        var gradient: [Float]? = nil
        /// Filter.Kind.blendModeIndex, for a blend draw.
        var blendMode = 0.0
        /// Where the instance's pass lies on the target, in pixels: its draws are shifted by it.
        var origin = (x: 0, y: 0)
    }

    /// A pass being recorded: its draws with scissors still in target pixels, and the pixels they
    /// can touch.
    struct OpenPass {
        var draws: [EncodedDraw] = []
        var reach = PixelBox.empty
    }

    init(
        tree: RenderTree, scale: Double, targetSize: (width: Int, height: Int),
        shapes: RasterCache<ShapeProperties> = RasterCache(), texts: RasterCache<TextRasterSource> = RasterCache(),
        shadowMasks: RasterCache<ShadowMaskSource> = RasterCache(), culling: (bounds: SubtreeBounds, region: PixelBox)? = nil
    ) {
        self.culling = culling
        self.shapes = shapes
        self.texts = texts
        self.shadowMasks = shadowMasks
        self.tree = tree
        self.scale = scale
        self.targetSize = targetSize
        if let root = tree.root {
            visit(root, parentSpace: nil, parentTransform: Transform3D(scaleX: scale, y: scale), opacity: 1,
                  clip: nil, scissor: nil, flipped: false)
        }
        passes.append(EncodedPass(intermediate: nil, draws: openPasses.removeLast().draws))
        writeFloats()
    }

    /// Draws the layer and its subtree, offscreen first when an effect needs it as one image.
    mutating func visit(
        _ layer: RenderLayer, parentSpace: LayerProperties.SublayerSpace?, parentTransform: Transform3D, opacity parentOpacity: Double,
        clip: Clip?, scissor: PixelRect?, flipped: Bool
    ) {
        let p = layer.properties
        // A layer in a transition shows its previous state too, though hidden or transparent now.
        guard p.transition != nil ? parentOpacity > 0 : !p.isHidden && parentOpacity * p.opacity > 0 else { return }
        if p.isTransformLayer {
            drawDepthSorted(
                layer, transform: p.transformToSuperlayer(parentSpace), parentTransform: parentTransform,
                opacity: parentOpacity * p.opacity, clip: clip, scissor: scissor, flipped: flipped)
        } else {
            place(
                layer, transform: p.transformToSuperlayer(parentSpace).flattened.concatenating(parentTransform),
                opacity: parentOpacity, clip: clip, scissor: scissor, flipped: flipped)
        }
    }

    /// A transform layer's 3D space: nothing of its own, and its planes back to front by depth,
    /// each flattened into the plane `parentTransform` maps to pixels (see
    /// `RenderTree.depthSortedSublayers(of:transform:)`). Its opacity reaches each plane
    /// separately; its masksToBounds clips nothing.
    mutating func drawDepthSorted(
        _ layer: RenderLayer, transform: Transform3D, parentTransform: Transform3D, opacity: Double, clip: Clip?,
        scissor: PixelRect?, flipped: Bool
    ) {
        for plane in tree.depthSortedSublayers(of: layer, transform: transform) {
            place(
                plane.layer, transform: plane.transform.flattened.concatenating(parentTransform),
                opacity: opacity * plane.opacity, clip: clip, scissor: scissor, flipped: flipped != plane.isFlipped)
        }
    }

    /// Draws a layer that `transform` maps to pixels, with its subtree, at its own opacity times
    /// `parentOpacity`, offscreen first when an effect needs it as one image. A layer that is not
    /// double-sided and shows its back is not drawn.
    mutating func place(
        _ layer: RenderLayer, transform: Transform3D, opacity parentOpacity: Double, clip: Clip?, scissor: PixelRect?,
        flipped: Bool
    ) {
        let p = layer.properties
        placedLayers += 1
        if let transition = p.transition, !layersDrawnWithoutTransition.contains(layer.id) {
            return encodeTransition(
                layer, transition, transform: transform, parentOpacity: parentOpacity, clip: clip, scissor: scissor,
                flipped: flipped)
        }
        let opacity = parentOpacity * p.opacity
        guard opacity > 0 else { return }
        // An odd number of geometry flips above mirrors the layer without turning it round.
        if !p.isDoubleSided && transform.showsBack(of: p.bounds) != flipped { return }
        let mask = layer.maskID.flatMap { tree[$0] }
        let group = p.opacity < 1 && p.allowsGroupOpacity && tree.hasVisibleSublayers(layer)
        if layer.hasFilterEffects {
            encodeFiltered(
                layer, mask: mask, group: group, transform: transform, parentOpacity: parentOpacity, clip: clip,
                scissor: scissor, flipped: flipped)
        } else if mask != nil || group {
            encodeOffscreen(
                layer, mask: mask, group: group, transform: transform, parentOpacity: parentOpacity, clip: clip,
                scissor: scissor, flipped: flipped)
        } else {
            drawLayer(layer, transform: transform, opacity: opacity, clip: clip, scissor: scissor, flipped: flipped)
        }
    }

    /// The layer's own parts and its sublayers into the current pass, at `opacity`.
    mutating func drawLayer(
        _ layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Clip?, scissor: PixelRect?,
        flipped: Bool, shadow drawsShadow: Bool = true
    ) {
        let p = layer.properties
        let margin = antialiasingMargin(transform)
        let radii = p.cornerRadii

        // Contents orientation does not follow a flipped superlayer (ca-semantics G10): an odd
        // number of flips above the layer turns its texture back upright.
        let contentsFlipped = flipped

        // What masksToBounds clips: the sublayers, and the layer's own shadow (seed ch. 2, "Adding
        // Shadows to Layers": only its part beneath the layer shows, through what is transparent).
        let (innerClip, innerScissor) = boundsClip(of: p, transform: transform, radii: radii, clip: clip, scissor: scissor)

        if drawsShadow, p.shadowOpacity > 0, let shadowColor = p.shadowColor {
            if p.shadowPath != nil || p.contentsLogicalSize != nil || p.shape != nil || p.text != nil
                || tree.hasVisibleSublayers(layer)
            {
                encodeOffscreenShadow(
                    layer, transform: transform, opacity: opacity, clip: innerClip, scissor: innerScissor, flipped: flipped)
            } else if !p.bounds.isEmpty {
                // Only a background: its shape is the rounded bounds, whose blur the shader
                // computes exactly, without a pass.
                let sigma = max(0, p.shadowRadius)
                let shadowRect = p.bounds.offsetBy(dx: p.shadowOffset.width, dy: p.shadowOffset.height)
                let reach = 3 * sigma + margin
                append(
                    Instance(
                        transform: transform, clip: innerClip, quad: shadowRect.insetBy(dx: -reach, dy: -reach),
                        bounds: shadowRect, radii: radii, color: premultiplied(shadowColor, times: p.shadowOpacity),
                        opacity: opacity, sigma: sigma, flags: []),
                    kind: .shadow, scissor: innerScissor)
            }
        }

        // A mask's backgroundFilters are ignored (ca-semantics A3).
        if drawsShadow, !p.backgroundFilters.isEmpty, layer.maskedLayerID == nil {
            encodeBackdrop(layer, transform: transform, opacity: opacity, clip: clip, scissor: scissor)
        }

        let contentsFrame = p.contentsFrame(contentsAreFlipped: flipped)
        let externalTexture = Texture.showing(p.externalContents)
        let clientContents = p.externalContents as? ClientBufferContents
        let hasBackground = (p.backgroundColor?.alpha ?? 0) > 0
        let gradient = p.gradient.flatMap(gradientBlock)
        if hasBackground || contentsFrame != nil || gradient != nil {
            var flags: Flags = []
            if hasBackground { flags.insert(.hasBackground) }
            if gradient != nil { flags.insert(.gradient) }
            var quad = p.bounds
            if let contentsFrame, p.contents != nil || externalTexture != nil || clientContents != nil {
                flags.insert(.hasContents)
                if p.masksToBounds { flags.insert(.contentsRounded) } else { quad = quad.union(contentsFrame) }
                if p.contentsGravity.isResizing && p.contentsCenter != Rect(x: 0, y: 0, width: 1, height: 1) {
                    flags.insert(.ninePart)
                }
                if contentsFlipped { flags.insert(.flipContents) }
                if p.contentsCrossFade != nil { flags.insert(.crossFade) }
            }
            let center = p.contentsCenter
            var body = Instance(
                transform: transform, clip: clip, quad: quad.insetBy(dx: -margin, dy: -margin), bounds: p.bounds,
                radii: radii, color: p.backgroundColor.map { premultiplied($0, times: 1) } ?? (0, 0, 0, 0),
                contentsFrame: contentsFrame ?? .zero, contentsRect: p.contentsRect,
                contentsCenter: (center.minX, center.minY, center.width, center.height), opacity: opacity,
                flags: flags, crossFadeProgress: p.contentsCrossFade?.progress ?? 1, contentsScale: p.contentsScale)
            body.gradient = gradient
            append(
                body, kind: .body, scissor: scissor, contents: externalTexture == nil && clientContents == nil ? p.contents : nil,
                externalTexture: externalTexture, clientContents: clientContents,
                previous: p.contentsCrossFade?.from,
                filter: p.magnificationFilter,
                opaqueBox: openPasses.count == 1 ? opaqueBox(of: p, instance: body, contentsFrame: contentsFrame) : nil)
        }

        if let tiled = p.tiled {
            drawTiles(of: layer, tiled, transform: transform, opacity: opacity, clip: clip, scissor: scissor)
        }
        if let shape = p.shape,
            let raster = shapes.raster(for: layer.id, source: shape, scale: p.contentsScale, draw: { $0.rasterized(scale: $1) })
        {
            drawRaster(
                raster, of: layer, transform: transform, opacity: opacity, clip: clip, scissor: scissor, margin: margin,
                upright: false)
        }
        if let text = p.text,
            let raster = texts.raster(
                for: layer.id, source: TextRasterSource(text: text, bounds: p.bounds), scale: p.contentsScale,
                draw: { $0.text.rasterized(in: $0.bounds, scale: $1) })
        {
            // Text reads upright under an odd number of flips, as Core Animation draws it into a
            // flipped context there (ca-semantics G10); a shape is geometry and flips with it.
            drawRaster(
                raster, of: layer, transform: transform, opacity: opacity, clip: clip, scissor: scissor, margin: margin,
                upright: flipped)
        }

        if let emitter = p.emitter {
            drawParticles(of: layer, emitter, transform: transform, opacity: opacity, clip: innerClip, scissor: innerScissor)
        }
        let childFlipped = flipped != p.isGeometryFlipped
        if p.replicator != nil {
            drawInstances(
                of: layer, transform: transform, opacity: opacity, clip: innerClip, scissor: innerScissor, flipped: childFlipped)
        } else {
            let sublayers = culling.map { $0.bounds.sublayers(of: layer, in: tree, transform: transform, within: $0.region) }
            for sublayer in sublayers ?? tree.sortedSublayers(of: layer) {
                visit(sublayer, parentSpace: p.sublayerSpace, parentTransform: transform, opacity: opacity,
                      clip: innerClip, scissor: innerScissor, flipped: childFlipped)
            }
        }

        if p.borderWidth > 0, let borderColor = p.borderColor, borderColor.alpha > 0 {
            append(
                Instance(
                    transform: transform, clip: clip, quad: p.bounds.insetBy(dx: -margin, dy: -margin),
                    bounds: p.bounds, radii: radii, color: premultiplied(borderColor, times: 1), opacity: opacity,
                    borderWidth: p.borderWidth, flags: []),
                kind: .border, scissor: scissor)
        }
    }

    /// A shape layer's shape or a text layer's text, rasterised at its contentsScale, between its
    /// contents and its sublayers; clipped to the rounded bounds with masksToBounds. `upright`
    /// turns the image over within its frame, undoing a flip above the layer.
    mutating func drawRaster(
        _ raster: (image: Image, frame: Rect), of layer: RenderLayer, transform: Transform3D, opacity: Double,
        clip: Clip?, scissor: PixelRect?, margin: Double, upright: Bool
    ) {
        let p = layer.properties
        var flags: Flags = [.hasContents]
        if upright { flags.insert(.flipContents) }
        var quad = raster.frame
        if p.masksToBounds {
            flags.insert(.contentsRounded)
            quad = quad.intersection(p.bounds)
            guard !quad.isNull, !quad.isEmpty else { return }
        }
        append(
            Instance(
                transform: transform, clip: clip, quad: quad.insetBy(dx: -margin, dy: -margin), bounds: p.bounds,
                radii: p.cornerRadii, contentsFrame: raster.frame, opacity: opacity, flags: flags,
                contentsScale: p.contentsScale),
            kind: .body, scissor: scissor, contents: raster.image)
    }

    /// A replicator's sublayers once per instance, from the one subtree: instance k transformed
    /// by instanceTransform k times, its colour multiplied by the instance's colour (red, green and
    /// blue through `tint`, alpha through the opacity), its animations sampled k × instanceDelay
    /// earlier. With preservesDepth, all instances' planes are drawn back to front by depth, as a
    /// transform layer's are.
    mutating func drawInstances(
        of layer: RenderLayer, transform: Transform3D, opacity: Double, clip: Clip?, scissor: PixelRect?, flipped: Bool
    ) {
        let (outerTint, sample, outerCulling) = (tint, tree, culling)
        culling = nil
        defer { culling = outerCulling }
        for instance in sample.replicatorInstances(of: layer) {
            (tint, tree) = (instance.tint(within: outerTint), instance.tree)
            let alpha = instance.color.alpha
            switch instance.part {
            case .plane(let plane):
                place(
                    plane.layer, transform: plane.transform.flattened.concatenating(transform),
                    opacity: opacity * alpha * plane.opacity, clip: clip, scissor: scissor, flipped: flipped != plane.isFlipped)
            case .sublayers(let sublayers, let space):
                for sublayer in sublayers {
                    visit(sublayer, parentSpace: space, parentTransform: transform, opacity: opacity * alpha,
                          clip: clip, scissor: scissor, flipped: flipped)
                }
            }
        }
        (tint, tree) = (outerTint, sample)
    }

    /// An emitter's particles alive at the layer's local time of the sample, one instance of
    /// its cell's image each, centred on the particle, turned and scaled about its centre; the
    /// colour multiplies the image (red, green and blue through `tint`, alpha through the opacity).
    mutating func drawParticles(
        of layer: RenderLayer, _ emitter: EmitterProperties, transform: Transform3D, opacity: Double, clip: Clip?,
        scissor: PixelRect?
    ) {
        let outerTint = tint
        let flags: Flags = emitter.renderMode == .additive ? [.hasContents, .additive] : [.hasContents]
        for particle in tree.particleDraws(of: layer, emitter) {
            let placed = particle.transform.concatenating(transform)
            let margin = antialiasingMargin(placed)
            let color = particle.color
            tint = (outerTint.0 * color.red, outerTint.1 * color.green, outerTint.2 * color.blue)
            append(
                Instance(
                    transform: placed, clip: clip, quad: particle.frame.insetBy(dx: -margin, dy: -margin), bounds: particle.frame,
                    contentsFrame: particle.frame, contentsRect: particle.contentsRect, opacity: opacity * color.alpha,
                    flags: flags, contentsScale: particle.contentsScale),
                kind: .body, scissor: scissor, contents: particle.image)
        }
        tint = outerTint
    }

    /// The clip and scissor within a layer that `transform` maps to pixels: with masksToBounds,
    /// its rounded bounds through the shader and an enclosing clip through the scissor (their
    /// pixel boxes); otherwise the enclosing ones.
    func boundsClip(
        of p: LayerProperties, transform: Transform3D, radii: (Double, Double, Double, Double), clip: Clip?,
        scissor: PixelRect?
    ) -> (Clip?, PixelRect?) {
        guard p.masksToBounds, let inverse = transform.planeInverse else { return (clip, scissor) }
        let box = pixelBox(of: p.bounds, transform)
        var inner = scissor
        if let outer = clip { inner = intersect(inner, pixelRect(outer.pixelBox)) }
        return (Clip(bounds: p.bounds, radii: radii, inverse: inverse, pixelBox: box), intersect(inner, pixelRect(box)))
    }

    /// One output pixel in the layer's units (at least), so quads reach the anti-aliased fringe.
    func antialiasingMargin(_ t: Transform3D) -> Double {
        let sx = (t.m11 * t.m11 + t.m12 * t.m12).squareRoot()
        let sy = (t.m21 * t.m21 + t.m22 * t.m22).squareRoot()
        let pixelsPerUnit = max(min(sx, sy), 1e-3)
        return min(1.5 / pixelsPerUnit, 1e4)
    }

    func pixelBox(of rect: Rect, _ t: Transform3D) -> Rect {
        Rect(boundingPoints: rect.corners.compactMap { c in t.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) } })
    }

    func pixelRect(_ r: Rect) -> PixelRect {
        let x0 = max(0, min(Double(targetSize.width), r.minX.rounded(.down)))
        let y0 = max(0, min(Double(targetSize.height), r.minY.rounded(.down)))
        let x1 = max(x0, min(Double(targetSize.width), r.maxX.rounded(.up)))
        let y1 = max(y0, min(Double(targetSize.height), r.maxY.rounded(.up)))
        return PixelRect(x: Int32(x0), y: Int32(y0), width: UInt32(x1 - x0), height: UInt32(y1 - y0))
    }

    func intersect(_ a: PixelRect?, _ b: PixelRect) -> PixelRect {
        guard let a else { return b }
        let x0 = max(a.x, b.x), y0 = max(a.y, b.y)
        let x1 = min(Int64(a.x) + Int64(a.width), Int64(b.x) + Int64(b.width))
        let y1 = min(Int64(a.y) + Int64(a.height), Int64(b.y) + Int64(b.height))
        return PixelRect(x: x0, y: y0, width: UInt32(max(0, x1 - Int64(x0))), height: UInt32(max(0, y1 - Int64(y0))))
    }

    func premultiplied(_ c: Color, times alpha: Double) -> (Double, Double, Double, Double) {
        c.premultipliedSRGB(times: alpha)
    }

    /// A gradient's block for the shader: geometry, type and count, premultiplied colours, then
    /// locations four to a vector; nil when it has no colours. Any number of stops fits.
    func gradientBlock(_ g: GradientProperties) -> [Float]? {
        let stops = g.stops
        guard !stops.isEmpty else { return nil }
        let type: Float = switch g.type {
        case .axial: 0
        case .radial: 1
        case .conic: 2
        }
        var block: [Float] = [
            Float(g.startPoint.x), Float(g.startPoint.y), Float(g.endPoint.x), Float(g.endPoint.y),
            type, Float(stops.count), 0, 0,
        ]
        for stop in stops {
            let c = premultiplied(stop.color, times: 1)
            block += [Float(c.0), Float(c.1), Float(c.2), Float(c.3)]
        }
        var locations = stops.map { Float($0.location) }
        while locations.count % 4 != 0 { locations.append(0) }
        return block + locations
    }

    /// Records `instance` and its draw into the current pass; `scissor` is in target pixels.
    mutating func append(
        _ instance: Instance, kind: EncodedDraw.Kind, scissor: PixelRect?, contents: Image? = nil,
        externalTexture: Texture? = nil, clientContents: ClientBufferContents? = nil, previous: Image? = nil,
        filter: ContentsFilter = .linear, intermediate: Int? = nil, intermediate2: Int? = nil, opaqueBox: PixelBox? = nil
    ) {
        var instance = instance
        instance.tint = tint
        instances.append(instance)
        var flags = instance.flags
        if instance.clip != nil { flags.insert(.clip) }
        let reach = reach(of: instance, scissor)
        let draw = EncodedDraw(
            instance: UInt32(instances.count - 1), kind: kind, flags: flags, contents: contents, externalTexture: externalTexture,
            clientContents: clientContents, previousContents: previous, filter: filter, scissor: scissor, intermediate: intermediate, intermediate2: intermediate2, reach: reach,
            opaqueBox: opaqueBox)
        openPasses[openPasses.count - 1].draws.append(draw)
        openPasses[openPasses.count - 1].reach = openPasses[openPasses.count - 1].reach.union(reach)
    }

    /// The pixels a draw can touch: its quad's bounding box, cut by its scissor and clip.
    private func reach(of instance: Instance, _ scissor: PixelRect?) -> PixelBox {
        let corners = instance.quad.corners.compactMap { c in instance.transform.apply(x: c.x, y: c.y) }
        // A corner behind the eye (perspective) has no image: the quad may reach anywhere.
        var box = corners.count == 4
            ? PixelBox(covering: Rect(boundingPoints: corners.map { Point(x: $0.x, y: $0.y) }))
            : PixelBox(x: 0, y: 0, width: targetSize.width, height: targetSize.height)
        if let scissor { box = box.intersection(PixelBox(scissor)) }
        if let clip = instance.clip { box = box.intersection(PixelBox(covering: clip.pixelBox)) }
        return box
    }

    /// The floats of every instance, shifted into its pass's pixels, then the gradient blocks.
    private mutating func writeFloats() {
        floats.reserveCapacity(instances.count * Self.floatsPerInstance)
        // Blocks are placed in vec4s after the last instance.
        var blockStart = instances.count * Self.floatsPerInstance / 4
        var blocks: [Float] = []
        for instance in instances {
            var transform = instance.transform
            var clipInverse = instance.clip?.inverse ?? .identity
            if instance.origin != (0, 0) {
                // Pass pixel q is target pixel q + origin: bounds space reaches the pass through the
                // target, and fragment coordinates reach the clip through it too.
                let (x, y) = (Double(instance.origin.x), Double(instance.origin.y))
                transform = transform.concatenating(Transform3D(translationX: -x, y: -y))
                if instance.clip != nil { clipInverse = Transform3D(translationX: x, y: y).concatenating(clipInverse) }
            }
            func matrix(_ t: Transform3D) { floats.append(contentsOf: t.rows.joined().map { Float($0) }) }
            func vector(_ v: (Double, Double, Double, Double)) {
                floats.append(contentsOf: [Float(v.0), Float(v.1), Float(v.2), Float(v.3)])
            }
            func rect(_ r: Rect) { vector((r.minX, r.minY, r.width, r.height)) }
            matrix(transform)
            matrix(clipInverse)
            rect(instance.quad)
            rect(instance.bounds)
            vector(instance.radii)
            vector(instance.color)
            rect(instance.contentsFrame)
            rect(instance.contentsRect)
            vector(instance.contentsCenter)
            rect(instance.clip?.bounds ?? .zero)
            vector(instance.clip?.radii ?? (0, 0, 0, 0))
            vector((instance.opacity, instance.borderWidth, instance.sigma, 0))
            vector((instance.crossFadeProgress, instance.contentsScale, instance.blendMode, 0))
            var gradientStart = 0.0
            if let block = instance.gradient {
                gradientStart = Double(blockStart)
                blocks += block
                blockStart += block.count / 4
            }
            vector((instance.tint.0, instance.tint.1, instance.tint.2, gradientStart))
        }
        floats += blocks
    }
}
