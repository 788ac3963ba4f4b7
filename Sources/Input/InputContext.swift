internal import CInput
internal import CUdev
import Glibc
public import SystemCalls

/// A libinput context: the input devices of a seat (found and hotplugged through udev) or of an
/// explicit list of evdev nodes. Not thread-safe: one thread owns it and reads `fileDescriptor`
/// in its event loop, calling `dispatch()` when it is readable.
public final class InputContext {
    /// Where the devices come from.
    public enum Mode: Hashable, Sendable {
        /// Devices added by path (`/dev/input/eventN`); no hotplug.
        case paths
        /// The devices udev assigns to the seat, with hotplug.
        case seat(String)
    }

    public let mode: Mode
    public let configuration: InputConfiguration

    let handle: OpaquePointer
    private let state: CallbackState
    // libinput keeps a pointer to the interface for the context's lifetime.
    let interface: UnsafeMutablePointer<libinput_interface>
    private var entries: [InputDeviceID: DeviceEntry] = [:]
    // Removed from libinput, their `.deviceRemoved` not dispatched yet: removing twice would crash libinput.
    private var pendingRemovals: Set<InputDeviceID> = []
    private var nextID: UInt32 = 1

    /// A context for the given evdev nodes. Each path must name an evdev node; the first that does
    /// not, or cannot be opened, is thrown with its reason.
    public convenience init(
        devicePaths: [String], configuration: InputConfiguration = InputConfiguration(),
        opener: some DeviceOpener = DirectOpener()
    ) throws(InputError) {
        try self.init(mode: .paths, configuration: configuration, opener: opener) { interface, userData in
            libinput_path_create_context(interface, userData)
        }
        for path in devicePaths { try addDevice(path: path) }
    }

    /// A context for a seat's devices. udev enumerates them at once; they arrive as
    /// `.deviceAdded` events from the first `dispatch()`, and later ones as they are plugged in.
    public convenience init(
        seat: String = "seat0", configuration: InputConfiguration = InputConfiguration(),
        opener: some DeviceOpener = DirectOpener()
    ) throws(InputError) {
        guard let udev = udev_new() else { throw .contextUnavailable(reason: "udev_new failed") }
        defer { udev_unref(udev) }
        try self.init(mode: .seat(seat), configuration: configuration, opener: opener) { interface, userData in
            libinput_udev_create_context(interface, userData, udev)
        }
        let outcome = state.capture({ libinput_udev_assign_seat(handle, seat) }, succeeded: { $0 == 0 })
        guard outcome.result == 0 else {
            throw .contextUnavailable(reason: "cannot assign seat \(seat)" + outcome.explanation)
        }
    }

    private init(
        mode: Mode, configuration: InputConfiguration, opener: any DeviceOpener,
        create: (UnsafePointer<libinput_interface>, UnsafeMutableRawPointer) -> OpaquePointer?
    ) throws(InputError) {
        let state = CallbackState(opener: opener)
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(to: libinput_interface(open_restricted: openRestricted, close_restricted: closeRestricted))
        guard let handle = create(interface, Unmanaged.passUnretained(state).toOpaque()) else {
            interface.deallocate()
            throw .contextUnavailable(reason: "libinput could not create a context")
        }
        libinput_log_set_handler(handle, logMessage)
        self.mode = mode
        self.configuration = configuration
        self.state = state
        self.interface = interface
        self.handle = handle
    }

    deinit {
        // Our references go first: libinput_unref frees the devices it still holds.
        for entry in entries.values { libinput_device_unref(entry.device) }
        libinput_unref(handle)
        interface.deinitialize(count: 1)
        interface.deallocate()
    }

    /// Readable when `dispatch()` has work; for the compositor's event loop.
    public var fileDescriptor: FileDescriptor { FileDescriptor(rawValue: libinput_get_fd(handle)) }

    /// The devices present now, in the order they were added.
    public var devices: [InputDeviceInfo] {
        entries.values.map(\.info).sorted { $0.id < $1.id }
    }

    /// Adds the evdev node at `path` and applies the configuration to it (path mode only).
    /// A bad path throws its reason and leaves the context as it was.
    @discardableResult
    public func addDevice(path: String) throws(InputError) -> InputDeviceInfo {
        guard mode == .paths else { throw .requiresPathMode(operation: "adding \(path)") }
        // libinput waits seconds for udev on a node that is no input device; refuse those at once.
        try checkEvdevNode(path: path)
        let outcome = state.capture({ libinput_path_add_device(handle, path) }, succeeded: { $0 != nil })
        guard let device = outcome.result else {
            if let failure = outcome.openFailure { throw failure }
            throw .deviceRejected(path: path, reason: outcome.messages.isEmpty ? "no reason given" : outcome.messages.joined(separator: "; "))
        }
        return register(device)
    }

