import DisplayBackend
import LayerKit
import WaylandServer

/// Where the compositor's input stands: the pointer's position in output points and the surface
/// each touch point went down on.
struct InputState {
    var pointer = Point.zero
    var touches: [Int32: Surface] = [:]
    /// Where the pointer was last reported in its focused surface's coordinates.
    var pointerLocal: Point?
    /// Buttons held down; while any is, the pointer stays with the surface it was pressed on
    /// (the implicit grab), wherever it moves.
    var pressedButtons: Set<UInt32> = []
    /// Buttons whose press dismissed popups: their release is not delivered either.
    var swallowedButtons: Set<UInt32> = []
}

extension Compositor {
    /// Milliseconds of CLOCK_MONOTONIC, the time base of input events.
    private var eventTime: UInt32 { UInt32(truncatingIfNeeded: monotonicNanoseconds() / 1_000_000) }

    /// The topmost surface that accepts input at `point` (output points) and the point in its coordinates.
    func surface(at point: Point) -> (surface: Surface, local: Point)? {
        guard let output = outputs.first else { return nil }
        func hit(_ node: SurfaceNode) -> (Surface, Point)? {
            guard !node.container.isHidden else { return nil }
            for popup in node.popups.reversed() {
                if let found = hit(popup) { return found }
            }
            for member in node.surface.stack.reversed() {
                if member === node.surface {
                    let local = output.root.convert(point, to: node.container)
                    let size = node.surface.current.size
                    let inside = local.x >= 0 && local.y >= 0 && local.x < Double(size.width) && local.y < Double(size.height)
                    if inside, !node.content.isHidden, node.surface.current.inputRegion.contains(x: local.x, y: local.y) {
                        return (node.surface, local)
                    }
                } else if let child = self.node(for: member), let found = hit(child) {
                    return found
                }
            }
            return nil
        }
        for window in output.windows.reversed() {
            if let found = hit(window) { return found }
        }
        return nil
    }

    /// The pointer moved to (`x`, `y`) in the output's logical points (kept on the output).
    public func pointerMoved(toX x: Double, y: Double) {
        guard let output = outputs.first else { return }
        let size = output.logicalSize
        input.pointer = Point(x: min(max(x, 0), size.width - 1), y: min(max(y, 0), size.height - 1))
        withoutAnimation { output.cursor.pointerMoved(to: input.pointer) }
        refocusPointer(motion: true)
    }

    /// Whether the pointer cursor is drawn now.
    public var isCursorShown: Bool { outputs.first?.cursor.isShown ?? false }

    /// When the cursor is drawn: after pointer motion (the default), or never.
    public var cursorVisibility: CursorVisibility {
        get { outputs.first?.cursor.visibility ?? .automatic }
        set { withoutAnimation { for output in outputs { output.cursor.visibility = newValue } } }
    }

    /// Runs `changes` in a transaction of its own with implicit animations off: the compositor's
    /// own layers (the cursor, client content) show each change at once.
    func withoutAnimation(_ changes: () -> Void) {
        Transaction.begin()
        Transaction.disableActions = true
        changes()
        Transaction.commit()
    }

    public func pointerMoved(byX dx: Double, y dy: Double) {
        pointerMoved(toX: input.pointer.x + dx, y: input.pointer.y + dy)
    }

    /// Sends enter/leave for what is under the pointer now (after a move or a change of the scene),
    /// or motion when the pointer moved or the surface under it moved, so that the client always
    /// knows where the pointer is on its surface.
    func refocusPointer(motion: Bool = false) {
        let target: (surface: Surface, local: Point)?
        if !input.pressedButtons.isEmpty, let grabbed = seat.pointerFocus, let node = node(for: grabbed), let output = outputs.first {
            target = (grabbed, output.root.convert(input.pointer, to: node.container))
        } else {
            target = surface(at: input.pointer)
        }
        if seat.pointerFocus?.client !== target?.surface.client, let output = outputs.first {
            // A client's cursor belongs to its surfaces: elsewhere Vitrine's arrow shows.
            withoutAnimation { output.cursor.resetToArrow() }
        }
        if let target {
            if seat.pointerFocus !== target.surface {
                seat.pointerEnter(target.surface, x: target.local.x, y: target.local.y)
            } else if motion || input.pointerLocal != target.local {
                seat.pointerMotion(time: eventTime, x: target.local.x, y: target.local.y)
            } else {
                return
            }
            input.pointerLocal = target.local
        } else if seat.pointerFocus != nil {
            seat.pointerLeave()
            input.pointerLocal = nil
        } else {
            return
        }
        seat.pointerFrame()
    }

