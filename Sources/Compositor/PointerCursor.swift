import DisplayBackend
import Graphics
import LayerKit
import WaylandServer

/// When the pointer cursor is drawn.
public enum CursorVisibility: Sendable {
    /// Shown once the pointer moves, hidden again when a touch begins: a touch kiosk with a mouse
    /// plugged in for service shows the cursor only while the mouse is used.
    case automatic
    /// Never drawn (touch-only kiosks); the pointer still works.
    case hidden
}

/// The pointer cursor drawn above everything on an output: Vitrine's own arrow, or the surface a
/// client set through wl_pointer.set_cursor, with its hotspot on the pointer's position. Drag
/// icons follow the pointer in the same overlay.
///
/// On an output with a hardware cursor that takes it, the arrow goes there instead: then pointer
/// motion changes no layer (no damage, no frame). Client cursors and drag icons are drawn.
final class PointerCursor {
    /// Above every window (windows are the root's sublayers at zPosition 0).
    let overlay = Layer()
    /// The built-in arrow, shown when no client cursor is set.
    private let arrow = Layer()
    /// Holds a client's cursor surface; hidden while the cursor is (the surface's own layers
    /// follow its commits).
    private let clientHolder = Layer()
    private enum Image {
        case arrow
        case client(SurfaceNode, hotspot: Point)
        case hidden
    }
    private var image = Image.arrow
    private var dragIcon: SurfaceNode?
    /// Whether the pointer moved since the last touch (for `.automatic`).
    private var pointerInUse = false
    var visibility: CursorVisibility = .automatic {
        didSet { update() }
    }
    private var position = Point.zero
    /// The output's cursor plane, if it has one.
    private let hardware: (any HardwareCursorOutput)?
    /// The arrow's pixels and its hotspot in them, for the hardware cursor.
    private let arrowImage: Graphics.Image?
    private let arrowHotspotPixels: (x: Int, y: Int)
    /// Whether the hardware cursor shows the arrow now.
    private(set) var isOnHardware = false

    /// The arrow's tip, in its own points.
    static let arrowHotspot = Point(x: 1, y: 1)

    init(scale: Double, hardware: (any HardwareCursorOutput)? = nil) {
        self.hardware = hardware
        overlay.name = "cursor"
        overlay.anchorPoint = .zero
        overlay.zPosition = 1_000_000
        arrow.name = "arrow"
        arrow.anchorPoint = .zero
        arrow.bounds = Rect(x: 0, y: 0, width: 13, height: 21)
        arrow.contentsScale = scale
        arrowImage = Self.drawArrow(scale: scale)
        arrowHotspotPixels = (Int((Self.arrowHotspot.x * scale).rounded()), Int((Self.arrowHotspot.y * scale).rounded()))
        arrow.contents = arrowImage
        clientHolder.anchorPoint = .zero
        overlay.addSublayer(arrow)
        overlay.addSublayer(clientHolder)
        update()
    }

    /// Black with a white outline, so that it shows on any content; drawn at the output's scale so
    /// that it stays sharp.
    private static func drawArrow(scale: Double) -> Graphics.Image? {
        guard let context = try? GraphicsContext(width: Int((13 * scale).rounded(.up)), height: Int((21 * scale).rounded(.up))) else {
            return nil
        }
        context.scaleBy(x: scale, y: scale)
        let outline = [(1.0, 1.0), (1, 17), (5, 13.5), (7.8, 19.8), (10.2, 18.8), (7.5, 12.6), (12.2, 12.6)]
        context.beginPath()
        context.move(to: Point(x: outline[0].0, y: outline[0].1))
        for (x, y) in outline.dropFirst() { context.addLine(to: Point(x: x, y: y)) }
        context.closePath()
        context.setFillColor(Color(white: 0))
        context.setStrokeColor(Color(white: 1))
        context.setLineWidth(1)
        context.setLineJoin(.miter)
        context.fillPath()
        context.move(to: Point(x: outline[0].0, y: outline[0].1))
        for (x, y) in outline.dropFirst() { context.addLine(to: Point(x: x, y: y)) }
        context.closePath()
        context.strokePath()
        return context.makeImage()
    }

