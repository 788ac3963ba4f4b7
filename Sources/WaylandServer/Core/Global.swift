internal import CWaylandServer
import WaylandProtocols

/// An advertised global (wl_registry): binding it calls `bind` with the client, the version the
/// client asked for and the new object's id. The display's `globalFilter` decides which clients
/// see it.
public final class Global {
    final class Binder {
        let display: Display
        let bind: (Client, UInt32, UInt32) -> Void
        /// The global, for the display's filter (which libwayland hands only this binder).
        weak var global: Global?
        init(display: Display, bind: @escaping (Client, UInt32, UInt32) -> Void) {
            self.display = display
            self.bind = bind
        }
    }

    private var raw: OpaquePointer?
    private let binder: Unmanaged<Binder>
    public let version: UInt32
    /// The name of the interface it offers ("zwlr_screencopy_manager_v1").
    public let interfaceName: String

    /// A global of `interface` (`XdgWmBase.interface`: the one of the class its clients' objects are).
    init(display: Display, interface: Interface, version: UInt32,
         bind: @escaping (_ client: Client, _ version: UInt32, _ id: UInt32) -> Void) {
        self.version = version
        interfaceName = interface.name
        let binder = Unmanaged.passRetained(Binder(display: display, bind: bind))
        self.binder = binder
        raw = wl_global_create(display.raw, interface.raw, Int32(version), binder.toOpaque()) { rawClient, data, version, id in
            guard let rawClient, let data else { return }
            let binder = Unmanaged<Binder>.fromOpaque(data).takeUnretainedValue()
            binder.bind(binder.display.client(for: rawClient), version, id)
        }
        binder.takeUnretainedValue().global = self
    }

    /// Withdraws the global from the registry and destroys it; bound objects stay valid.
    public func remove() {
        withdrawal = nil
        guard let raw else { return }
        wl_global_destroy(raw)
        self.raw = nil
    }

    /// Set while the global is withdrawn but not destroyed yet; it keeps the global alive.
    private var withdrawal: TimerSource?

    /// Withdraws the global from clients' registries (wl_registry.global_remove) at once, but
    /// destroys it only `milliseconds` later: a client that binds it before it heard of the
    /// removal gets an object rather than a fatal error for an unknown global (libwayland's advice
    /// for globals that go away, such as an unplugged output's). Bound objects stay valid.
    public func withdraw(destroyingAfterMilliseconds milliseconds: Int32 = 5000) {
        guard let raw, withdrawal == nil else { return }
        wl_global_remove(raw)
        // The timer's handler holds the global until it fires, however soon its owner lets go.
        guard let timer = try? binder.takeUnretainedValue().display.eventLoop.addTimer(handler: { [self] in remove() }) else {
            remove()
            return
        }
        withdrawal = timer
        timer.arm(milliseconds: milliseconds)
    }

    /// Whether the global is withdrawn from the registry (or destroyed).
    public var isWithdrawn: Bool { raw == nil || withdrawal != nil }

    deinit {
        remove()
        binder.release()
    }
}
