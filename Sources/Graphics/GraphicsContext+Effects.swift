import Foundation
internal import CCairo

/// A colour at a place along a gradient, 0 at its start and 1 at its end.
public struct GradientStop: Sendable, Hashable {
    public var location: Double
    public var color: Color

    public init(location: Double, color: Color) {
        self.location = location
        self.color = color
    }
}

/// How an image is sampled when it is drawn larger or smaller than its pixels.
public enum ImageInterpolation: Sendable {
    case linear
    /// Each pixel repeated as a block: pixel art and exact copies.
    case nearest
}

extension GraphicsContext {
    // MARK: - Gradients

    /// Paints the clip with the gradient along the line from `start` to `end`: constant across the
    /// line, the end colours extending beyond the first and last stop, times the global alpha.
    /// Stops are interpolated with premultiplied alpha, as the renderer does.
    public func drawLinearGradient(_ stops: [GradientStop], start: Point, end: Point) {
        guard !isDrawingSuppressed, !stops.isEmpty else { return }
        paint(gradient: cairo_pattern_create_linear(start.x, start.y, end.x, end.y), stops: stops)
    }

    /// Paints the clip with the gradient from `center` (location 0) to the circle of `radius`
    /// (location 1), the end colours extending; an ellipse comes from a scaled CTM.
    public func drawRadialGradient(_ stops: [GradientStop], center: Point, radius: Double) {
        guard !isDrawingSuppressed, !stops.isEmpty, radius > 0, radius.isFinite else { return }
        paint(gradient: cairo_pattern_create_radial(center.x, center.y, 0, center.x, center.y, radius), stops: stops)
    }

    /// Paints the disc of `radius` round `center` with the gradient that turns once round it from
    /// `startAngle` (radians, turning +x towards +y: clockwise on screen), location 0 there and 1
    /// a full turn later. cairo has no conic gradient, so it is a mesh of thin sectors, with one
    /// boundary on every stop so that colours change exactly where the stops say.
    public func drawConicGradient(_ stops: [GradientStop], center: Point, startAngle: Double, radius: Double) {
        guard !isDrawingSuppressed, !stops.isEmpty, radius > 0, radius.isFinite else { return }
        let stops = premultipliedStops(stops)
        var cuts = Set((0...128).map { Double($0) / 128 })
        for stop in stops where stop.location > 0 && stop.location < 1 { cuts.insert(stop.location) }
        let sorted = cuts.sorted()
        let mesh = cairo_pattern_create_mesh()!
        func corner(_ index: UInt32, _ t: Double) {
            let c = Self.color(at: t, in: stops)
            cairo_mesh_pattern_set_corner_color_rgba(mesh, index, c.red, c.green, c.blue, c.alpha)
        }
        for (t0, t1) in zip(sorted, sorted.dropFirst()) {
            let a0 = startAngle + t0 * 2 * .pi, a1 = startAngle + t1 * 2 * .pi
            cairo_mesh_pattern_begin_patch(mesh)
            cairo_mesh_pattern_move_to(mesh, center.x, center.y)
            cairo_mesh_pattern_line_to(mesh, center.x + radius * cos(a0), center.y + radius * sin(a0))
            cairo_mesh_pattern_line_to(mesh, center.x + radius * cos(a1), center.y + radius * sin(a1))
            // The triangle's fourth corner is the centre again: corners 0 and 1 take the colour
            // at t0, 2 and 3 the colour at t1, so colour varies with the angle only.
            corner(0, t0)
            corner(1, t0)
            corner(2, t1)
            corner(3, t1)
            cairo_mesh_pattern_end_patch(mesh)
        }
        paint(pattern: mesh)
    }

    private func paint(gradient: OpaquePointer, stops: [GradientStop]) {
        for stop in premultipliedStops(stops) {
            let c = stop.color
            cairo_pattern_add_color_stop_rgba(gradient, stop.location, c.red, c.green, c.blue, c.alpha)
        }
        cairo_pattern_set_extend(gradient, CAIRO_EXTEND_PAD)
        paint(pattern: gradient)
    }

