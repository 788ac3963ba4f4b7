import WaylandProtocols

/// What the compositor decides for layer surfaces (zwlr_layer_shell_v1): where each goes, the size
/// it is configured to, what it does to the windows' area and to keyboard focus.
public protocol LayerShellHandler: AnyObject {
    /// A commit of `layerSurface` needs an answer: the initial commit (again after each unmap)
    /// must be configured, and a later one may have changed its layer, size, anchors, margins,
    /// exclusive zone or keyboard interactivity (`layerSurface.state`). Configure it when its
    /// size changes (`configure(width:height:)`), place it, and re-arrange what depends on it.
    func layerSurfaceCommitted(_ layerSurface: LayerSurface)
    /// A buffer committed after an acknowledged configure made it visible.
    func layerSurfaceMapped(_ layerSurface: LayerSurface)
    /// It is no longer visible: a null buffer was committed, it was closed, or it or its
    /// wl_surface was destroyed (`layerSurface.isAlive` tells the last). Called once per map.
    func layerSurfaceUnmapped(_ layerSurface: LayerSurface)
}

/// The zwlr_layer_shell_v1 global (version 4): surfaces on the background, bottom, top and
/// overlay layers of an output, anchored to its edges (LayerSurface.swift).
public final class LayerShellGlobal {
    public static let version: UInt32 = 4
    private var global: Global?
    /// The compositor's policy; set it before clients can bind the global. Unowned, not weak
    /// (docs/architecture.md: no weak references to what a frame touches): the compositor clears
    /// it before the policy goes.
    public unowned var handler: LayerShellHandler?
    /// Every live layer surface, in creation order.
    public private(set) var layerSurfaces: [LayerSurface] = []

    public init(display: Display) {
        global = Global(display: display, interface: LayerShellResource.interface, version: Self.version) {
            [weak self] client, version, id in
            _ = LayerShellResource(client: client, version: version, id: id, owner: self)
        }
    }

    fileprivate func added(_ layerSurface: LayerSurface) {
        layerSurfaces.append(layerSurface)
    }

    func removed(_ layerSurface: LayerSurface) {
        layerSurfaces.removeAll { $0 === layerSurface }
    }
}

final class LayerShellResource: Resource, RequestHandler {
    private weak var owner: LayerShellGlobal?

    init(client: Client, version: UInt32, id: UInt32, owner: LayerShellGlobal?) {
        self.owner = owner
        super.init(LayerShellResource.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .getLayerSurface(let id, let surface, let output, let layer, let namespace):
            guard let layer = LayerSurface.Layer(rawValue: layer.rawValue) else {
                throw ProtocolError(ZwlrLayerShellV1Error.invalidLayer, "layer \(layer.rawValue) is not a zwlr_layer_shell_v1.layer")
            }
            if let existing = surface.roleName, existing != LayerSurface.roleName {
                throw ProtocolError(ZwlrLayerShellV1Error.role, "wl_surface@\(surface.id) already has the role \(existing)")
            }
            if surface.current.buffer != nil || (surface.pending.attached && surface.pending.buffer != nil) {
                throw ProtocolError(ZwlrLayerShellV1Error.alreadyConstructed,
                                    "wl_surface@\(surface.id) has a buffer attached or committed")
            }
            let layerSurface = LayerSurface(client: client, version: version, id: id, surface: surface,
                                            output: output?.owner, layer: layer, namespace: namespace, owner: owner)
            do {
                try surface.setRole(layerSurface, errorOn: self, code: ZwlrLayerShellV1Error.role)
            } catch {
                layerSurface.destroy()
                throw error
            }
            layerSurface.didAttach()
            owner?.added(layerSurface)
        case .destroy: destroy()
        }
    }
}