    /// A button (evdev code, e.g. BTN_LEFT 0x110) changed; a press focuses the window under the pointer.
    public func pointerButton(_ button: UInt32, pressed: Bool) {
        if pressed, windowManager.pressEndsPopupGrab(on: surface(at: input.pointer)?.surface) {
            input.swallowedButtons.insert(button)
            refocusPointer()
            return
        }
        if !pressed, input.swallowedButtons.remove(button) != nil { return }
        if pressed, let target = surface(at: input.pointer) { focus(target.surface) }
        _ = seat.pointerButton(time: eventTime, button: button, pressed: pressed)
        seat.pointerFrame()
        if pressed {
            input.pressedButtons.insert(button)
        } else if input.pressedButtons.remove(button) != nil, input.pressedButtons.isEmpty {
            // The implicit grab ended: the pointer belongs to what is under it again.
            refocusPointer()
        }
    }

    public func touchDown(id: Int32, x: Double, y: Double) {
        if let output = outputs.first, output.cursor.isShown { withoutAnimation { output.cursor.touchBegan() } }
        let target = surface(at: Point(x: x, y: y))
        guard !windowManager.pressEndsPopupGrab(on: target?.surface), let target else { return }
        input.touches[id] = target.surface
        focus(target.surface)
        _ = seat.touchDown(target.surface, id: id, x: target.local.x, y: target.local.y, time: eventTime)
        seat.touchFrame()
    }

    public func touchMotion(id: Int32, x: Double, y: Double) {
        guard let surface = input.touches[id], let node = node(for: surface), let output = outputs.first else { return }
        let local = output.root.convert(Point(x: x, y: y), to: node.container)
        seat.touchMotion(id: id, x: local.x, y: local.y, time: eventTime)
        seat.touchFrame()
    }

    public func touchUp(id: Int32) {
        guard input.touches.removeValue(forKey: id) != nil else { return }
        _ = seat.touchUp(id: id, time: eventTime)
        seat.touchFrame()
    }

    /// Gives keyboard focus to the window that `surface` belongs to (its toplevel surface).
    func focus(_ surface: Surface) {
        var top = surface
        while let parent = top.subsurface?.parent { top = parent }
        guard seat.keyboardFocus !== top else { return }
        let previous = seat.keyboardFocus
        seat.keyboardEnter(top)
        windowManager.keyboardFocusChanged(from: previous, to: top)
    }

    /// A surface stopped being shown: input focus on it moves on.
    func surfaceLeftTheScreen(_ surface: Surface) {
        if seat.keyboardFocus === surface {
            seat.keyboardLeave()
            windowManager.keyboardFocusChanged(from: surface, to: nil)
            if let next = outputs.first?.windows.last(where: { $0.surface !== surface }) { focus(next.surface) }
        }
        var endedTouch = false
        // Touch points on the surface or on one of its subsurfaces end with it.
        func belongs(_ touched: Surface) -> Bool {
            var current: Surface? = touched
            while let member = current {
                if member === surface { return true }
                current = member.subsurface?.parent
            }
            return false
        }
        for (id, touched) in input.touches where belongs(touched) {
            input.touches[id] = nil
            seat.touchSurfaceGone(id: id, time: eventTime)
            endedTouch = true
        }
        if endedTouch { seat.touchFrame() }
        if seat.pointerFocus === surface { seat.pointerLeave() }
    }
}