    /// Removes a device added by path; its `.deviceRemoved` event comes with the next `dispatch()`.
    /// Removing it again before then does nothing.
    public func removeDevice(_ id: InputDeviceID) throws(InputError) {
        guard mode == .paths else { throw .requiresPathMode(operation: "removing device \(id)") }
        guard let entry = entries[id] else { throw .unknownDevice(id) }
        guard pendingRemovals.insert(id).inserted else { return }
        libinput_path_remove_device(entry.device)
    }

    /// Reads what the devices sent and returns it translated, oldest first.
    public func dispatch() throws(InputError) -> [InputEvent] {
        do {
            try SystemCallError.checkNegativeErrno(libinput_dispatch(handle), "libinput_dispatch")
        } catch {
            throw .system(error)
        }
        var events: [InputEvent] = []
        while let event = libinput_get_event(handle) {
            translate(event, into: &events)
            libinput_event_destroy(event)
        }
        return events
    }

    /// Closes every device (for a VT switch away); they come back, with new identifiers, on `resume()`.
    public func suspend() {
        libinput_suspend(handle)
        pendingRemovals.formUnion(entries.keys)
    }

    public func resume() throws(InputError) {
        let outcome = state.capture({ libinput_resume(handle) }, succeeded: { $0 == 0 })
        guard outcome.result == 0 else { throw .contextUnavailable(reason: "resume failed" + outcome.explanation) }
    }

    // MARK: Devices

    private struct DeviceEntry {
        let device: OpaquePointer
        let info: InputDeviceInfo
    }

    /// The device's identifier, registering (and configuring) it the first time it is seen.
    private func register(_ device: OpaquePointer) -> InputDeviceInfo {
        if let id = storedID(of: device), let entry = entries[id] { return entry.info }
        let id = InputDeviceID(rawValue: nextID)
        nextID += 1
        libinput_device_set_user_data(device, UnsafeMutableRawPointer(bitPattern: UInt(id.rawValue)))
        libinput_device_ref(device)
        let info = configure(device, id: id)
        entries[id] = DeviceEntry(device: device, info: info)
        return info
    }

    private func storedID(of device: OpaquePointer) -> InputDeviceID? {
        libinput_device_get_user_data(device).map { InputDeviceID(rawValue: UInt32(UInt(bitPattern: $0))) }
    }

    private func id(of event: OpaquePointer) -> InputDeviceID {
        let device = libinput_event_get_device(event)!
        return storedID(of: device) ?? register(device).id
    }

    private func configure(_ device: OpaquePointer, id: InputDeviceID) -> InputDeviceInfo {
        let name = String(cString: libinput_device_get_name(device))
        let sysname = String(cString: libinput_device_get_sysname(device))
        var issues: [InputConfigurationIssue] = []

        var tapEnabled = false
        if configuration.enablesTapToClick, libinput_device_config_tap_get_finger_count(device) > 0 {
            let status = libinput_device_config_tap_set_enabled(device, LIBINPUT_CONFIG_TAP_ENABLED)
            if status == LIBINPUT_CONFIG_STATUS_SUCCESS {
                tapEnabled = true
            } else {
                issues.append(.tapToClickRejected(status: String(cString: libinput_config_status_to_str(status))))
            }
        }

        var naturalScrolling: Bool?
        if libinput_device_config_scroll_has_natural_scroll(device) != 0 {
            if let wanted = configuration.naturalScrolling {
                let status = libinput_device_config_scroll_set_natural_scroll_enabled(device, wanted ? 1 : 0)
                if status != LIBINPUT_CONFIG_STATUS_SUCCESS {
                    issues.append(.naturalScrollingRejected(status: String(cString: libinput_config_status_to_str(status))))
                }
            }
            naturalScrolling = libinput_device_config_scroll_get_natural_scroll_enabled(device) != 0
        }

        let supportsCalibration = libinput_device_config_calibration_has_matrix(device) != 0
        var calibration: CalibrationMatrix?
        if let rule = configuration.calibrationRule(name: name, sysname: sysname) {
            if !supportsCalibration {
                issues.append(.calibrationUnsupported(rule: rule.pattern))
            } else {
                let status = rule.matrix.values.withUnsafeBufferPointer {
                    libinput_device_config_calibration_set_matrix(device, $0.baseAddress)
                }
                if status == LIBINPUT_CONFIG_STATUS_SUCCESS {
                    calibration = rule.matrix
                } else {
                    issues.append(.calibrationRejected(rule: rule.pattern, status: String(cString: libinput_config_status_to_str(status))))
                }
            }
        }

        var width = 0.0, height = 0.0
        let size = libinput_device_get_size(device, &width, &height) == 0 ? PhysicalSize(width: width, height: height) : nil

        return InputDeviceInfo(
            id: id, name: name, sysname: sysname, devicePath: devicePath(of: device),
            vendorID: libinput_device_get_id_vendor(device), productID: libinput_device_get_id_product(device),
            capabilities: InputCapabilities { libinput_device_has_capability(device, $0) != 0 },
            size: size, supportsCalibration: supportsCalibration, calibration: calibration,
            isTapToClickEnabled: tapEnabled, naturalScrolling: naturalScrolling, issues: issues,
            // KEY_A 30, KEY_Z 44.
            hasLetterKeys: libinput_device_keyboard_has_key(device, 30) == 1 && libinput_device_keyboard_has_key(device, 44) == 1)
    }

