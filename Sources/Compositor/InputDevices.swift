import DisplayBackend
import Input
import LayerKit
import SystemCalls
import WaylandServer

/// The input contexts the compositor reads and what it measures of them.
struct InputDeviceState {
    var contexts: [InputContext] = []
    var sources: [EventSource] = []
    /// Devices by context and identifier, for the touchscreen-to-output mapping by name.
    var names: [ObjectIdentifier: [InputDeviceID: String]] = [:]
    /// Touchscreens (by libinput device name) mapped to an output by its connector name.
    var touchscreenOutputs: [String: String] = [:]
    /// When the batch of events being delivered was read (CLOCK_MONOTONIC ns), until the flush.
    var readNanoseconds: UInt64?
    /// Read-to-flush times of the last batches, oldest first (bounded).
    var deliveryLatencies: [UInt64] = []
    /// The keyboards to type on attached now, by context (nil: events handed in directly) and device.
    var typingKeyboards: Set<DeviceKey> = []
    var typingKeyboardsChanged: ((Bool) -> Void)?

    struct DeviceKey: Hashable {
        let context: ObjectIdentifier?
        let device: InputDeviceID
    }
}

extension Compositor {
    /// Reads `context`'s devices from the compositor's loop from now on; the devices a seat
    /// context enumerated arrive at once. The compositor keeps the context.
    public func attachInput(_ context: InputContext) throws {
        let source = try display.eventLoop.addFileDescriptor(context.fileDescriptor, events: .readable) { [unowned self, unowned context] _ in
            readInput(from: context)
        }
        inputDevices.contexts.append(context)
        inputDevices.sources.append(source)
        readInput(from: context)
    }

    /// Closes every input device (the session was switched away): touches in progress are
    /// cancelled and buttons released for clients.
    public func suspendInput() {
        touchCancel()
        for context in inputDevices.contexts { context.suspend() }
    }

    /// Opens the input devices again (the session is back).
    public func resumeInput() {
        for context in inputDevices.contexts {
            do {
                try context.resume()
            } catch {
                logger.error("input devices could not be opened again: \(error)")
            }
        }
    }

    /// Touches of the touchscreen (or positions of the absolute pointer) called `deviceName`
    /// (libinput's name) land on the output of connector `outputName`; unmapped touchscreens cover
    /// the primary output, unmapped absolute pointers the whole layout.
    public func mapTouchscreen(named deviceName: String, toOutput outputName: String) {
        inputDevices.touchscreenOutputs[deviceName] = outputName
    }

    /// The input devices present now, over every attached context.
    public var inputDeviceList: [InputDeviceInfo] {
        inputDevices.contexts.flatMap(\.devices)
    }

    /// How long the last batches of input events took from being read from libinput to being
    /// flushed to the clients (nanoseconds, oldest first; at most 10,000).
    public var inputDeliveryLatencies: [UInt64] { inputDevices.deliveryLatencies }

    private func readInput(from context: InputContext) {
        let events: [InputEvent]
        do {
            events = try context.dispatch()
        } catch {
            logger.error("reading input failed: \(error)")
            return
        }
        guard !events.isEmpty else { return }
        // Only batches with events for clients are timed (a device arriving is no delivery).
        if inputDevices.readNanoseconds == nil, events.contains(where: { $0.time != nil }) {
            inputDevices.readNanoseconds = monotonicNanoseconds()
        }
        let key = ObjectIdentifier(context)
        for event in events {
            switch event {
            case .deviceAdded(let info):
                inputDevices.names[key, default: [:]][info.id] = info.name
                let scrolling = info.naturalScrollingDescription.map { "; \($0)" } ?? ""
                logger.info("input device \(info.sysname) \"\(info.name)\": \(info.capabilities)\(scrolling)")
                noteDevice(info, added: true, context: key)
            case .deviceRemoved(let info):
                inputDevices.names[key]?[info.id] = nil
                logger.info("input device \(info.sysname) \"\(info.name)\" removed")
                noteDevice(info, added: false, context: key)
            default:
                handle(event, deviceName: inputDevices.names[key]?[event.device])
            }
        }
        // Sent now, not at the end of the loop turn: a frame that the same turn draws (on this
        // thread) would otherwise hold the events back for as long as it takes to draw.
        display.flushClients()
        inputFlushed()
    }

