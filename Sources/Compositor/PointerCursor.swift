import DisplayBackend
import Graphics
import LayerKit
import SystemCalls
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
/// On an output with a hardware cursor the cursor goes there when it can: the arrow, and a
/// client's cursor surface that is one plain buffer the plane takes (no subsurfaces, viewport or
/// buffer transform). Then pointer motion and the client's cursor commits change no layer (no
/// damage, no frame); the surface's frame callbacks follow the plane's update to the screen.
/// Drag icons, and client cursors the plane refuses, are drawn into the frames.
///
/// With several outputs each has one, and only the one of the output the pointer is on
/// (`holdsPointer`) shows anything; crossing to another output hands the image, the drag icon and
/// the frame callbacks waiting for the plane over to its cursor.
final class PointerCursor {
    /// Above every window (windows are the root's sublayers at zPosition 0).
    let overlay = Layer()
    /// The built-in arrow, shown when no client cursor is set.
    private let arrow = Layer()
    /// Holds a client's cursor surface while it is drawn into the frames; hidden while the cursor
    /// is (the surface's own layers follow its commits).
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
    /// Whether the pointer is on this output: elsewhere nothing is drawn here.
    private(set) var holdsPointer = false
    /// The output's points per pixel.
    private let scale: Double
    /// The output's cursor plane, if it has one (nil once its display is gone).
    private var hardware: (any HardwareCursorOutput)?
    /// Whether a mirror shows this output. The mirror redraws this output's frames, which lack
    /// what the plane shows, so the cursor is drawn into them instead.
    var isMirrored = false {
        didSet {
            guard isMirrored != oldValue else { return }
            if isMirrored, let hardware {
                if case .nothing = onHardware {} else { _ = hardware.showOnPlane(nil, hotspotX: 0, hotspotY: 0) }
                onHardware = .nothing
            }
            if case .client = image { clientNeedsPlacing = true }
            update()
        }
    }
    /// The cursor plane the cursor may use now.
    private var plane: (any HardwareCursorOutput)? { isMirrored ? nil : hardware }
    /// The arrow's pixels and its hotspot in them, for the hardware cursor.
    /// Drawn when first shown, captured or handed to a cursor plane: a kiosk without a pointer
    /// never shows it, and drawing it would be the only drawing an idle compositor does.
    private lazy var arrowImage: Graphics.Image? = Self.drawArrow(scale: scale)
    private let arrowHotspotPixels: (x: Int, y: Int)
    /// What the hardware cursor shows now.
    private enum OnHardware {
        case nothing
        case arrow
        case client(SurfaceNode)
    }
    private var onHardware = OnHardware.nothing
    /// Whether the client's cursor must be placed again (`placeClientCursor`): it was set, its
    /// surface committed, its hotspot moved, or it was shown again.
    private(set) var clientNeedsPlacing = false
    private var wasVisible = false
    /// Frame callbacks of the client's cursor surface taken with the images given to the plane;
    /// sent once the display shows them.
    private let planeCallbacks = FrameCallbacks()

    /// Whether the hardware cursor shows the arrow now.
    var isOnHardware: Bool {
        if case .arrow = onHardware { true } else { false }
    }

    /// The client's cursor surface the hardware cursor shows now.
    var surfaceOnHardware: Surface? {
        if case .client(let node) = onHardware { node.surface } else { nil }
    }

    /// The arrow's tip, in its own points.
    static let arrowHotspot = Point(x: 1, y: 1)

