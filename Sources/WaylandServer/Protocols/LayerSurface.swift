import WaylandProtocols

/// zwlr_layer_surface_v1: a surface shown on one layer of an output, below or above the windows.
/// Its state is double-buffered (a commit applies it). The first commit, without a buffer, asks
/// the compositor for a configure; a buffer committed after the client acknowledged one maps the
/// surface; a null buffer unmaps it and the cycle starts again. A buffer on the first commit
/// itself (before any configure was sent) is taken as Mir takes it: that commit brings the
/// configure and maps the surface, as if the client had acknowledged it.
public final class LayerSurface: Resource, RequestHandler, SurfaceRole {
    static let roleName = "zwlr_layer_surface_v1"
    var roleName: String { Self.roleName }
    /// Sizes past this (in surface coordinates) are invalid_size: no output is that large, and
    /// larger values would overflow the compositor's layout arithmetic.
    public static let maximumSize: UInt32 = 16384

    /// zwlr_layer_shell_v1.layer, bottom to top; application windows lie between bottom and top.
    public enum Layer: UInt32, Sendable, CaseIterable, Comparable, CustomStringConvertible {
        case background = 0, bottom, top, overlay

        public static func < (lhs: Layer, rhs: Layer) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The protocol's name of the layer. Written out: interpolating an enum without it makes the
        /// runtime look the case name up in the binary's reflection metadata, at every start (each
        /// output names its layers' views).
        public var description: String {
            switch self {
            case .background: "background"
            case .bottom: "bottom"
            case .top: "top"
            case .overlay: "overlay"
            }
        }
    }