    /// Whether a cursor image is drawn now.
    var isShown: Bool {
        guard cursorVisible else { return false }
        if case .hidden = image { return false }
        return true
    }

    func pointerMoved(to point: Point) {
        position = point
        pointerInUse = true
        update()
    }

    func touchBegan() {
        pointerInUse = false
        update()
    }

    /// A client's cursor surface, or nil when the client hid the cursor over its surface.
    func setClientCursor(_ node: SurfaceNode?, hotspot: Point) {
        show(node.map { .client($0, hotspot: hotspot) } ?? .hidden)
    }

    /// Back to Vitrine's arrow (the pointer left the client that set a cursor).
    func resetToArrow() {
        show(.arrow)
    }

    private func show(_ new: Image) {
        if case .client(let old, _) = image {
            if case .client(let node, _) = new, node === old {} else { old.container.removeFromSuperlayer() }
        }
        image = new
        if case .client(let node, _) = new, node.container.superlayer !== clientHolder {
            clientHolder.addSublayer(node.container)
        }
        update()
    }

    func setDragIcon(_ node: SurfaceNode?) {
        if let dragIcon, dragIcon !== node { dragIcon.container.removeFromSuperlayer() }
        dragIcon = node
        if let node, node.container.superlayer !== overlay { overlay.insertSublayer(node.container, at: 0) }
        update()
    }

    /// Whether `node` is shown by the cursor overlay (a cursor or drag icon, not a window).
    func owns(_ node: SurfaceNode) -> Bool {
        if case .client(let cursor, _) = image, cursor === node { return true }
        return dragIcon === node
    }

    /// The client surfaces the overlay draws now.
    var shownSurfaces: [Surface] {
        var result: [Surface] = []
        if case .client(let node, _) = image, cursorVisible { result.append(node.surface) }
        if let dragIcon { result.append(dragIcon.surface) }
        return result
    }

    /// A surface the overlay shows is going away.
    func forget(_ node: SurfaceNode) {
        if case .client(let cursor, _) = image, cursor === node { show(.hidden) }
        if dragIcon === node { setDragIcon(nil) }
    }

    private var cursorVisible: Bool { visibility != .hidden && pointerInUse }

    private func update() {
        updateHardware()
        arrow.isHidden = true
        clientHolder.isHidden = true
        switch image {
        case .arrow:
            // Left where it was while the hardware shows the arrow: a moved layer is damage.
            guard !isOnHardware else { break }
            arrow.isHidden = !cursorVisible
            arrow.position = Point(x: position.x - Self.arrowHotspot.x, y: position.y - Self.arrowHotspot.y)
        case .client(let node, let hotspot):
            clientHolder.isHidden = !cursorVisible
            node.container.position = Point(x: position.x - hotspot.x, y: position.y - hotspot.y)
        case .hidden:
            break
        }
        // A drag icon's origin is the pointer's position (wl_data_device.start_drag).
        dragIcon?.container.position = position
    }

    /// Hands the shown arrow to the hardware cursor, or takes it back (a client cursor, hidden).
    private func updateHardware() {
        guard let hardware else { return }
        var wantsArrow = false
        if case .arrow = image, cursorVisible, arrowImage != nil { wantsArrow = true }
        if wantsArrow {
            if !isOnHardware {
                isOnHardware = hardware.setCursor(arrowImage, hotspotX: arrowHotspotPixels.x, hotspotY: arrowHotspotPixels.y)
            }
            if isOnHardware { hardware.moveCursor(to: position) }
        } else if isOnHardware {
            _ = hardware.setCursor(nil, hotspotX: 0, hotspotY: 0)
            isOnHardware = false
        }
    }
}
