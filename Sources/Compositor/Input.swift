import DisplayBackend
import LayerKit
import SystemCalls
import WaylandServer

/// Where the compositor's input stands: the pointer's position in the outputs' layout (global
/// logical points, see Compositor+PointerLayout.swift) and the surface each touch point went down on.
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
    /// Touch points that went down on one of the compositor's views, with the output of that view.
    var viewTouches: [Int32: CompositorOutput] = [:]
}

extension Compositor {
    /// Milliseconds of CLOCK_MONOTONIC, the time base of input events.
    var eventTime: UInt32 { UInt32(truncatingIfNeeded: monotonicNanoseconds() / 1_000_000) }

    /// What is under a point of the layout, by one hit test of the views of the output there on
    /// what is on screen.
    enum InputTarget {
        /// One of the compositor's own views.
        case view
        /// The topmost surface that accepts input there, and the point in its coordinates.
        case surface(Surface, local: Point)
        case nothing
    }

    func inputTarget(at point: Point) -> InputTarget {
        guard let output = output(at: point), let (view, location) = output.rootView.hitTestAndLocate(output.localPoint(fromLayout: point)),
              view !== output.rootView else { return .nothing }
        guard let window = view as? SurfaceView else { return .view }
        return window.surface(at: location).map { .surface($0.surface, local: $0.local) } ?? .nothing
    }

    /// The topmost surface that accepts input at `point` (layout points) and the point in its coordinates.
    func surface(at point: Point) -> (surface: Surface, local: Point)? {
        guard case .surface(let surface, let local) = inputTarget(at: point) else { return nil }
        return (surface, local)
    }

    /// `point` (layout points) in `surface`'s coordinates, through what is on screen for its
    /// window on the output showing it.
    func localPoint(_ point: Point, in surface: Surface) -> Point? {
        guard let node = node(for: surface) else { return nil }
        for output in outputs {
            guard let window = output.windowView(containing: node) else { continue }
            return window.node.container.convert(window.shownLocation(ofRootPoint: output.localPoint(fromLayout: point)), to: node.container)
        }
        guard let output = output(at: point) ?? outputs.first else { return nil }
        return output.root.convert(output.localPoint(fromLayout: point), to: node.container)
    }

    /// The pointer moved to (`x`, `y`) in the outputs' layout (global logical points; the primary
    /// output's own points while it is at the layout's origin), kept on the outputs: off every
    /// output it goes to the closest point of one. `time` is the event's, in milliseconds of
    /// CLOCK_MONOTONIC (now when nil).
    public func pointerMoved(toX x: Double, y: Double, time: UInt32? = nil) {
        noteInput(isTouch: false)
        guard let (point, output) = closestLayoutPoint(to: Point(x: x, y: y)) else { return }
        withoutAnimation {
            // Onto another output: its cursor takes over (the cursor moves once either way).
            if pointerOutput !== output { placePointer(at: point, on: output) } else { input.pointer = point }
            output.cursor.pointerMoved(to: output.localPoint(fromLayout: point))
        }
        // The views of every output follow the pointer, so that hover leaves them when it moves on
        // (to them it is off their bounds), and a view holding the pointer follows its drag.
        for each in outputs {
            each.dispatcher.movePointer(to: each.localPoint(fromLayout: point), at: Self.seconds(time ?? eventTime))
        }
        refocusPointer(motion: true, time: time)
    }

    /// Whether the pointer cursor is drawn now.
    public var isCursorShown: Bool { outputs.contains { $0.cursor.isShown } }

    /// When the cursor is drawn: after pointer motion (the default), or never.
    public var cursorVisibility: CursorVisibility {
        get { outputs.first?.cursor.visibility ?? .automatic }
        set { withoutAnimation { for output in outputs { output.cursor.visibility = newValue } } }
    }

    /// Runs `changes` in a transaction of its own with implicit animations off: the compositor's
    /// own layers (the cursor, client content) show each change at once.
    func withoutAnimation(_ changes: () -> Void) {
        Transaction.begin(disablingActions: true)
        changes()
        Transaction.commit()
    }

    public func pointerMoved(byX dx: Double, y dy: Double) {
        pointerMoved(toX: input.pointer.x + dx, y: input.pointer.y + dy)
    }