    /// Delivers one device event: to the client under the pointer or finger, or the focused one.
    /// Absolute positions (touchscreens, tablets) are fractions of the output's panel, turned
    /// with the output's transform; `deviceName` picks the output a device is mapped to. A
    /// touchscreen mapped to none covers the primary output; an absolute pointer mapped to none
    /// covers the whole layout as wlroots maps it (with one output, that output's panel).
    public func handle(_ event: InputEvent, deviceName: String? = nil) {
        let time = event.time.map { UInt32(truncatingIfNeeded: $0 / 1000) } ?? eventTime
        switch event {
        case .deviceAdded(let info):
            noteDevice(info, added: true, context: nil)
        case .deviceRemoved(let info):
            noteDevice(info, added: false, context: nil)
        case .key(_, _, let code, let isPressed):
            keyboardKey(code, pressed: isPressed, time: time)
        case .pointerMotion(_, _, let dx, let dy, _, _):
            pointerMoved(toX: input.pointer.x + dx, y: input.pointer.y + dy, time: time)
        case .pointerMotionAbsolute(_, _, let x, let y):
            guard let point = absolutePointerPoint(normalizedX: x, y: y, deviceName: deviceName) else { return }
            pointerMoved(toX: point.x, y: point.y, time: time)
        case .pointerButton(_, _, let code, let isPressed):
            pointerButton(code, pressed: isPressed, time: time)
        case .scroll(_, _, let axis, let value, let v120, let source, let isNatural):
            pointerScrolled(axis: axis == .vertical ? .vertical : .horizontal, value: value, value120: v120.map { Int32($0.rounded()) },
                            source: PointerAxisSource(source), direction: isNatural ? .inverted : .identical, time: time)
        case .touchDown(_, _, let slot, let x, let y):
            guard let point = touchPoint(normalizedX: x, y: y, deviceName: deviceName) else { return }
            touchDown(id: slot, x: point.x, y: point.y, time: time)
        case .touchMotion(_, _, let slot, let x, let y):
            guard let point = touchPoint(normalizedX: x, y: y, deviceName: deviceName) else { return }
            touchMotion(id: slot, x: point.x, y: point.y, time: time)
        case .touchUp(_, _, let slot):
            touchUp(id: slot, time: time)
        case .touchCancel:
            touchCancel()
        case .touchFrame:
            break
        }
    }

    /// Whether a keyboard to type on (one with letter keys) is attached now.
    public var isTypingKeyboardAttached: Bool { !inputDevices.typingKeyboards.isEmpty }

    /// Called with `isTypingKeyboardAttached` when it changes (a USB keyboard plugged in or out).
    public var typingKeyboardAttachmentChanged: ((Bool) -> Void)? {
        get { inputDevices.typingKeyboardsChanged }
        set { inputDevices.typingKeyboardsChanged = newValue }
    }

    private func noteDevice(_ info: InputDeviceInfo, added: Bool, context: ObjectIdentifier?) {
        guard info.hasLetterKeys else { return }
        let wasAttached = isTypingKeyboardAttached
        let key = InputDeviceState.DeviceKey(context: context, device: info.id)
        if added { inputDevices.typingKeyboards.insert(key) } else { inputDevices.typingKeyboards.remove(key) }
        if isTypingKeyboardAttached != wasAttached { inputDevices.typingKeyboardsChanged?(isTypingKeyboardAttached) }
    }

    /// The output the device called `name` is mapped to, where that output exists now.
    private func mappedOutput(forDeviceNamed name: String?) -> CompositorOutput? {
        guard let name, let connector = inputDevices.touchscreenOutputs[name] else { return nil }
        return outputs.first { $0.backend.name == connector }
    }

    /// The mirror the device called `name` is mapped to, where that mirror exists now.
    private func mappedMirror(forDeviceNamed name: String?) -> MirrorOutput? {
        guard let name, let connector = inputDevices.touchscreenOutputs[name] else { return nil }
        return mirrors.first { $0.backend.name == connector }
    }

    /// Where a touch (fractions of the panel) is in the layout: on its mapped output's panel, or
    /// on what its mapped mirror shows (nil on the mirror's bars), else on the primary output's.
    private func touchPoint(normalizedX x: Double, y: Double, deviceName: String?) -> Point? {
        if let mirror = mappedMirror(forDeviceNamed: deviceName) {
            return mirror.sourcePoint(normalizedX: x, y: y).map { $0.output.layoutPoint(fromLocal: $0.point) }
        }
        guard let output = mappedOutput(forDeviceNamed: deviceName) ?? outputs.first else { return nil }
        return output.layoutPoint(fromLocal: output.logicalPoint(normalizedX: x, y: y))
    }

    /// Where an absolute pointer's position (fractions of its range) is in the layout: on its
    /// mapped output's panel or what its mapped mirror shows; unmapped, on the only output's
    /// panel, or across the bounding box of several (a point between them goes to the closest
    /// output when the pointer moves there).
    private func absolutePointerPoint(normalizedX x: Double, y: Double, deviceName: String?) -> Point? {
        if let mirror = mappedMirror(forDeviceNamed: deviceName) {
            return mirror.sourcePoint(normalizedX: x, y: y).map { $0.output.layoutPoint(fromLocal: $0.point) }
        }
        if let output = mappedOutput(forDeviceNamed: deviceName) ?? (outputs.count == 1 ? outputs.first : nil) {
            return output.layoutPoint(fromLocal: output.logicalPoint(normalizedX: x, y: y))
        }
        guard let bounds = layoutBounds else { return nil }
        return Point(x: bounds.minX + x * bounds.width, y: bounds.minY + y * bounds.height)
    }

    /// Called after the loop flushed the clients: the batch read before it has been delivered.
    func inputFlushed() {
        guard let read = inputDevices.readNanoseconds else { return }
        inputDevices.readNanoseconds = nil
        inputDevices.deliveryLatencies.append(monotonicNanoseconds() - read)
        if inputDevices.deliveryLatencies.count > 10_000 { inputDevices.deliveryLatencies.removeFirst(1_000) }
    }
}

extension PointerAxisSource {
    init(_ source: ScrollSource) {
        switch source {
        case .wheel: self = .wheel
        case .finger: self = .finger
        case .continuous: self = .continuous
        }
    }
}