    private func devicePath(of device: OpaquePointer) -> String? {
        guard let udevDevice = libinput_device_get_udev_device(device) else { return nil }
        defer { udev_device_unref(udevDevice) }
        return udev_device_get_devnode(udevDevice).map { String(cString: $0) }
    }

    // MARK: Events

    private func translate(_ event: OpaquePointer, into events: inout [InputEvent]) {
        let type = libinput_event_get_type(event)
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            events.append(.deviceAdded(register(libinput_event_get_device(event)!)))
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            let device = libinput_event_get_device(event)!
            guard let id = storedID(of: device), let entry = entries.removeValue(forKey: id) else { return }
            pendingRemovals.remove(id)
            libinput_device_set_user_data(device, nil)
            libinput_device_unref(device)
            events.append(.deviceRemoved(entry.info))
        case LIBINPUT_EVENT_KEYBOARD_KEY:
            let key = libinput_event_get_keyboard_event(event)
            events.append(.key(
                time: libinput_event_keyboard_get_time_usec(key), device: id(of: event),
                code: libinput_event_keyboard_get_key(key),
                isPressed: libinput_event_keyboard_get_key_state(key) == LIBINPUT_KEY_STATE_PRESSED))
        case LIBINPUT_EVENT_POINTER_MOTION:
            let pointer = libinput_event_get_pointer_event(event)
            events.append(.pointerMotion(
                time: libinput_event_pointer_get_time_usec(pointer), device: id(of: event),
                dx: libinput_event_pointer_get_dx(pointer), dy: libinput_event_pointer_get_dy(pointer),
                unacceleratedDX: libinput_event_pointer_get_dx_unaccelerated(pointer),
                unacceleratedDY: libinput_event_pointer_get_dy_unaccelerated(pointer)))
        case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
            let pointer = libinput_event_get_pointer_event(event)
            events.append(.pointerMotionAbsolute(
                time: libinput_event_pointer_get_time_usec(pointer), device: id(of: event),
                x: libinput_event_pointer_get_absolute_x_transformed(pointer, 1),
                y: libinput_event_pointer_get_absolute_y_transformed(pointer, 1)))
        case LIBINPUT_EVENT_POINTER_BUTTON:
            let pointer = libinput_event_get_pointer_event(event)
            events.append(.pointerButton(
                time: libinput_event_pointer_get_time_usec(pointer), device: id(of: event),
                code: libinput_event_pointer_get_button(pointer),
                isPressed: libinput_event_pointer_get_button_state(pointer) == LIBINPUT_BUTTON_STATE_PRESSED))
        case LIBINPUT_EVENT_POINTER_SCROLL_WHEEL, LIBINPUT_EVENT_POINTER_SCROLL_FINGER,
            LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS:
            translateScroll(event, type: type, into: &events)
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            let touch = libinput_event_get_touch_event(event)
            let (time, device, slot) = (libinput_event_touch_get_time_usec(touch), id(of: event), libinput_event_touch_get_seat_slot(touch))
            let x = libinput_event_touch_get_x_transformed(touch, 1), y = libinput_event_touch_get_y_transformed(touch, 1)
            events.append(type == LIBINPUT_EVENT_TOUCH_DOWN
                ? .touchDown(time: time, device: device, slot: slot, x: x, y: y)
                : .touchMotion(time: time, device: device, slot: slot, x: x, y: y))
        case LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
            let touch = libinput_event_get_touch_event(event)
            let (time, device, slot) = (libinput_event_touch_get_time_usec(touch), id(of: event), libinput_event_touch_get_seat_slot(touch))
            events.append(type == LIBINPUT_EVENT_TOUCH_UP
                ? .touchUp(time: time, device: device, slot: slot)
                : .touchCancel(time: time, device: device, slot: slot))
        case LIBINPUT_EVENT_TOUCH_FRAME:
            let touch = libinput_event_get_touch_event(event)
            events.append(.touchFrame(time: libinput_event_touch_get_time_usec(touch), device: id(of: event)))
        case LIBINPUT_EVENT_TABLET_TOOL_PROXIMITY, LIBINPUT_EVENT_TABLET_TOOL_AXIS, LIBINPUT_EVENT_TABLET_TOOL_TIP,
            LIBINPUT_EVENT_TABLET_TOOL_BUTTON:
            translateTabletTool(event, type: type, into: &events)
        default:
            // The legacy POINTER_AXIS duplicates the SCROLL_* events; gestures, pads and switches are not translated.
            break
        }
    }

    private func translateScroll(_ event: OpaquePointer, type: libinput_event_type, into events: inout [InputEvent]) {
        guard let source = ScrollSource(eventType: type) else { return }
        let pointer = libinput_event_get_pointer_event(event)
        let time = libinput_event_pointer_get_time_usec(pointer), device = id(of: event)
        let isNatural = libinput_device_config_scroll_get_natural_scroll_enabled(libinput_event_get_device(event)) != 0
        for (axis, libinputAxis) in [(ScrollAxis.vertical, LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL),
                                     (.horizontal, LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL)]
        where libinput_event_pointer_has_axis(pointer, libinputAxis) != 0 {
            events.append(.scroll(
                time: time, device: device, axis: axis,
                value: libinput_event_pointer_get_scroll_value(pointer, libinputAxis),
                v120: source == .wheel ? libinput_event_pointer_get_scroll_value_v120(pointer, libinputAxis) : nil,
                source: source, isNatural: isNatural))
        }
    }

    /// A tablet tool drives the pointer: it moves while in proximity, and its tip is the left button.
    private func translateTabletTool(_ event: OpaquePointer, type: libinput_event_type, into events: inout [InputEvent]) {
        let tool = libinput_event_get_tablet_tool_event(event)
        let time = libinput_event_tablet_tool_get_time_usec(tool), device = id(of: event)
        switch type {
        case LIBINPUT_EVENT_TABLET_TOOL_BUTTON:
            events.append(.pointerButton(
                time: time, device: device, code: libinput_event_tablet_tool_get_button(tool),
                isPressed: libinput_event_tablet_tool_get_button_state(tool) == LIBINPUT_BUTTON_STATE_PRESSED))
            return
        case LIBINPUT_EVENT_TABLET_TOOL_PROXIMITY
        where libinput_event_tablet_tool_get_proximity_state(tool) == LIBINPUT_TABLET_TOOL_PROXIMITY_STATE_OUT:
            return
        default:
            break
        }
        events.append(.pointerMotionAbsolute(
            time: time, device: device,
            x: libinput_event_tablet_tool_get_x_transformed(tool, 1),
            y: libinput_event_tablet_tool_get_y_transformed(tool, 1)))
        if type == LIBINPUT_EVENT_TABLET_TOOL_TIP {
            events.append(.pointerButton(
                time: time, device: device, code: tabletTipButton,
                isPressed: libinput_event_tablet_tool_get_tip_state(tool) == LIBINPUT_TABLET_TOOL_TIP_DOWN))
        }
    }
}