    /// Scrolling over the surface under the pointer (`value120`: a wheel's steps, 120 per detent;
    /// `direction`: inverted for a device that scrolls naturally); a finger scroll's 0 ends it (axis_stop).
    public func pointerScrolled(
        axis: PointerAxis, value: Double, value120: Int32?, source: PointerAxisSource,
        direction: PointerAxisRelativeDirection = .identical, time: UInt32? = nil
    ) {
        noteInput(isTouch: false)
        if let output = viewOutputForPointer(over: inputTarget(at: input.pointer)) {
            output.dispatcher.scroll(
                deltaX: axis == .horizontal ? value : 0, deltaY: axis == .vertical ? value : 0,
                at: Self.seconds(time ?? eventTime))
            return
        }
        if source == .finger, value == 0 {
            seat.pointerAxisStop(time: time ?? eventTime, axis: axis)
        } else {
            seat.pointerAxis(time: time ?? eventTime, axis: axis, value: value, value120: value120, source: source, direction: direction)
        }
        seat.pointerFrame()
    }

    /// A key (evdev code, e.g. KEY_A 30) went down or up: to the focused window.
    public func keyboardKey(_ code: UInt32, pressed: Bool, time: UInt32? = nil) {
        noteInput(isTouch: false)
        if let output = outputs.first(where: { $0.dispatcher.firstResponder != nil }) {
            let text = pressed ? seat.keysyms(forKey: code).compactMap(\.character).map(String.init).joined() : nil
            output.dispatcher.key(code, isPressed: pressed, text: text?.isEmpty == false ? text : nil, at: Self.seconds(time ?? eventTime))
            return
        }
        _ = seat.keyboardKey(time: time ?? eventTime, key: code, pressed: pressed)
    }

    /// The output whose views pointer input belongs to now, with what is under the pointer
    /// (`target`): one of its views holds the pointer (a button went down on it), or one is under
    /// a free pointer; nil when the input is the clients'.
    func viewOutputForPointer(over target: InputTarget) -> CompositorOutput? {
        if let capturing = outputs.first(where: { $0.dispatcher.pointerCaptureView != nil }) { return capturing }
        guard input.pressedButtons.isEmpty, case .view = target else { return nil }
        return output(at: input.pointer)
    }

    /// Whether pointer input belongs to the compositor's views, with what is under the pointer.
    func viewsHaveThePointer(over target: InputTarget) -> Bool {
        viewOutputForPointer(over: target) != nil
    }