    init(scale: Double, hardware: (any HardwareCursorOutput)? = nil) {
        self.scale = scale
        self.hardware = hardware
        overlay.name = "cursor"
        overlay.anchorPoint = .zero
        overlay.zPosition = 1_000_000
        arrow.name = "arrow"
        arrow.anchorPoint = .zero
        arrow.bounds = Rect(x: 0, y: 0, width: 13, height: 21)
        arrow.contentsScale = scale
        arrowHotspotPixels = (Int((Self.arrowHotspot.x * scale).rounded()), Int((Self.arrowHotspot.y * scale).rounded()))
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

    /// Whether frames show anything of the pointer: a cursor drawn in them (not on the cursor
    /// plane) or a drag icon.
    var drawsInFrames: Bool { dragIcon != nil || isInFrames }

    /// Whether the cursor image (not a drag icon) is drawn into the frames now, rather than on
    /// the cursor plane: a capture without the cursor must leave it out of the picture.
    var isInFrames: Bool {
        guard isShown else { return false }
        if case .nothing = onHardware { return true }
        return false
    }

    /// The layers that draw the cursor image into the frames (drag icons are not the cursor).
    var imageLayerIDs: [LayerID] { [arrow.id, clientHolder.id] }

    /// The cursor as a capture draws it: its image at the output's pixels, the hotspot in them,
    /// and the pointer's position in the output's points; nil while no cursor is shown here, or
    /// a client's cursor surface is more than one plain buffer.
    var captureImage: (image: Graphics.Image, hotspotX: Int, hotspotY: Int, position: Point)? {
        guard isShown else { return nil }
        switch image {
        case .arrow:
            return arrowImage.map { ($0, arrowHotspotPixels.x, arrowHotspotPixels.y, position) }
        case .client(let node, let hotspot):
            guard let shown = Self.planeImage(of: node, hotspot: hotspot, scale: scale), let image = shown.image else { return nil }
            return (image, shown.hotspotX, shown.hotspotY, position)
        case .hidden:
            return nil
        }
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

    /// The pointer is on this output, at `point` (its logical points), coming from no output or
    /// put there by a change of the outputs (not moved by the user: a hidden cursor stays hidden).
    func holdPointer(at point: Point) {
        holdsPointer = true
        position = point
        update()
    }

    /// The pointer moved on to `other`'s output (nil: to no output at all), at `point` there: the
    /// image, the drag icon and the callbacks waiting for this plane go with it, and this output
    /// shows nothing any more (its plane is emptied).
    func handOver(to other: PointerCursor?, at point: Point) {
        let (shown, icon) = (image, dragIcon)
        let callbacks = FrameCallbacks()
        planeCallbacks.move(to: callbacks)
        holdsPointer = false
        // The surfaces leave this overlay before the other one takes them.
        show(.arrow)
        setDragIcon(nil)
        guard let other else {
            // Nowhere to show them: the callbacks are answered, and the client draws again.
            callbacks.done(UInt32(truncatingIfNeeded: monotonicNanoseconds() / 1_000_000))
            return
        }
        other.holdsPointer = true
        other.pointerInUse = pointerInUse
        other.position = point
        callbacks.move(to: other.planeCallbacks)
        other.setDragIcon(icon)
        other.show(shown)
    }

    /// The output's display went away: its cursor plane is not touched any more.
    func detachHardware() {
        hardware = nil
        onHardware = .nothing
    }

    /// The output's cursor plane is gone for good (the driver refused it): the cursor is drawn
    /// into frames from now on.
    func hardwareLost() {
        detachHardware()
        if case .client = image { clientNeedsPlacing = true }
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
        if case .client = new { clientNeedsPlacing = true }
        update()
    }

    /// The surface `node` committed: a client cursor shows the commit once placed again.
    func surfaceCommitted(_ node: SurfaceNode) {
        if case .client(let cursor, _) = image, cursor === node { clientNeedsPlacing = true }
    }

    /// Puts the client's cursor on the hardware cursor when its surface fits there, or into the
    /// frames. Called once the commits of an event loop turn are applied, so that it sees the
    /// surface's new contents with its new hotspot (an offset commit reports the hotspot first).
    func placeClientCursor() {
        guard clientNeedsPlacing else { return }
        clientNeedsPlacing = false
        // A hidden cursor is placed when shown again (`update` asks for it).
        guard case .client(let node, let hotspot) = image, cursorVisible else { return }
        var onPlane = false
        if let hardware = plane, let planeImage = Self.planeImage(of: node, hotspot: hotspot, scale: scale) {
            onPlane = hardware.showOnPlane(planeImage.image, hotspotX: planeImage.hotspotX, hotspotY: planeImage.hotspotY)
        } else if case .nothing = onHardware {} else {
            _ = hardware?.showOnPlane(nil, hotspotX: 0, hotspotY: 0)
        }
        if onPlane {
            onHardware = .client(node)
            node.surface.moveFrameCallbacks(to: planeCallbacks)
            // Out of the layer tree, its commits are no frame's damage.
            node.container.removeFromSuperlayer()
        } else {
            onHardware = .nothing
            if node.container.superlayer !== clientHolder { clientHolder.addSublayer(node.container) }
        }
        update()
    }

    /// The image a client's cursor surface shows on a cursor plane, at the output's pixels, and
    /// its hotspot (surface points) in them: a nil image for a surface without a buffer (it shows
    /// nothing), nil when the surface is more than one plain buffer.
    static func planeImage(of node: SurfaceNode, hotspot: Point, scale: Double) -> (image: Graphics.Image?, hotspotX: Int, hotspotY: Int)? {
        let state = node.surface.current
        guard node.surface.stack.count == 1, state.bufferTransform == .normal,
              state.viewportSource == nil, state.viewportDestination == nil else { return nil }
        let hotspotX = Int((hotspot.x * scale).rounded()), hotspotY = Int((hotspot.y * scale).rounded())
        guard state.buffer != nil else { return (nil, hotspotX, hotspotY) }
        guard let contents = node.bufferImage() else { return nil }
        if Double(state.bufferScale) == scale { return (contents, hotspotX, hotspotY) }
        // Another scale than the output's: drawn again at the output's pixels, as a frame would.
        let size = state.size
        let width = Int((Double(size.width) * scale).rounded()), height = Int((Double(size.height) * scale).rounded())
        guard width > 0, height > 0, let context = try? GraphicsContext(width: width, height: height) else { return nil }
        context.draw(contents, in: Rect(x: 0, y: 0, width: Double(width), height: Double(height)))
        return (context.makeImage(), hotspotX, hotspotY)
    }

    /// The display showed the cursor plane's update: the frame callbacks of the images given to
    /// the plane are answered.
    func answerPlaneCallbacks(milliseconds: UInt32) {
        planeCallbacks.done(milliseconds)
    }

    /// The display showed a frame: the frame callbacks left over by a client cursor that is no
    /// longer on the plane go to `list`, answered with the frame's.
    func moveLeftoverCallbacks(to list: FrameCallbacks) {
        if surfaceOnHardware == nil { planeCallbacks.move(to: list) }
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

    /// The client surfaces the overlay draws into the frames now.
    var shownSurfaces: [Surface] {
        var result: [Surface] = []
        if case .client(let node, _) = image, cursorVisible, node.container.superlayer === clientHolder { result.append(node.surface) }
        if let dragIcon { result.append(dragIcon.surface) }
        return result
    }

    /// A surface the overlay shows is going away.
    func forget(_ node: SurfaceNode) {
        if case .client(let cursor, _) = image, cursor === node { show(.hidden) }
        if dragIcon === node { setDragIcon(nil) }
    }

    private var cursorVisible: Bool { visibility != .hidden && pointerInUse && holdsPointer }

    private func update() {
        if cursorVisible != wasVisible {
            wasVisible = cursorVisible
            if case .client = image { clientNeedsPlacing = true }
        }
        updateHardware()
        arrow.isHidden = true
        clientHolder.isHidden = true
        switch image {
        case .arrow:
            // Left where it was while the hardware shows the arrow: a moved layer is damage.
            guard !isOnHardware else { break }
            arrow.isHidden = !cursorVisible
            if cursorVisible, arrow.contents == nil { arrow.contents = arrowImage }
            arrow.position = Point(x: position.x - Self.arrowHotspot.x, y: position.y - Self.arrowHotspot.y)
        case .client(let node, let hotspot):
            // Not in the holder while on the hardware cursor, or until first placed.
            guard node.container.superlayer === clientHolder else { break }
            clientHolder.isHidden = !cursorVisible
            node.container.position = Point(x: position.x - hotspot.x, y: position.y - hotspot.y)
        case .hidden:
            break
        }
        // A drag icon's origin is the pointer's position (wl_data_device.start_drag).
        dragIcon?.container.position = position
    }

    /// Hands the shown arrow to the hardware cursor and moves what it shows; a client's cursor is
    /// handed over by `placeClientCursor`, and a hidden cursor leaves the hardware empty.
    private func updateHardware() {
        guard let hardware = plane else { return }
        if case .arrow = image, cursorVisible, arrowImage != nil {
            if !isOnHardware {
                onHardware = hardware.showOnPlane(arrowImage, hotspotX: arrowHotspotPixels.x, hotspotY: arrowHotspotPixels.y) ? .arrow : .nothing
            }
            if isOnHardware { hardware.moveOnPlane(to: position) }
        } else if case .client(let node, _) = image, cursorVisible {
            // Until it is placed, the hardware keeps what it shows (replaced, not blinked off).
            if surfaceOnHardware === node.surface { hardware.moveOnPlane(to: position) }
        } else if case .nothing = onHardware {
        } else {
            _ = hardware.showOnPlane(nil, hotspotX: 0, hotspotY: 0)
            onHardware = .nothing
        }
    }
}

extension HardwareCursorOutput {
    /// Commits `image` to the cursor plane (nil empties it): whether the plane shows it.
    fileprivate func showOnPlane(_ image: Image?, hotspotX: Int, hotspotY: Int) -> Bool {
        (try? commit(OutputState(cursor: .image(image, hotspotX: hotspotX, hotspotY: hotspotY)))) == true
    }

    fileprivate func moveOnPlane(to point: Point) {
        _ = try? commit(OutputState(cursor: .position(point)))
    }
}