    /// Paints the clip with `pattern`, times the global alpha, and releases the pattern.
    private func paint(pattern: OpaquePointer) {
        preservingCurrentPath {
            cairo_save(cr)
            cairo_set_source(cr, pattern)
            cairo_paint_with_alpha(cr, alpha)
            cairo_restore(cr)
        }
        cairo_pattern_destroy(pattern)
    }

    /// The stops in sRGB, sorted, with extra stops between two of different alpha so that
    /// whatever interpolation cairo (or a PDF viewer) uses, the colours follow premultiplied
    /// interpolation to well under one 8-bit step.
    private func premultipliedStops(_ stops: [GradientStop]) -> [GradientStop] {
        let sorted = stops.enumerated()
            .sorted { $0.element.location != $1.element.location ? $0.element.location < $1.element.location : $0.offset < $1.offset }
            .map { GradientStop(location: $0.element.location, color: $0.element.color.converted(to: .sRGB)) }
        guard let last = sorted.last else { return [] }
        var result: [GradientStop] = []
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            result.append(a)
            guard a.color.alpha != b.color.alpha, b.location > a.location else { continue }
            for step in 1..<16 {
                let f = Double(step) / 16
                result.append(GradientStop(location: a.location + f * (b.location - a.location), color: Self.mix(a.color, b.color, f)))
            }
        }
        result.append(last)
        return result
    }

    /// `a` to `b` by `f`, interpolated premultiplied and returned straight.
    private static func mix(_ a: Color, _ b: Color, _ f: Double) -> Color {
        let alpha = a.alpha + (b.alpha - a.alpha) * f
        guard alpha > 0 else { return Color(red: 0, green: 0, blue: 0, alpha: 0) }
        func channel(_ x: Double, _ y: Double) -> Double { (x * a.alpha + (y * b.alpha - x * a.alpha) * f) / alpha }
        return Color(red: channel(a.red, b.red), green: channel(a.green, b.green), blue: channel(a.blue, b.blue), alpha: alpha)
    }

    /// The colour at `t` of sorted sRGB stops, the end colours extending.
    private static func color(at t: Double, in stops: [GradientStop]) -> Color {
        guard var result = stops.first?.color else { return Color(red: 0, green: 0, blue: 0, alpha: 0) }
        for (a, b) in zip(stops, stops.dropFirst()) where t > a.location {
            let f = b.location > a.location ? min(1, (t - a.location) / (b.location - a.location)) : 1
            result = mix(a.color, b.color, f)
        }
        return result
    }

    // MARK: - Images

    /// Draws the part `source` (in the image's pixels) of `image` scaled to fill `rect`, its first
    /// row at `rect.minY`, through the CTM and clip and multiplied by the global alpha. Pixels
    /// outside `source` are never sampled, so a part's edges do not bleed in its neighbours. The
    /// current path is left alone.
    public func draw(_ image: Image, from source: Rect, in rect: Rect, interpolation: ImageInterpolation = .linear) {
        let whole = source.intersection(Rect(x: 0, y: 0, width: Double(image.width), height: Double(image.height)))
        guard !isDrawingSuppressed, !whole.isNull, whole.width > 0, whole.height > 0, rect.width > 0, rect.height > 0 else { return }
        // From the image's pixels to user space.
        let (a, d) = (rect.width / whole.width, rect.height / whole.height)
        let placement = AffineTransform2D(a: a, b: 0, c: 0, d: d, tx: rect.minX - whole.minX * a, ty: rect.minY - whole.minY * d)
        // A placement cairo would reject (degenerate or non-finite) draws nothing visible anyway.
        guard placement.isInvertibleByCairo, placement.concatenating(ctm).isInvertibleByCairo else { return }
        // Placed 2²⁴ device pixels away or more (a window at a client's extreme position captured
        // at scale 2), or magnified as far (a viewport stretching a pixel to 2²⁴ points), an image
        // is one cairo fails to compose, leaving the target in an error state: only the pixels
        // that land on the target are drawn, with two more around them for filtering.
        let toDevice = placement.concatenating(ctm)
        let onTarget = Rect(x: 0, y: 0, width: Double(width), height: Double(height)).applying(toDevice.inverted()).intersection(whole)
        guard !onTarget.isNull, onTarget.width > 0, onTarget.height > 0 else { return }
        let part = onTarget.insetBy(dx: -2, dy: -2).intersection(whole)
        let extent = part.applying(toDevice)
        guard max(extent.width, extent.height) <= Self.largestImageExtent else {
            // A pixel covers more than the target: its colour, where it lands.
            let pixel = image.pixel(x: min(Int(onTarget.midX), image.width - 1), y: min(Int(onTarget.midY), image.height - 1))
            let alpha = Double(pixel.alpha) / 255
            saveGState()
            setFillColor(pixel.alpha == 0 ? Color(white: 0, alpha: 0) : Color(
                red: Double(pixel.red) / 255 / alpha, green: Double(pixel.green) / 255 / alpha, blue: Double(pixel.blue) / 255 / alpha, alpha: alpha))
            fill(onTarget.applying(placement))
            restoreGState()
            return
        }
        // Creating a surface over existing pixels fails only when out of memory, where cairo
        // would draw nothing either.
        guard let wholeSurface = try? image.makeCairoSurface() else { return }
        let rect = part.applying(placement)
        let placed = AffineTransform2D(a: placement.a, b: 0, c: 0, d: placement.d, tx: rect.minX, ty: rect.minY)
        preservingCurrentPath {
            wholeSurface.withHandle { surface in
                let sub = cairo_surface_create_for_rectangle(surface, part.minX, part.minY, part.width, part.height)!
                defer { cairo_surface_destroy(sub) }
                // The restore also drops the cairo context's own reference to the pixels, which
                // belong to `image` and must not be reachable once `wholeSurface` is gone.
                cairo_save(cr)
                addPath(Path(rect: rect))
                cairo_clip(cr)
                var matrix = cairo_matrix_t(xx: placed.a, yx: 0, xy: 0, yy: placed.d, x0: placed.tx, y0: placed.ty)
                cairo_transform(cr, &matrix)
                cairo_set_source_surface(cr, sub, 0, 0)
                // Padding rather than transparency outside the image keeps its edges crisp.
                cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
                cairo_pattern_set_filter(
                    cairo_get_source(cr), interpolation == .nearest ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_BILINEAR)
                cairo_paint_with_alpha(cr, alpha)
                cairo_restore(cr)
                // A document keeps its own reference to the part until the page is written.
                cairo_surface_finish(sub)
            }
        }
    }

    /// The most device pixels an image's drawn part may span (cairo composes up to 2²⁴).
    static let largestImageExtent = Double(1 << 22)

    // MARK: - Shadows

    /// Pixels per point of the bitmap a document's shadows are drawn into (blurs have no vector form).
    public static let documentShadowResolution = 3.0

    /// Draws the shadow of what `shape` draws into the context it is given: its alpha only, moved by
    /// `offset` and blurred by a Gaussian of standard deviation `blur` (both in user space), in
    /// `color` times the global alpha. `bounds` must hold everything `shape` draws (user space).
    /// The shadow is a bitmap at the target's pixels, or at `documentShadowResolution` in a document.
    public func drawShadow(color: Color, offset: Size, blur: Double, bounds: Rect, of shape: (GraphicsContext) -> Void) {
        let c = color.converted(to: .sRGB)
        guard !isDrawingSuppressed, c.alpha * alpha > 0, !bounds.isNull, bounds.width > 0, bounds.height > 0 else { return }
        let ctm = self.ctm
        let userScale = abs(ctm.determinant).squareRoot()
        let reach = 3 * max(blur, 0)
        let shadowRect = bounds.offsetBy(dx: offset.width, dy: offset.height).insetBy(dx: -reach, dy: -reach)
        let device = shadowRect.applying(ctm).intersection(Rect(x: 0, y: 0, width: Double(width), height: Double(height)))
        guard !device.isNull, device.width > 0, device.height > 0 else { return }
        let resolution = isDrawingToScreen ? 1 : Self.documentShadowResolution
        let largest = Double(Image.maximumDimension - 2)
        let k = min(resolution, largest / device.width, largest / device.height)
        let x0 = (device.minX * k).rounded(.down), y0 = (device.minY * k).rounded(.down)
        let w = Int((device.maxX * k).rounded(.up) - x0), h = Int((device.maxY * k).rounded(.up) - y0)
        guard w > 0, h > 0, let offscreen = try? GraphicsContext(width: w, height: h) else { return }
        offscreen.translateBy(x: -x0, y: -y0)
        offscreen.scaleBy(x: k, y: k)
        offscreen.concatenate(ctm)
        offscreen.translateBy(x: offset.width, y: offset.height)
        shape(offscreen)
        let coverage = offscreen.makeImage().gaussianBlurredAlpha(sigma: max(blur, 0) * userScale * k)
        let shadow = Image.filled(width: w, height: h, coverage: coverage, color: c)
        // Drawn in device space (the clip stays where it is); cairo's save and restore put the
        // CTM back, and nothing else in this class's state changes meanwhile.
        cairo_save(cr)
        cairo_identity_matrix(cr)
        draw(shadow, from: Rect(x: 0, y: 0, width: Double(w), height: Double(h)),
             in: Rect(x: x0 / k, y: y0 / k, width: Double(w) / k, height: Double(h) / k))
        cairo_restore(cr)
    }
}