    /// Sends enter/leave for what is under the pointer now (after a move or a change of the scene,
    /// such as a window policy moving windows), or motion when the pointer moved or the surface
    /// under it moved, so that the client always knows where the pointer is on its surface.
    public func refocusPointer(motion: Bool = false, time: UInt32? = nil) {
        let target: (surface: Surface, local: Point)?
        if !input.pressedButtons.isEmpty, let grabbed = seat.pointerFocus, let local = localPoint(input.pointer, in: grabbed) {
            target = (grabbed, local)
        } else {
            let under = inputTarget(at: input.pointer)
            if !viewsHaveThePointer(over: under), case .surface(let surface, let local) = under {
                target = (surface, local)
            } else {
                target = nil
            }
        }
        if seat.pointerFocus?.client !== target?.surface.client, let output = pointerOutput {
            // A client's cursor belongs to its surfaces: elsewhere Vitrine's arrow shows.
            withoutAnimation { output.cursor.resetToArrow() }
        }
        if let target {
            if seat.pointerFocus !== target.surface {
                seat.pointerEnter(target.surface, x: target.local.x, y: target.local.y)
            } else if motion || input.pointerLocal != target.local {
                seat.pointerMotion(time: time ?? eventTime, x: target.local.x, y: target.local.y)
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

    /// A button (evdev code, e.g. BTN_LEFT 0x110) changed; the window policy hears of a press first.
    public func pointerButton(_ button: UInt32, pressed: Bool, time: UInt32? = nil) {
        noteInput(isTouch: false)
        let under = inputTarget(at: input.pointer)
        if let output = viewOutputForPointer(over: under) {
            let seconds = Self.seconds(time ?? eventTime)
            if pressed { output.dispatcher.pressButton(button, at: seconds) } else { output.dispatcher.releaseButton(button, at: seconds) }
            if output.dispatcher.pointerCaptureView == nil { refocusPointer(time: time) }
            return
        }
        var surfaceUnder: Surface?
        if case .surface(let surface, _) = under { surfaceUnder = surface }
        if pressed, windowPolicy?.pressWillBeDelivered(on: surfaceUnder) == false {
            input.swallowedButtons.insert(button)
            refocusPointer()
            return
        }
        if !pressed, input.swallowedButtons.remove(button) != nil { return }
        _ = seat.pointerButton(time: time ?? eventTime, button: button, pressed: pressed)
        seat.pointerFrame()
        if pressed {
            input.pressedButtons.insert(button)
        } else if input.pressedButtons.remove(button) != nil, input.pressedButtons.isEmpty {
            // The implicit grab ended: the pointer belongs to what is under it again.
            refocusPointer()
        }
    }

    /// A finger went down at (`x`, `y`) in the outputs' layout (global logical points).
    public func touchDown(id: Int32, x: Double, y: Double, time: UInt32? = nil) {
        noteInput(isTouch: true)
        if let output = pointerOutput, output.cursor.isShown { withoutAnimation { output.cursor.touchBegan() } }
        let point = Point(x: x, y: y)
        let under = inputTarget(at: point)
        if case .view = under, let output = output(at: point) {
            input.viewTouches[id] = output
            viewsWillTakeTouch()
            output.dispatcher.touchDown(id: id, at: output.localPoint(fromLayout: point), time: Self.seconds(time ?? eventTime))
            return
        }
        var target: (surface: Surface, local: Point)?
        if case .surface(let surface, let local) = under { target = (surface, local) }
        guard windowPolicy?.pressWillBeDelivered(on: target?.surface) != false, let target else { return }
        input.touches[id] = target.surface
        _ = seat.touchDown(target.surface, id: id, x: target.local.x, y: target.local.y, time: time ?? eventTime)
        seat.touchFrame()
    }

    /// Touch point `id` moved to (`x`, `y`) in the outputs' layout.
    public func touchMotion(id: Int32, x: Double, y: Double, time: UInt32? = nil) {
        noteInput(isTouch: true)
        if let output = input.viewTouches[id] {
            output.dispatcher.touchMotion(id: id, to: output.localPoint(fromLayout: Point(x: x, y: y)), time: Self.seconds(time ?? eventTime))
            return
        }
        guard let surface = input.touches[id], let local = localPoint(Point(x: x, y: y), in: surface) else { return }
        seat.touchMotion(id: id, x: local.x, y: local.y, time: time ?? eventTime)
        seat.touchFrame()
    }

    public func touchUp(id: Int32, time: UInt32? = nil) {
        if let output = input.viewTouches.removeValue(forKey: id) {
            output.dispatcher.touchUp(id: id, time: Self.seconds(time ?? eventTime))
            return
        }
        guard input.touches.removeValue(forKey: id) != nil else { return }
        _ = seat.touchUp(id: id, time: time ?? eventTime)
        seat.touchFrame()
    }

    /// The touch device gave up on its touches (a palm, a suspended device): clients forget them all.
    public func touchCancel() {
        let viewOutputs = input.viewTouches.values
        input.viewTouches = [:]
        for output in outputs where viewOutputs.contains(where: { $0 === output }) {
            output.dispatcher.cancelTouches(time: Self.seconds(eventTime))
        }
        guard !input.touches.isEmpty else { return }
        input.touches = [:]
        seat.touchCancel()
    }

    /// Gives keyboard focus to the window that `surface` belongs to (its toplevel surface).
    public func focus(_ surface: Surface) {
        var top = surface
        while let parent = top.subsurface?.parent { top = parent }
        guard seat.keyboardFocus !== top else { return }
        let previous = seat.keyboardFocus
        seat.keyboardEnter(top)
        windowPolicy?.keyboardFocusChanged(from: previous, to: top)
    }

    /// A surface stopped being shown: its touches and pointer focus end, and its keyboard focus
    /// goes where the window policy gives it.
    func surfaceLeftTheScreen(_ surface: Surface) {
        if seat.keyboardFocus === surface {
            seat.keyboardLeave()
            windowPolicy?.keyboardFocusChanged(from: surface, to: nil)
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
