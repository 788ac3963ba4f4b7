import WaylandProtocols

/// A toplevel request that the compositor decides on or takes note of (`XdgShellHandler.toplevelRequested`).
public enum XdgToplevelRequest {
    /// The parent changed (already applied: `toplevel.parent`).
    case setParent(XdgToplevel?)
    /// The title or app id changed (already applied).
    case setTitle(String)
    case setAppID(String)
    case showWindowMenu(seat: Resource?, serial: UInt32, x: Int32, y: Int32)
    case move(seat: Resource?, serial: UInt32)
    case resize(seat: Resource?, serial: UInt32, edges: XdgToplevel.ResizeEdge)
    case setMaximized
    case unsetMaximized
    /// `output` is the client's preference (nil: the compositor chooses).
    case setFullscreen(output: Output?)
    case unsetFullscreen
    case setMinimized
}

/// xdg_toplevel: an application window. Its title, app id and parent apply at once; its minimum
/// and maximum sizes apply with the next commit; its size and states are the compositor's, sent
/// with `configure` and acknowledged by the client.
public final class XdgToplevel: Resource, RequestHandler, XdgSurfaceRole {
    static let roleName = "xdg_toplevel"
    var roleName: String { Self.roleName }

    /// xdg_toplevel.state values; configure sends them in this order.
    public struct States: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let maximized = States(rawValue: 1 << 1)
        public static let fullscreen = States(rawValue: 1 << 2)
        public static let resizing = States(rawValue: 1 << 3)
        public static let activated = States(rawValue: 1 << 4)
        public static let tiledLeft = States(rawValue: 1 << 5)
        public static let tiledRight = States(rawValue: 1 << 6)
        public static let tiledTop = States(rawValue: 1 << 7)
        public static let tiledBottom = States(rawValue: 1 << 8)
        /// Set by the toplevel from `isSuspended`, not by callers of `configure`.
        public static let suspended = States(rawValue: 1 << 9)

