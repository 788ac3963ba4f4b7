import BoardConfig
import LayerKit

/// The fit policy (`fit` in the board's `[app]`): how a window whose size does not match the
/// output is shown. It is applied through the window's layer transform, a uniform scale about the
/// layer's origin, so that hit testing, and with it the pointer and touch positions a client
/// receives, goes through the same transform as the pixels.
struct WindowFitting: Equatable {
    /// The window's scale on the output.
    var scale: Double
    /// Where the window's top-left corner is shown, in output points.
    var origin: Point

    static let identity = WindowFitting(scale: 1, origin: .zero)

    /// How a window of `size` points is shown in `area` (output points) by `fit`: centred at its
    /// size, or scaled to fit inside (`scale`) or to cover (`fill`) the area, keeping its aspect
    /// ratio, and centred. Origins are whole points, so that unscaled edges stay sharp.
    init(size: Size, area: Rect, fit: WindowFit) {
        guard size.width > 0, size.height > 0 else {
            self.init(scale: 1, origin: area.origin)
            return
        }
        let across = area.width / size.width, down = area.height / size.height
        let scale: Double
        switch fit {
        case .center: scale = 1
        case .scale: scale = min(across, down)
        case .fill: scale = max(across, down)
        }
        self.init(scale: scale, origin: Point(
            x: area.minX + ((area.width - size.width * scale) / 2).rounded(.down),
            y: area.minY + ((area.height - size.height * scale) / 2).rounded(.down)))
    }

    init(scale: Double, origin: Point) {
        self.scale = scale
        self.origin = origin
    }

    /// Puts `layer` (anchored at its origin) so that its point `point` is at `origin`, scaled.
    func apply(to layer: Layer, placing point: Point) {
        layer.transform = scale == 1 ? .identity : Transform3D(scaleX: scale, y: scale)
        layer.position = Point(x: origin.x - point.x * scale, y: origin.y - point.y * scale)
    }
}