extension Image {
    /// A copy whose red, green and blue are multiplied by `factors` (each clamped to 0…1): a
    /// replicator instance's or a particle's colour.
    public func multiplyingColors(by factors: (red: Double, green: Double, blue: Double)) -> Image {
        let f = [factors.blue, factors.green, factors.red].map { Float(min(max($0, 0), 1)) }
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        let opaque = pixelFormat == .xrgb8888
        withUnsafeBytes { source in
            for y in 0..<height {
                for x in 0..<width {
                    let s = y * bytesPerRow + x * 4, d = (y * width + x) * 4
                    for c in 0..<3 { bytes[d + c] = UInt8((Float(source[s + c]) * f[c]).rounded()) }
                    bytes[d + 3] = opaque ? 255 : source[s + 3]
                }
            }
        }
        return try! bytes.withUnsafeBytes {
            try Image(width: width, height: height, pixelFormat: .argb8888, bytesPerRow: width * 4, bytes: $0)
        }
    }

    /// An image of `width` × `height` pixels whose pixel (x, y) is this image seen through `map`:
    /// the average of `samples` × `samples` bilinear samples spread over the pixel, each at the
    /// point `map` gives for it (in this image's pixel coordinates, pixel centres at half units).
    /// Outside this image counts as transparent, so edges stay antialiased; a nil point samples
    /// transparency. A projective map (a layer under perspective) turns this into the image as the
    /// viewer sees it.
    public func resampled(width: Int, height: Int, samples: Int = 1, map: (Double, Double) -> (Double, Double)?) -> Image {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        let (sourceWidth, sourceHeight, stride) = (self.width, self.height, bytesPerRow)
        let opaque = pixelFormat == .xrgb8888
        let n = max(samples, 1)
        let offsets = (0..<n).map { (Double($0) + 0.5) / Double(n) }
        withUnsafeBytes { source in
            func texel(_ x: Int, _ y: Int, _ c: Int) -> Double {
                guard x >= 0, y >= 0, x < sourceWidth, y < sourceHeight else { return 0 }
                if c == 3 && opaque { return 255 }
                return Double(source[y * stride + x * 4 + c])
            }
            var sum = [0.0, 0.0, 0.0, 0.0]
            for y in 0..<height {
                for x in 0..<width {
                    sum = [0, 0, 0, 0]
                    for sy in offsets {
                        for sx in offsets {
                            guard let (u, v) = map(Double(x) + sx, Double(y) + sy), u.isFinite, v.isFinite,
                                u > -1, v > -1, u < Double(sourceWidth) + 1, v < Double(sourceHeight) + 1
                            else { continue }
                            let fx = u - 0.5, fy = v - 0.5
                            let ix = Int(fx.rounded(.down)), iy = Int(fy.rounded(.down))
                            let ax = fx - Double(ix), ay = fy - Double(iy)
                            for c in 0..<4 {
                                let top = texel(ix, iy, c) * (1 - ax) + texel(ix + 1, iy, c) * ax
                                let bottom = texel(ix, iy + 1, c) * (1 - ax) + texel(ix + 1, iy + 1, c) * ax
                                sum[c] += top * (1 - ay) + bottom * ay
                            }
                        }
                    }
                    let d = (y * width + x) * 4
                    for c in 0..<4 {
                        bytes[d + c] = UInt8(min(255, max(0, (sum[c] / Double(n * n)).rounded())))
                    }
                }
            }
        }
        return try! bytes.withUnsafeBytes {
            try Image(width: width, height: height, pixelFormat: .argb8888, bytesPerRow: width * 4, bytes: $0)
        }
    }