/// BTN_LEFT from linux/input-event-codes.h: what a tablet tool's tip presses.
let tabletTipButton: UInt32 = 0x110

extension ScrollSource {
    /// The source of a libinput 1.19+ scroll event; nil for every other type, the legacy
    /// POINTER_AXIS included (it repeats the same scroll).
    init?(eventType: libinput_event_type) {
        switch eventType {
        case LIBINPUT_EVENT_POINTER_SCROLL_WHEEL: self = .wheel
        case LIBINPUT_EVENT_POINTER_SCROLL_FINGER: self = .finger
        case LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS: self = .continuous
        default: return nil
        }
    }
}

/// Refuses paths that cannot be evdev nodes: missing, not a character device, or another driver's.
func checkEvdevNode(path: String) throws(InputError) {
    var info = stat()
    guard stat(path, &info) == 0 else { throw .current("stat", path: path) }
    guard info.st_mode & S_IFMT == S_IFCHR else {
        throw .notAnInputDevice(path: path, reason: "it is not a character device")
    }
    // The input subsystem is major 13; evdev's minors start at 64 (below are joystick and mouse).
    let (major, minor) = (gnu_dev_major(info.st_rdev), gnu_dev_minor(info.st_rdev))
    guard major == 13, minor >= 64 else {
        throw .notAnInputDevice(path: path, reason: "it is character device \(major):\(minor); evdev nodes are 13:64 and up")
    }
}
