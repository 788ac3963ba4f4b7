internal import CWaylandServer
internal import CVitrineWayland

/// The wp_fractional_scale_manager_v1 global (version 1): clients learn the scale, possibly
/// fractional, at which to render a surface. The compositor sets it with `Surface.sendPreferredScale(_:)`.
public final class FractionalScaleManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: vitrine_wp_fractional_scale_manager_v1_interface(), version: 1) {
            client, version, id in
            _ = FractionalScaleManagerResource(client: client, version: version, id: id)
        }
    }
}

private final class FractionalScaleManagerResource: Resource {
    override init(client: Client, version: UInt32, id: UInt32) {
        super.init(client: client, interface: vitrine_wp_fractional_scale_manager_v1_interface(), version: version, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        case 1:
            guard let surface = arguments.object(1, as: Surface.self) else { return }
            let state = FractionalScaleState.of(surface)
            if state.object?.isAlive == true {
                throw ProtocolError(code: UInt32(WP_FRACTIONAL_SCALE_MANAGER_V1_ERROR_FRACTIONAL_SCALE_EXISTS.rawValue),
                                    "wl_surface@\(surface.id) already has a wp_fractional_scale_v1")
            }
            let object = FractionalScale(client: client, id: arguments.newID(0))
            state.object = object
            // A scale the compositor chose before the object existed is news to it.
            if let scale = state.preferredScale { object.send(0, .uint(scale)) }
        default: try super.handle(opcode, arguments)
        }
    }
}

/// wp_fractional_scale_v1: carries preferred_scale events for one surface.
private final class FractionalScale: Resource {
    init(client: Client, id: UInt32) {
        super.init(client: client, interface: vitrine_wp_fractional_scale_v1_interface(), version: 1, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        switch opcode {
        case 0: destroy()
        default: try super.handle(opcode, arguments)
        }
    }
}

/// A surface's preferred scale (kept even without a wp_fractional_scale_v1 object, so that one
/// created later hears it) and its object, if any.
private final class FractionalScaleState {
    /// The scale in 1/120 units, once the compositor chose one.
    var preferredScale: UInt32?
    weak var object: FractionalScale?

    static func of(_ surface: Surface) -> FractionalScaleState {
        let key = ObjectIdentifier(FractionalScaleState.self)
        if let state = surface.extensions[key] as? FractionalScaleState { return state }
        let state = FractionalScaleState()
        surface.extensions[key] = state
        return state
    }
}

extension Surface {
    /// Tells the client the scale to render this surface at (wp_fractional_scale_v1.preferred_scale,
    /// in 1/120 units rounded to the nearest), when it differs from the last one sent for the
    /// surface. Call it whenever the surface's preferred scale may have changed (it entered or left
    /// an output, an output's scale changed); repeated values cost nothing.
    public func sendPreferredScale(_ scale: Double) {
        precondition(scale > 0, "a preferred scale must be positive")
        guard isAlive else { return }
        let units = UInt32((scale * 120).rounded())
        let state = FractionalScaleState.of(self)
        guard state.preferredScale != units else { return }
        state.preferredScale = units
        if let object = state.object, object.isAlive { object.send(0, .uint(units)) }
    }
}
