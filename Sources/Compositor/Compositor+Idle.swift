import DisplayBackend
import SystemCalls
import WaylandServer

/// When the user last did something, and whether a visible client asks the screen to stay on
/// (zwp_idle_inhibit_manager_v1: a video, a slideshow), for the kiosk shell's blanking.
struct IdleState {
    /// CLOCK_MONOTONIC ns of the last input event of any kind, and of the last that was no touch.
    var lastInput: UInt64 = 0
    var lastInputOtherThanTouch: UInt64 = 0
    /// Inhibitors per surface (a surface may have several).
    var inhibitors: [ObjectIdentifier: (surface: Surface, count: Int)] = [:]
}

extension Compositor: IdleInhibitHandler {
    /// The last input event (CLOCK_MONOTONIC ns; 0 before any): with `includingTouch` false, the
    /// last key, pointer motion, button or scroll.
    public func lastInputNanoseconds(includingTouch: Bool) -> UInt64 {
        includingTouch ? idle.lastInput : idle.lastInputOtherThanTouch
    }

    /// Whether a surface that is on screen has an idle inhibitor.
    public var isIdleInhibited: Bool {
        idle.inhibitors.values.contains { entry in outputs.contains { $0.shows(entry.surface) } }
    }

    func noteInput(isTouch: Bool) {
        let now = monotonicNanoseconds()
        idle.lastInput = now
        if !isTouch { idle.lastInputOtherThanTouch = now }
    }

    public func inhibitorCreated(for surface: Surface) {
        let key = ObjectIdentifier(surface)
        idle.inhibitors[key] = (surface, (idle.inhibitors[key]?.count ?? 0) + 1)
    }

    public func inhibitorDestroyed(for surface: Surface) {
        let key = ObjectIdentifier(surface)
        guard let entry = idle.inhibitors[key] else { return }
        idle.inhibitors[key] = entry.count > 1 ? (entry.surface, entry.count - 1) : nil
    }

    /// Whether every output's display is powered.
    public var outputsArePoweredOn: Bool { displays.allSatisfy(\.isPoweredOn) }

    /// Every display driven: the outputs and the mirrors.
    private var displays: [any BackendOutput] { outputs.map(\.backend) + mirrors.map(\.backend) }

    /// Powers every output's display down (DPMS off) or up; a display that refuses is logged and
    /// left as it is.
    public func setOutputsPowered(_ on: Bool) {
        windowVisibilityNeedsUpdate = true
        for display in displays where display.isPoweredOn != on {
            do {
                try display.setPowered(on)
            } catch {
                logger.error("\(display.name): cannot turn the display \(on ? "on" : "off"): \(error)")
            }
        }
    }
}
