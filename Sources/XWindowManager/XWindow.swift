internal import CXCB
public import WaylandServer

/// A top-level X window (a child of the root) as the window manager knows it: where X has it,
/// what its client says about it, and its Wayland surface once Xwayland named it.
public final class XWindow: CustomStringConvertible {
    /// The X window's id.
    public let id: UInt32
    /// Menus, tooltips and drop-downs place themselves (override-redirect): the window manager
    /// only shows them where X has them. A client may set it after creating the window (Tk's
    /// menus do), so it is read again when the window is mapped.
    public internal(set) var isOverrideRedirect: Bool
    /// Where X has the window, in root coordinates (the primary output's points).
    public internal(set) var frame: IntRect
    /// The size the client last asked for (at creation, or in a ConfigureRequest).
    public internal(set) var requestedSize: (width: Int32, height: Int32)
    /// The smallest size the client can be used at (`WM_NORMAL_HINTS`' minimum size), (0, 0) when
    /// it names none.
    public internal(set) var minimumSize: (width: Int32, height: Int32) = (0, 0)
    /// `_NET_WM_NAME`, else `WM_NAME`.
    public internal(set) var title: String?
    /// `WM_CLASS`: the resource's instance and class names.
    public internal(set) var instanceName: String?
    public internal(set) var className: String?
    /// The window it is a dialog of (`WM_TRANSIENT_FOR`), while that window exists.
    public internal(set) weak var transientFor: XWindow?
    /// The process of the X client that made it, where X-Resource tells.
    public internal(set) var processID: Int32?
    /// Whether X has it mapped.
    public internal(set) var isMapped = false
    /// Xwayland's surface for it while it is mapped (after `WL_SURFACE_ID`) and not destroyed.
    public internal(set) var surface: Surface? {
        get { surfaceReference?.surface }
        set { surfaceReference = newValue.map(LiveSurfaceReference.init) }
    }
    /// Strong, not weak (docs/architecture.md: a weak reference would give the surface, which
    /// every frame retains, a side table): let go of when the window unmaps or the surface is
    /// destroyed.
    private var surfaceReference: LiveSurfaceReference?
    var protocols: Set<UInt32> = []
    /// Whether the handler was told it is shown.
    var isShown = false
    /// The timestamp of the `_NET_WM_PING` sent and not yet answered, and its deadline's timer.
    var pingTimestamp: UInt32?
    var pingTimer: TimerSource?
    unowned let manager: XWindowManager

    init(id: UInt32, frame: IntRect, isOverrideRedirect: Bool, manager: XWindowManager) {
        self.id = id
        self.frame = frame
        self.isOverrideRedirect = isOverrideRedirect
        self.manager = manager
        requestedSize = (frame.width, frame.height)
    }

    /// Moves and resizes the window (no border), and tells the client its place with a synthetic
    /// ConfigureNotify, as ICCCM asks of a window manager (X sends none when nothing changes).
    public func configure(_ frame: IntRect) {
        let connection = manager.connection
        let mask = UInt16(XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
            | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_BORDER_WIDTH.rawValue)
        let width = UInt32(max(1, frame.width))
        let height = UInt32(max(1, frame.height))
        let values: [UInt32] = [UInt32(bitPattern: frame.x), UInt32(bitPattern: frame.y), width, height, 0]
        xcb_configure_window(connection.raw, id, mask, values)
        var notify = xcb_configure_notify_event_t()
        notify.response_type = UInt8(XCB_CONFIGURE_NOTIFY)
        notify.event = id
        notify.window = id
        notify.x = Int16(clamping: frame.x)
        notify.y = Int16(clamping: frame.y)
        notify.width = UInt16(clamping: width)
        notify.height = UInt16(clamping: height)
        connection.send(notify, to: id, mask: UInt32(XCB_EVENT_MASK_STRUCTURE_NOTIFY.rawValue))
        connection.flush()
    }

    /// Sets `_NET_WM_STATE` to fullscreen, or to nothing.
    public func setFullscreen(_ fullscreen: Bool) {
        let connection = manager.connection
        connection.setProperty(
            connection[.netWMState], of: id, type: UInt32(XCB_ATOM_ATOM.rawValue),
            words: fullscreen ? [connection[.netWMStateFullscreen]] : [])
        connection.flush()
    }

    /// Gives the window X's input focus (and `WM_TAKE_FOCUS` to a client that asks for it), and
    /// names it `_NET_ACTIVE_WINDOW`.
    public func focus() {
        manager.focus(self)
    }

    /// Whether a `_NET_WM_PING` sent to the window is still unanswered.
    public var isAwaitingPong: Bool { pingTimestamp != nil }

    /// "0x… 'title' (instance, class)", as the log names it.
    public var description: String {
        let name = title.map { " '\($0)'" } ?? ""
        let kind = [instanceName, className].compactMap { $0 }.joined(separator: ", ")
        return "0x\(String(id, radix: 16))\(name)\(kind.isEmpty ? "" : " (\(kind))")"
    }
}