    /// The output edges a surface is anchored to (zwlr_layer_surface_v1.anchor).
    public struct Edges: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let top = Edges(rawValue: 1)
        public static let bottom = Edges(rawValue: 2)
        public static let left = Edges(rawValue: 4)
        public static let right = Edges(rawValue: 8)
        public static let all: Edges = [.top, .bottom, .left, .right]
    }

    /// zwlr_layer_surface_v1.keyboard_interactivity.
    public enum KeyboardInteractivity: UInt32, Sendable {
        /// Never focused.
        case none = 0
        /// On the top and overlay layers, holds the keyboard focus while mapped.
        case exclusive = 1
        /// Focused as a window is (a press on it; version 4).
        case onDemand = 2
    }

    /// Distances from the anchored edges, in surface coordinates.
    public struct Margins: Hashable, Sendable {
        public var top: Int32 = 0
        public var right: Int32 = 0
        public var bottom: Int32 = 0
        public var left: Int32 = 0

        public init(top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0, left: Int32 = 0) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }
    }

    /// The double-buffered state, as the last commit applied it.
    public struct State: Hashable, Sendable {
        public var layer: Layer
        /// The size the client asked for; 0 lets the compositor fill the space between the
        /// anchored opposite edges (the commit checks that both are anchored).
        public var width: UInt32 = 0
        public var height: UInt32 = 0
        public var anchor: Edges = []
        /// > 0: the distance from the anchored edge that windows keep clear of; 0: moved clear of
        /// other surfaces' zones; < 0: extends to the anchored edges regardless.
        public var exclusiveZone: Int32 = 0
        public var margins = Margins()
        public var keyboardInteractivity = KeyboardInteractivity.none

        public init(layer: Layer) {
            self.layer = layer
        }
    }

    public let surface: Surface
    /// The output the client asked for; nil lets the compositor choose.
    public private(set) weak var output: Output?
    /// What the client says the surface is for ("wallpaper", "notifications"…).
    public let namespace: String
    public private(set) var state: State
    private var pending: State
    private weak var owner: LayerShellGlobal?
    private var surfaceDestruction: ResourceDestructionListener?
    /// Configures sent and not yet acknowledged, oldest first (an ack consumes the older ones too).
    private var unacknowledgedSerials: [(serial: UInt32, width: UInt32, height: UInt32)] = []
    /// The size of the last configure sent in this map cycle.
    public private(set) var configuredSize: (width: UInt32, height: UInt32)?
    /// Whether a configure was acknowledged in this map cycle (a buffer may be committed).
    public private(set) var isConfigured = false
    public private(set) var isMapped = false
    /// Whether `close()` told the client it will not be shown again.
    public private(set) var isClosed = false
    /// Popups it took (get_popup), oldest first: dismissed when it unmaps or goes.
    var childPopups: [XdgPopup] = []

    init(client: Client, version: UInt32, id: UInt32, surface: Surface, output: Output?, layer: Layer, namespace: String,
         owner: LayerShellGlobal?) {
        self.surface = surface
        self.output = output
        self.namespace = namespace
        self.owner = owner
        state = State(layer: layer)
        pending = state
        super.init(LayerSurface.self, client: client, version: version, id: id)
    }

    func didAttach() {
        // A surface destroyed before its role object leaves the screen with it.
        surfaceDestruction = ResourceDestructionListener(surface) { [unowned self] in end() }
    }

    /// Asks the client for a size (0: its choice in that dimension); returns the serial.
    @discardableResult
    public func configure(width: UInt32, height: UInt32) -> UInt32 {
        let serial = client.display?.nextSerial() ?? 0
        guard !isClosed else { return serial }
        unacknowledgedSerials.append((serial, width, height))
        configuredSize = (width, height)
        send(.configure(serial: serial, width: width, height: height))
        return serial
    }

    /// Tells the client the surface will not be shown again (its output went away); it is unmapped,
    /// and later commits are ignored.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        send(.closed)
        unmap()
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .setSize(let width, let height):
            guard width <= Self.maximumSize, height <= Self.maximumSize else {
                throw ProtocolError(ZwlrLayerSurfaceV1Error.invalidSize, "size \(width)×\(height) is larger than \(Self.maximumSize)")
            }
            pending.width = width
            pending.height = height
        case .setAnchor(let anchor):
            guard anchor.isKnown else {
                throw ProtocolError(ZwlrLayerSurfaceV1Error.invalidAnchor, "anchor \(anchor.rawValue) has unknown bits")
            }
            pending.anchor = Edges(rawValue: anchor.rawValue)
        case .setExclusiveZone(let zone): pending.exclusiveZone = ClientCoordinate.clamp(zone)
        case .setMargin(let top, let right, let bottom, let left):
            pending.margins = Margins(top: ClientCoordinate.clamp(top), right: ClientCoordinate.clamp(right),
                                      bottom: ClientCoordinate.clamp(bottom), left: ClientCoordinate.clamp(left))
        case .setKeyboardInteractivity(let value):
            guard let interactivity = KeyboardInteractivity(rawValue: value.rawValue), interactivity != .onDemand || version >= 4 else {
                throw ProtocolError(ZwlrLayerSurfaceV1Error.invalidKeyboardInteractivity,
                                    "keyboard interactivity \(value.rawValue) is not one of version \(version)'s")
            }
            pending.keyboardInteractivity = interactivity
        case .getPopup(let popup):
            try popup.attach(to: self)
        case .ackConfigure(let serial):
            guard let index = unacknowledgedSerials.firstIndex(where: { $0.serial == serial }) else {
                throw ProtocolError(ZwlrLayerSurfaceV1Error.invalidSurfaceState,
                                    "ack_configure(\(serial)) does not match a configure awaiting acknowledgement")
            }
            unacknowledgedSerials.removeFirst(index + 1)
            isConfigured = true
        case .destroy: destroy()
        case .setLayer(let value):
            // wlroots posts the shell's invalid_layer code on the layer surface; clients expect that.
            guard let layer = Layer(rawValue: value.rawValue) else {
                throw ProtocolError(ZwlrLayerShellV1Error.invalidLayer, "layer \(value.rawValue) is not a zwlr_layer_shell_v1.layer")
            }
            pending.layer = layer
        }
    }

    func validateCommit(_ surface: Surface, _ requests: PendingSurfaceState) throws(ProtocolError) {
        if pending.width == 0 && !pending.anchor.isSuperset(of: [.left, .right]) {
            throw ProtocolError(ZwlrLayerSurfaceV1Error.invalidSize, "width 0 needs anchors to the left and right edges", on: self)
        }
        if pending.height == 0 && !pending.anchor.isSuperset(of: [.top, .bottom]) {
            throw ProtocolError(ZwlrLayerSurfaceV1Error.invalidSize, "height 0 needs anchors to the top and bottom edges", on: self)
        }
        let attachesBuffer = requests.attached ? requests.buffer != nil : surface.current.buffer != nil
        // Only a configure sent and not acknowledged makes a buffer an error; with none sent in
        // this map cycle, the commit is the initial one and maps at once (surfaceDidCommit).
        if attachesBuffer, !isConfigured, configuredSize != nil, !isClosed {
            throw ProtocolError(ZwlrLayerSurfaceV1Error.invalidSurfaceState,
                                "wl_surface@\(surface.id) committed a buffer before acknowledging a configure", on: self)
        }
    }

    func surfaceDidCommit(_ surface: Surface) {
        guard !isClosed, isAlive else { return }
        state = pending
        if surface.current.buffer == nil {
            if isMapped {
                unmap()
                return
            }
            owner?.handler?.layerSurfaceCommitted(self)
            return
        }
        owner?.handler?.layerSurfaceCommitted(self)
        if !isMapped {
            // The initial commit carried the buffer: the configure it brought counts as accepted.
            isConfigured = true
            isMapped = true
            owner?.handler?.layerSurfaceMapped(self)
        }
    }

    /// Back to the state right after get_layer_surface: a buffer needs a new configure first.
    private func unmap() {
        isConfigured = false
        configuredSize = nil
        unacknowledgedSerials = []
        guard isMapped else { return }
        dismissPopups()
        isMapped = false
        owner?.handler?.layerSurfaceUnmapped(self)
    }

    /// Its popups get popup_done, the newest first (each after the popups on top of it).
    private func dismissPopups() {
        for popup in childPopups.reversed() { popup.sendPopupDone() }
    }

    /// The layer surface or its wl_surface goes away: unmapped once, forgotten by the shell.
    private func end() {
        surfaceDestruction = nil
        dismissPopups()
        unmap()
        owner?.removed(self)
        surface.clearRole(self)
    }

    override func destroyed() {
        end()
    }
}