    /// `color` (straight sRGB) wherever this image has alpha, blurred by a separable Gaussian of
    /// `sigma` pixels, taps out to ⌈3σ⌉ with weights normalised by their sum (edges treated as
    /// transparent): a shadow's mask, premultiplied.
    public func gaussianBlurredMask(sigma: Double, color: Color = .white) -> Image {
        Image.filled(width: width, height: height, coverage: gaussianBlurredAlpha(sigma: sigma), color: color)
    }

    /// The alpha channel as coverage in 0…1, blurred by a separable Gaussian of `sigma` pixels
    /// (edges treated as transparent); unblurred when `sigma` is under a hundredth of a pixel.
    func gaussianBlurredAlpha(sigma: Double) -> [Float] {
        var alpha = [Float](repeating: 0, count: width * height)
        withUnsafeBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    alpha[y * width + x] = Float(bytes[y * bytesPerRow + x * 4 + 3]) / 255
                }
            }
        }
        guard sigma >= 0.01 else { return alpha }
        let radius = Int((3 * sigma).rounded(.up))
        var kernel: [Float] = (-radius...radius).map { (i: Int) -> Float in
            let x = Double(i)
            return Float(exp(-x * x / (2 * sigma * sigma)))
        }
        let sum = kernel.reduce(0, +)
        kernel = kernel.map { $0 / sum }
        func pass(_ source: [Float], count: Int, lines: Int, stride: Int, step: Int) -> [Float] {
            var result = [Float](repeating: 0, count: source.count)
            source.withUnsafeBufferPointer { src in
                result.withUnsafeMutableBufferPointer { dst in
                    for line in 0..<lines {
                        let base = line * stride
                        for i in 0..<count {
                            var total: Float = 0
                            let lo = max(-radius, -i), hi = min(radius, count - 1 - i)
                            var j = lo
                            while j <= hi {
                                total += src[base + (i + j) * step] * kernel[j + radius]
                                j += 1
                            }
                            dst[base + i * step] = total
                        }
                    }
                }
            }
            return result
        }
        let horizontal = pass(alpha, count: width, lines: height, stride: width, step: 1)
        return pass(horizontal, count: height, lines: width, stride: 1, step: width)
    }

    /// An image of `color` (straight sRGB, components in 0…1) whose alpha is scaled by
    /// `coverage`, one value per pixel row by row; `width` and `height` must be valid.
    static func filled(width: Int, height: Int, coverage: [Float], color: Color) -> Image {
        // Little-endian ARGB8888 words: blue, green, red, alpha in memory.
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        func byte(_ v: Double) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
        for i in 0..<(width * height) {
            let a = Double(min(max(coverage[i], 0), 1)) * color.alpha
            bytes[i * 4] = byte(color.blue * a)
            bytes[i * 4 + 1] = byte(color.green * a)
            bytes[i * 4 + 2] = byte(color.red * a)
            bytes[i * 4 + 3] = byte(a)
        }
        return try! bytes.withUnsafeBytes {
            try Image(width: width, height: height, pixelFormat: .argb8888, bytesPerRow: width * 4, bytes: $0)
        }
    }
}
