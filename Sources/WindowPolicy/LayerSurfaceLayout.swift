import LayerKit
import WaylandServer

/// Where layer-shell surfaces go on an output (in its points), as wlroots' compositors place
/// them: a size of 0 spans the space between the anchored opposite edges less their margins; a
/// surface anchored to one edge of a pair lies against it, its margin away; one anchored to both
/// edges or neither, with a size of its own, is centred between them (margins ignored).
enum LayerSurfaceLayout {
    /// The rectangle a surface with `state` takes in `bounds` (the output, or what other
    /// surfaces' exclusive zones leave of it).
    static func frame(of state: LayerSurface.State, in bounds: Rect) -> Rect {
        let margins = state.margins
        let (x, width) = place(
            size: state.width, from: bounds.minX, length: bounds.width,
            leading: state.anchor.contains(.left), trailing: state.anchor.contains(.right),
            leadingMargin: Double(margins.left), trailingMargin: Double(margins.right))
        let (y, height) = place(
            size: state.height, from: bounds.minY, length: bounds.height,
            leading: state.anchor.contains(.top), trailing: state.anchor.contains(.bottom),
            leadingMargin: Double(margins.top), trailingMargin: Double(margins.bottom))
        return Rect(x: x, y: y, width: width, height: height)
    }

    /// One axis: the surface's position and length in the span from `start` of `length`.
    private static func place(
        size: UInt32, from start: Double, length: Double, leading: Bool, trailing: Bool,
        leadingMargin: Double, trailingMargin: Double
    ) -> (Double, Double) {
        guard size != 0 else {
            // Only allowed when both edges are anchored (the commit checks it).
            return (start + leadingMargin, max(0, length - leadingMargin - trailingMargin))
        }
        let extent = Double(size)
        switch (leading, trailing) {
        case (true, false): return (start + leadingMargin, extent)
        case (false, true): return (start + length - extent - trailingMargin, extent)
        default: return (start + ((length - extent) / 2).rounded(.down), extent)
        }
    }

    /// What is left of `area` for windows and other surfaces once a surface with `state` takes
    /// its exclusive zone (its distance plus its margin from the edge it is anchored to). The
    /// zone counts only for a positive value and a surface anchored to one edge, or to one edge
    /// and both edges perpendicular to it; it takes at most all of the area.
    static func area(_ area: Rect, reservingZoneOf state: LayerSurface.State) -> Rect {
        guard state.exclusiveZone > 0 else { return area }
        let zone = Double(state.exclusiveZone)
        let margins = state.margins
        var result = area
        switch state.anchor {
        case [.top], [.top, .left, .right]:
            let taken = min(area.height, max(0, zone + Double(margins.top)))
            result.origin.y += taken
            result.size.height -= taken
        case [.bottom], [.bottom, .left, .right]:
            result.size.height -= min(area.height, max(0, zone + Double(margins.bottom)))
        case [.left], [.left, .top, .bottom]:
            let taken = min(area.width, max(0, zone + Double(margins.left)))
            result.origin.x += taken
            result.size.width -= taken
        case [.right], [.right, .top, .bottom]:
            result.size.width -= min(area.width, max(0, zone + Double(margins.right)))
        default:
            break
        }
        return result
    }
}
