import WaylandProtocols

/// The wp_fractional_scale_manager_v1 global (version 1): clients learn the scale, possibly
/// fractional, at which to render a surface. The compositor sets it with `Surface.sendPreferredScale(_:)`.
public final class FractionalScaleManagerGlobal {
    private var global: Global?

    public init(display: Display) {
        global = Global(display: display, interface: FractionalScaleManagerResource.interface, version: 1) {
            client, version, id in
            _ = FractionalScaleManagerResource(FractionalScaleManagerResource.self, client: client, version: version, id: id)
        }
    }
}

final class FractionalScaleManagerResource: Resource, RequestHandler {
    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .getFractionalScale(let id, let surface):
            let state = FractionalScaleState.of(surface)
            if state.object?.isAlive == true {
                throw ProtocolError(WpFractionalScaleManagerV1Error.fractionalScaleExists,
                                    "wl_surface@\(surface.id) already has a wp_fractional_scale_v1")
            }
            let object = FractionalScale(FractionalScale.self, client: client, version: 1, id: id)
            state.object = object
            // A scale the compositor chose before the object existed is news to it.
            if let scale = state.preferredScale { object.send(.preferredScale(scale: scale)) }
        }
    }
}

/// wp_fractional_scale_v1: carries preferred_scale events for one surface.
final class FractionalScale: Resource, RequestHandler {
    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
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
        if let object = state.object, object.isAlive { object.send(.preferredScale(scale: units)) }
    }
}
