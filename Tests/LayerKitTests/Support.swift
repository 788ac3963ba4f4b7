import Testing
@testable import LayerKit

/// Compares with an absolute tolerance, for values that went through trigonometry or inversion.
func isClose(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance
}

func isClose(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    isClose(a.x, b.x, tolerance) && isClose(a.y, b.y, tolerance)
}

func isClose(_ a: Rect, _ b: Rect, _ tolerance: Double = 1e-9) -> Bool {
    isClose(a.origin, b.origin, tolerance) && isClose(a.size.width, b.size.width, tolerance)
        && isClose(a.size.height, b.size.height, tolerance)
}

func isClose(_ a: Transform3D, _ b: Transform3D, _ tolerance: Double = 1e-9) -> Bool {
    zip(a.rows.joined(), b.rows.joined()).allSatisfy { isClose($0, $1, tolerance) }
}

/// A layer with bounds (0, 0, w, h) at `position`.
@MainActor
func makeLayer(_ w: Double, _ h: Double, at position: Point = .zero, name: String? = nil) -> Layer {
    let layer = Layer()
    layer.bounds = Rect(x: 0, y: 0, width: w, height: h)
    layer.position = position
    layer.name = name
    return layer
}