        /// The protocol's enum values of the states set (state n is bit n).
        var protocolValues: [UInt32] { (1...9).filter { rawValue & (1 << $0) != 0 } }
    }

    /// What the compositor asked the client for in one configure.
    public struct Configuration: Equatable, Sendable {
        /// Window-geometry size; 0 lets the client choose that dimension.
        public var width: Int32
        public var height: Int32
        public var states: States

        public init(width: Int32, height: Int32, states: States) {
            self.width = width
            self.height = height
            self.states = states
        }
    }

    /// xdg_toplevel.wm_capabilities values.
    public enum Capability: UInt32, Sendable, CaseIterable {
        case windowMenu = 1, maximize, fullscreen, minimize
    }

    /// xdg_toplevel.resize_edge values.
    public enum ResizeEdge: UInt32, Sendable, CaseIterable {
        case none = 0, top = 1, bottom = 2, left = 4, topLeft = 5, bottomLeft = 6, right = 8, topRight = 9, bottomRight = 10
    }

    public let xdgSurface: XdgSurface
    public var surface: Surface { xdgSurface.surface }
    public private(set) var title: String?
    public private(set) var appID: String?
    public private(set) weak var parent: XdgToplevel?
    /// Committed size limits in window-geometry coordinates; 0 means no limit in that dimension.
    public private(set) var minSize = SurfaceSize(width: 0, height: 0)
    public private(set) var maxSize = SurfaceSize(width: 0, height: 0)
    private var pendingMinSize: SurfaceSize?
    private var pendingMaxSize: SurfaceSize?
    /// Configures sent and not yet acknowledged, oldest first.
    private var sentConfigurations: [(serial: UInt32, configuration: Configuration)] = []
    private var lastSentConfiguration: Configuration?
    private var acknowledgedConfiguration: Configuration?
    /// The configuration the client acknowledged and then committed: what it shows now.
    public private(set) var currentConfiguration: Configuration?
    private var sentCapabilities = false
    /// Whether the window is not being repainted (hidden under another, or its display is off):
    /// every configure carries the suspended state while it is set (version 6), and a change is
    /// sent at once with the last configuration. Cleared when the toplevel unmaps.
    public var isSuspended = false {
        didSet {
            guard isSuspended != oldValue, version >= 6 else { return }
            reconfigure()
        }
    }
    /// The zxdg_toplevel_decoration_v1 object while it exists.
    weak var decoration: XdgToplevelDecoration?

    init(client: Client, version: UInt32, id: UInt32, xdgSurface: XdgSurface) {
        self.xdgSurface = xdgSurface
        super.init(XdgToplevel.self, client: client, version: version, id: id)
    }

    public var windowGeometry: IntRect { xdgSurface.windowGeometry }
    public var isMapped: Bool { xdgSurface.isMapped }
    public var isConfigured: Bool { xdgSurface.isConfigured }
    public var lastAckedSerial: UInt32? { xdgSurface.lastAckedSerial }

    private var handler: XdgShellHandler? { xdgSurface.shell?.handler }

    /// Sends a configure sequence: wm_capabilities before the first one (v5), configure_bounds
    /// when `bounds` is given (v4), xdg_toplevel.configure with `states` (and suspended while
    /// `isSuspended`), then xdg_surface.configure, whose serial it returns. Call it in answer to `toplevelNeedsInitialConfigure` and whenever the
    /// compositor changes the window's size or states.
    @discardableResult
    public func configure(width: Int32, height: Int32, states: States, bounds: SurfaceSize? = nil) -> UInt32 {
        if !sentCapabilities {
            let capabilities = xdgSurface.shell?.toplevelCapabilities ?? []
            send(.wmCapabilities(capabilities: Self.bytes(capabilities.map(\.rawValue))))
            sentCapabilities = true
        }
        if let bounds { send(.configureBounds(width: bounds.width, height: bounds.height)) }
        var sent = states.subtracting(.suspended)
        if isSuspended && version >= 6 { sent.insert(.suspended) }
        // Tiled states came with version 2.
        if version < 2 { sent.subtract([.tiledLeft, .tiledRight, .tiledTop, .tiledBottom]) }
        send(.configure(width: width, height: height, states: Self.bytes(sent.protocolValues)))
        let configuration = Configuration(width: width, height: height, states: sent)
        let serial = xdgSurface.sendConfigure()
        sentConfigurations.append((serial, configuration))
        lastSentConfiguration = configuration
        return serial
    }

    /// Asks the client to close the window (it may ask the user first, or ignore it).
    public func sendClose() {
        send(.close)
    }

    /// Repeats the last configuration with a new serial, when an extension's state (the decoration
    /// mode) changed and needs an xdg_surface.configure; before the first configure it waits for it.
    func reconfigure() {
        guard let last = lastSentConfiguration else { return }
        configure(width: last.width, height: last.height, states: last.states)
    }

    /// The advertised capabilities changed: they go out again with a new configure sequence.
    func capabilitiesChanged() {
        sentCapabilities = false
        reconfigure()
    }

    /// Arrays of uint32 in native byte order, as the protocol sends states and capabilities.
    private static func bytes(_ values: [UInt32]) -> [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value) { Array($0) } }
    }

    func didAttach() {
        xdgSurface.shell?.add(self)
        handler?.toplevelCreated(self)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy:
            if let decoration, decoration.isAlive {
                throw ProtocolError(ZxdgToplevelDecorationV1Error.orphaned, "xdg_toplevel@\(id) destroyed before its decoration",
                                    on: decoration)
            }
            destroy()
        case .setParent(let parent): try setParent(parent)
        case .setTitle(let title):
            self.title = title
            handler?.toplevelRequested(self, .setTitle(title))
        case .setAppID(let appID):
            self.appID = appID
            handler?.toplevelRequested(self, .setAppID(appID))
        case .showWindowMenu(let seat, let serial, let x, let y):
            handler?.toplevelRequested(self, .showWindowMenu(
                seat: seat, serial: serial, x: ClientCoordinate.clamp(x), y: ClientCoordinate.clamp(y)))
        case .move(let seat, let serial): handler?.toplevelRequested(self, .move(seat: seat, serial: serial))
        case .resize(let seat, let serial, let value):
            guard let edges = ResizeEdge(rawValue: value.rawValue) else {
                throw ProtocolError(XdgToplevelError.invalidResizeEdge, "\(value.rawValue) is not an xdg_toplevel.resize_edge")
            }
            handler?.toplevelRequested(self, .resize(seat: seat, serial: serial, edges: edges))
        case .setMaxSize(let width, let height): pendingMaxSize = try size(width, height, "set_max_size")
        case .setMinSize(let width, let height): pendingMinSize = try size(width, height, "set_min_size")
        case .setMaximized: handler?.toplevelRequested(self, .setMaximized)
        case .unsetMaximized: handler?.toplevelRequested(self, .unsetMaximized)
        case .setFullscreen(let output): handler?.toplevelRequested(self, .setFullscreen(output: output?.owner))
        case .unsetFullscreen: handler?.toplevelRequested(self, .unsetFullscreen)
        case .setMinimized: handler?.toplevelRequested(self, .setMinimized)
        }
    }

    private func size(_ width: Int32, _ height: Int32, _ request: String) throws(ProtocolError) -> SurfaceSize {
        let size = SurfaceSize(width: ClientCoordinate.clamp(width), height: ClientCoordinate.clamp(height))
        guard size.width >= 0, size.height >= 0 else {
            throw ProtocolError(XdgToplevelError.invalidSize, "\(request)(\(size)) is negative")
        }
        return size
    }

    private func setParent(_ candidate: XdgToplevel?) throws(ProtocolError) {
        var ancestor = candidate
        while let node = ancestor {
            if node === self {
                throw ProtocolError(XdgToplevelError.invalidParent,
                                    "xdg_toplevel@\(candidate?.id ?? 0) is xdg_toplevel@\(id) or one of its descendants")
            }
            ancestor = node.parent
        }
        // Only mapped toplevels have children: an unmapped parent means none.
        let parent = candidate.flatMap { $0.isMapped ? $0 : nil }
        guard parent !== self.parent else { return }
        self.parent = parent
        handler?.toplevelRequested(self, .setParent(parent))
    }

    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError) {
        let minimum = pendingMinSize ?? minSize, maximum = pendingMaxSize ?? maxSize
        if (maximum.width > 0 && minimum.width > maximum.width) || (maximum.height > 0 && minimum.height > maximum.height) {
            throw ProtocolError(XdgToplevelError.invalidSize,
                                "minimum size \(minimum) exceeds maximum size \(maximum)", on: self)
        }
    }

    func surfaceDidCommit(_ surface: Surface) {
        xdgSurface.surfaceDidCommit()
    }

    func applyPendingState() {
        if let pendingMinSize { minSize = pendingMinSize }
        if let pendingMaxSize { maxSize = pendingMaxSize }
        pendingMinSize = nil
        pendingMaxSize = nil
        if let acknowledgedConfiguration { currentConfiguration = acknowledgedConfiguration }
    }

    func initialCommitDidHappen() {
        handler?.toplevelNeedsInitialConfigure(self)
    }

    let mayMap = true

    func didMap() {
        handler?.toplevelMapped(self)
    }

    /// Unmapping returns the toplevel to its state right after get_toplevel (the protocol
    /// discards title, app id, states and the rest); its children take its parent.
    func didUnmap() {
        for child in xdgSurface.shell?.toplevels ?? [] where child.parent === self { child.parent = parent }
        title = nil
        appID = nil
        parent = nil
        minSize = SurfaceSize(width: 0, height: 0)
        maxSize = minSize
        pendingMinSize = nil
        pendingMaxSize = nil
        sentConfigurations = []
        lastSentConfiguration = nil
        acknowledgedConfiguration = nil
        currentConfiguration = nil
        sentCapabilities = false
        // Without a configure to repeat, clearing it sends nothing.
        isSuspended = false
        handler?.toplevelUnmapped(self)
    }

    func configureAcknowledged(_ serial: UInt32) {
        guard let index = sentConfigurations.firstIndex(where: { $0.serial == serial }) else { return }
        acknowledgedConfiguration = sentConfigurations[index].configuration
        sentConfigurations.removeFirst(index + 1)
    }

    override func destroyed() {
        decoration?.toplevelDestroyed()
        guard xdgSurface.toplevel === self else { return }
        xdgSurface.roleDestroyed(self)
        xdgSurface.shell?.remove(self)
        handler?.toplevelDestroyed(self)
    }
}
