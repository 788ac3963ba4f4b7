/// One event from an input device, translated from libinput. `time` is in microseconds of
/// CLOCK_MONOTONIC, as libinput stamps it (wl_pointer and wl_touch want `time / 1000` ms).
/// Positions `x`, `y` are normalized to 0…1 across the device's area after its calibration matrix;
/// mapping them to an output (and its rotation) is the compositor's job.
///
/// Not translated: swipe/pinch/hold gestures, tablet pads, switches (lid, tablet mode) and the
/// tablet tool's pressure/tilt: a tablet tool acts as an absolute pointer.
public enum InputEvent: Hashable, Sendable {
    case deviceAdded(InputDeviceInfo)
    case deviceRemoved(InputDeviceInfo)
    /// `code` is the evdev key code (`KEY_A` = 30).
    case key(time: UInt64, device: InputDeviceID, code: UInt32, isPressed: Bool)
    /// Relative motion in libinput's normalized 1000 dpi units, accelerated and raw.
    case pointerMotion(time: UInt64, device: InputDeviceID, dx: Double, dy: Double, unacceleratedDX: Double, unacceleratedDY: Double)
    case pointerMotionAbsolute(time: UInt64, device: InputDeviceID, x: Double, y: Double)
    /// `code` is the evdev button code (`BTN_LEFT` = 272); a tablet tool's tip is `BTN_LEFT`.
    case pointerButton(time: UInt64, device: InputDeviceID, code: UInt32, isPressed: Bool)
    /// `value` is in libinput's scroll units (degrees of a wheel, or pixels-like for fingers);
    /// `v120` is set for wheels only (120 = one detent). A finger scroll ends with `value` 0.
    /// `isNatural`: the device scrolls naturally, so `value` is the inverse of the motion.
    case scroll(time: UInt64, device: InputDeviceID, axis: ScrollAxis, value: Double, v120: Double?, source: ScrollSource, isNatural: Bool)
    /// `slot` is libinput's seat slot: unique among all touch points down on the seat.
    case touchDown(time: UInt64, device: InputDeviceID, slot: Int32, x: Double, y: Double)
    case touchMotion(time: UInt64, device: InputDeviceID, slot: Int32, x: Double, y: Double)
    case touchUp(time: UInt64, device: InputDeviceID, slot: Int32)
    case touchCancel(time: UInt64, device: InputDeviceID, slot: Int32)
    /// Ends a set of touch changes that happened together.
    case touchFrame(time: UInt64, device: InputDeviceID)

    /// The device the event came from.
    public var device: InputDeviceID {
        switch self {
        case .deviceAdded(let info), .deviceRemoved(let info): info.id
        case .key(_, let device, _, _), .pointerMotion(_, let device, _, _, _, _),
            .pointerMotionAbsolute(_, let device, _, _), .pointerButton(_, let device, _, _),
            .scroll(_, let device, _, _, _, _, _), .touchDown(_, let device, _, _, _),
            .touchMotion(_, let device, _, _, _), .touchUp(_, let device, _), .touchCancel(_, let device, _),
            .touchFrame(_, let device):
            device
        }
    }

    /// Microseconds of CLOCK_MONOTONIC; nil for device added/removed, which libinput does not stamp.
    public var time: UInt64? {
        switch self {
        case .deviceAdded, .deviceRemoved: nil
        case .key(let time, _, _, _), .pointerMotion(let time, _, _, _, _, _), .pointerMotionAbsolute(let time, _, _, _),
            .pointerButton(let time, _, _, _), .scroll(let time, _, _, _, _, _, _), .touchDown(let time, _, _, _, _),
            .touchMotion(let time, _, _, _, _), .touchUp(let time, _, _), .touchCancel(let time, _, _),
            .touchFrame(let time, _):
            time
        }
    }
}

public enum ScrollAxis: Hashable, Sendable {
    case vertical
    case horizontal
}

/// What produced a scroll, which decides how a client should treat it (wl_pointer.axis_source).
public enum ScrollSource: Hashable, Sendable {
    /// A wheel with detents, or a tilting wheel; comes with `v120`.
    case wheel
    /// Fingers on a touchpad or touchscreen: kinetic scrolling applies, and a stop event ends it.
    case finger
    /// Continuous motion without a physical end (a trackball with the scroll button held).
    case continuous
}
