import LayerKit
import Views
import WaylandServer

/// The view that hosts a window's layers (a toplevel's container, with its subsurfaces and
/// popups): hit testing reaches it through every transform and animation of the layer tree, and
/// it answers with the surface of its tree that takes input there, by each one's input region.
final class SurfaceView: View {
    let node: SurfaceNode
    private let lookup: (Surface) -> SurfaceNode?

    init(node: SurfaceNode, lookup: @escaping (Surface) -> SurfaceNode?) {
        self.node = node
        self.lookup = lookup
        super.init(hostingLayer: node.container)
    }

    override func point(inside point: Point) -> Bool {
        surface(at: point) != nil
    }

    /// The topmost surface of the window's tree that accepts input at `point` (in the window's
    /// coordinates), and the point in that surface's coordinates: popups above subsurfaces above
    /// the surface, each in its committed stacking order.
    func surface(at point: Point) -> (surface: Surface, local: Point)? {
        hit(node, at: point)
    }

    private func hit(_ node: SurfaceNode, at point: Point) -> (surface: Surface, local: Point)? {
        guard !node.container.isHidden else { return nil }
        for popup in node.popups.reversed() {
            if let found = hit(popup, at: node.container.convert(point, to: popup.container)) { return found }
        }
        for member in node.surface.stack.reversed() {
            if member === node.surface {
                let size = node.surface.current.size
                let inside = point.x >= 0 && point.y >= 0 && point.x < Double(size.width) && point.y < Double(size.height)
                if inside, !node.content.isHidden, node.surface.current.inputRegion.contains(x: point.x, y: point.y) {
                    return (node.surface, point)
                }
            } else if let child = lookup(member), let found = hit(child, at: node.container.convert(point, to: child.container)) {
                return found
            }
        }
        return nil
    }
}
