internal import CXCB
internal import CXCBComposite
import Foundation
import Glibc
public import Compositor
public import Logging
import Signals
public import SystemCalls
public import WaylandServer

/// What the window manager leaves to the window policy, as `XdgShellHandler` does for xdg-shell.
public protocol XWindowManagerHandler: AnyObject {
    /// A managed (not override-redirect) window is about to be mapped, or asked to be moved or
    /// resized while mapped: the policy gives it its frame and state now (`configure`,
    /// `setFullscreen`).
    func xWindowNeedsPlacement(_ window: XWindow)
    /// A window is mapped and Xwayland's surface for it is known: show it at its frame.
    func xWindowMapped(_ window: XWindow)
    /// A shown window moved or was resized (by its client, for override-redirect windows).
    func xWindowMoved(_ window: XWindow)
    /// A shown window was unmapped or destroyed.
    func xWindowUnmapped(_ window: XWindow)
}

/// Vitrine's X window manager, on the connection Xwayland made for it (`-wm`): it redirects the
/// root's children (so that Xwayland gives each a wl_surface, named by `WL_SURFACE_SERIAL` and
/// xwayland_shell_v1, or by `WL_SURFACE_ID` where Xwayland does not bind that global),
/// answers map and configure requests through its handler (the kiosk policy), keeps each
/// window's title, class, dialog parent and process, and gives X's input focus to the window
/// the compositor focuses. Runs on the compositor's loop; every value a client sets (properties,
/// client messages) is checked before it is used.
public final class XWindowManager {
    let connection: XConnection
    private unowned let compositor: Compositor
    private let logger: Logger
    /// Xwayland's Wayland client, whose surfaces the windows are.
    private var xwayland: Client? { compositor.xwaylandClient }
    /// The window policy. Unowned, not weak (docs/architecture.md: no weak references to what a
    /// frame touches): it outlives the window manager (`XwaylandServer.windowManagerHandler`).
    public unowned var handler: XWindowManagerHandler?
    /// Top-level windows by id, in the order X created them (`windows`).
    private var byID: [UInt32: XWindow] = [:]
    private var order: [UInt32] = []
    /// Windows whose surface id Xwayland sent before the surface reached Vitrine.
    private var unpaired: [UInt32: XWindow] = [:]
    /// Windows whose `WL_SURFACE_SERIAL` came before Xwayland committed the serial on a surface.
    private var unpairedBySerial: [UInt64: XWindow] = [:]
    private let checkWindow: UInt32
    /// The timestamp of the last `_NET_WM_PING` sent.
    private var lastPingTimestamp: UInt32 = 0
    private var source: FileDescriptorSource?
    private var surfaceListener: SignalListener?
    private var associationListener: SignalListener?
    /// CLIPBOARD ⇄ the clipboard and PRIMARY ⇄ the primary selection; none where Xwayland has
    /// no XFixes.
    private var selections: [XSelectionBridge] = []
    private var selectionListener: SignalListener?

    /// Becomes the window manager on `descriptor` (Vitrine's end of Xwayland's `-wm` socket,
    /// taken), for the windows whose surfaces Xwayland's Wayland client
    /// (`compositor.xwaylandClient`) makes on `compositor`.
    public init(connection descriptor: OwnedFileDescriptor, compositor: Compositor, logger: Logger) throws(XWindowManagerError) {
        connection = try XConnection(taking: descriptor)
        self.compositor = compositor
        self.logger = logger
        let raw = connection.raw
        let root = connection.root
        // SubstructureRedirect is granted to one client only: it is what makes a window manager.
        let mask: [UInt32] = [
            UInt32(XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY.rawValue | XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT.rawValue
                | XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)
        ]
        let cookie = xcb_change_window_attributes_checked(raw, root, UInt32(XCB_CW_EVENT_MASK.rawValue), mask)
        if let error = xcb_request_check(raw, cookie) {
            free(error)
            throw .anotherWindowManager
        }
        // Rootless Xwayland gives a wl_surface only to windows redirected by hand.
        xcb_composite_redirect_subwindows(raw, root, UInt8(XCB_COMPOSITE_REDIRECT_MANUAL.rawValue))
        checkWindow = xcb_generate_id(raw)
        xcb_create_window(
            raw, 0, checkWindow, root, 0, 0, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), 0, 0, nil)
        connection.setProperty(connection[.netSupportingWMCheck], of: checkWindow, type: UInt32(XCB_ATOM_WINDOW.rawValue), words: [checkWindow])
        connection.setProperty(connection[.netSupportingWMCheck], of: root, type: UInt32(XCB_ATOM_WINDOW.rawValue), words: [checkWindow])
        connection.setProperty(connection[.netWMName], of: checkWindow, text: "Vitrine")
        let supported: [AtomName] = [.netWMState, .netWMStateFullscreen, .netActiveWindow, .netWMName, .netSupportingWMCheck, .netWMPing]
        connection.setProperty(connection[.netSupported], of: root, type: UInt32(XCB_ATOM_ATOM.rawValue), words: supported.map { connection[$0] })
        do {
            source = try compositor.display.eventLoop.addFileDescriptor(connection.fileDescriptor, events: .readable) { [unowned self] _ in
                dispatch()
            }
        } catch {
            throw .system(error)
        }
        surfaceListener = compositor.surfaceCreated.listen { [unowned self] surface in
            guard surface.client === self.xwayland, let window = unpaired.removeValue(forKey: surface.id) else { return }
            pair(window, with: surface)
        }
        associationListener = compositor.xwaylandSurfaceAssociated.listen { [unowned self] surface in
            guard surface.client === self.xwayland, let serial = surface.xwaylandSerial,
                  let window = unpairedBySerial.removeValue(forKey: serial) else { return }
            pair(window, with: surface)
        }
        selections = [SelectionKind.clipboard, .primary].compactMap { kind in
            XSelectionBridge(kind, connection: connection, seat: compositor.seat, eventLoop: compositor.display.eventLoop, logger: logger)
        }
        if selections.isEmpty { logger.warning("Xwayland has no XFixes: X's selections are not bridged with Wayland's") }
        for bridge in selections { bridge.handleQueuedEvents = { [unowned self] in dispatch() } }
        selectionListener = compositor.selectionChanged.listen { [unowned self] kind in
            selections.first { $0.kind == kind }?.waylandSelectionChanged()
        }
        // Selections set before Xwayland started are X's to paste too.
        for bridge in selections { bridge.waylandSelectionChanged() }
        // Xwayland accepts X clients once WM_S0 has an owner, so it is taken last: the first
        // client finds the Wayland selections already X's (the server handles this connection's
        // requests in order).
        for selection in [AtomName.netWMCMS0, .wmS0] {
            xcb_set_selection_owner(raw, checkWindow, connection[selection], UInt32(XCB_CURRENT_TIME))
        }
        connection.flush()
    }

    deinit {
        for window in byID.values { window.pingTimer?.remove() }
        source?.remove()
        surfaceListener?.cancel()
        associationListener?.cancel()
        selectionListener?.cancel()
    }

    /// The top-level windows, in the order X created them.
    public var windows: [XWindow] { order.compactMap { byID[$0] } }

    /// The window whose surface `surface` is.
    public func window(for surface: Surface) -> XWindow? {
        byID.values.first { $0.surface === surface }
    }

    /// Handles every event X sent, then sends what the handling asked for.
    func dispatch() {
        while let event = xcb_poll_for_event(connection.raw) {
            handle(UnsafeRawPointer(event))
            free(event)
        }
        connection.flush()
        if connection.error != 0 {
            source?.remove()
            source = nil
            // Xwayland went away; XwaylandServer reaps it and drops this window manager.
            logger.info("the X window manager's connection to Xwayland ended")
        }
    }

    private func handle(_ event: UnsafeRawPointer) {
        let responseType = event.load(as: UInt8.self) & 0x7f
        if selections.contains(where: { $0.handle(event, type: responseType) }) { return }
        let type = Int32(responseType)
        switch type {
        case 0:
            let error = event.load(as: xcb_generic_error_t.self)
            logger.debug("X error \(error.error_code) for request \(error.major_code) on resource \(error.resource_id)")
        case XCB_CREATE_NOTIFY:
            created(event.load(as: xcb_create_notify_event_t.self))
        case XCB_DESTROY_NOTIFY:
            destroyed(event.load(as: xcb_destroy_notify_event_t.self).window)
        case XCB_MAP_REQUEST:
            mapRequested(event.load(as: xcb_map_request_event_t.self).window)
        case XCB_MAP_NOTIFY:
            let notify = event.load(as: xcb_map_notify_event_t.self)
            mapped(notify.window, overrideRedirect: notify.override_redirect != 0)
        case XCB_UNMAP_NOTIFY:
            unmapped(event.load(as: xcb_unmap_notify_event_t.self).window)
        case XCB_CONFIGURE_REQUEST:
            configureRequested(event.load(as: xcb_configure_request_event_t.self))
        case XCB_CONFIGURE_NOTIFY:
            configured(event.load(as: xcb_configure_notify_event_t.self))
        case XCB_PROPERTY_NOTIFY:
            let notify = event.load(as: xcb_property_notify_event_t.self)
            if let window = byID[notify.window] { readProperties(of: window, changed: notify.atom) }
        case XCB_CLIENT_MESSAGE:
            clientMessage(event.load(as: xcb_client_message_event_t.self))
        default:
            break
        }
    }

    private func created(_ event: xcb_create_notify_event_t) {
        guard event.parent == connection.root, event.window != checkWindow, !selections.contains(where: { $0.window == event.window }), byID[event.window] == nil else { return }
        let frame = IntRect(x: Int32(event.x), y: Int32(event.y), width: Int32(event.width), height: Int32(event.height))
        let window = XWindow(id: event.window, frame: frame, isOverrideRedirect: event.override_redirect != 0, manager: self)
        byID[event.window] = window
        order.append(event.window)
        let mask: [UInt32] = [UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue | XCB_EVENT_MASK_FOCUS_CHANGE.rawValue)]
        xcb_change_window_attributes(connection.raw, event.window, UInt32(XCB_CW_EVENT_MASK.rawValue), mask)
    }

    private func destroyed(_ id: UInt32) {
        guard let window = byID.removeValue(forKey: id) else { return }
        window.pingTimer?.remove()
        window.pingTimer = nil
        order.removeAll { $0 == id }
        forgetUnpaired(window)
        hide(window)
    }

    private func mapRequested(_ id: UInt32) {
        guard let window = byID[id] else {
            xcb_map_window(connection.raw, id)
            return
        }
        readProperties(of: window, changed: nil)
        window.processID = connection.processID(owning: id)
        handler?.xWindowNeedsPlacement(window)
        // ICCCM's NormalState, no icon window.
        connection.setProperty(connection[.wmState], of: id, type: connection[.wmState], words: [1, 0])
        xcb_map_window(connection.raw, id)
    }

    private func mapped(_ id: UInt32, overrideRedirect: Bool) {
        guard let window = byID[id] else { return }
        window.isMapped = true
        window.isOverrideRedirect = overrideRedirect
        if window.isOverrideRedirect {
            readProperties(of: window, changed: nil)
            window.processID = connection.processID(owning: id)
        }
        showIfReady(window)
    }

    private func unmapped(_ id: UInt32) {
        guard let window = byID[id] else { return }
        window.isMapped = false
        // A window put away is not asked to answer.
        window.pingTimestamp = nil
        window.pingTimer?.disarm()
        forgetUnpaired(window)
        hide(window)
        // Xwayland makes a new surface when the window is mapped again.
        window.surface = nil
        if !window.isOverrideRedirect {
            connection.setProperty(connection[.wmState], of: id, type: connection[.wmState], words: [0, 0])
        }
    }

    private func configureRequested(_ event: xcb_configure_request_event_t) {
        guard let window = byID[event.window] else { return }
        let mask = UInt32(event.value_mask)
        if mask & UInt32(XCB_CONFIG_WINDOW_WIDTH.rawValue) != 0 { window.requestedSize.width = Int32(event.width) }
        if mask & UInt32(XCB_CONFIG_WINDOW_HEIGHT.rawValue) != 0 { window.requestedSize.height = Int32(event.height) }
        if window.isMapped {
            handler?.xWindowNeedsPlacement(window)
            return
        }
        // Before it is mapped, a window is where and as large as it asks; the policy places it
        // when it asks to be mapped.
        var frame = window.frame
        if mask & UInt32(XCB_CONFIG_WINDOW_X.rawValue) != 0 { frame.x = Int32(event.x) }
        if mask & UInt32(XCB_CONFIG_WINDOW_Y.rawValue) != 0 { frame.y = Int32(event.y) }
        frame.width = window.requestedSize.width
        frame.height = window.requestedSize.height
        window.configure(frame)
    }

    private func configured(_ event: xcb_configure_notify_event_t) {
        guard let window = byID[event.window] else { return }
        window.frame = IntRect(x: Int32(event.x), y: Int32(event.y), width: Int32(event.width), height: Int32(event.height))
        if window.isShown { handler?.xWindowMoved(window) }
    }

    private func clientMessage(_ event: xcb_client_message_event_t) {
        guard event.format == 32 else { return }
        if event.window == connection.root, event.type == connection[.wmProtocols], event.data.data32.0 == connection[.netWMPing] {
            return ponged(event.data.data32.2, timestamp: event.data.data32.1)
        }
        guard let window = byID[event.window] else { return }
        switch connection.name(of: event.type) {
        case .wlSurfaceID:
            // An Xwayland that bound xwayland_shell_v1 names surfaces by serial only.
            guard let xwayland, !compositor.xwaylandShell.isBound(by: xwayland) else { return }
            let surfaceID = event.data.data32.0
            if let surface = xwayland.resource(withID: surfaceID) as? Surface {
                pair(window, with: surface)
            } else {
                // Xwayland's Wayland request may not have been read yet: paired when it is.
                unpaired[surfaceID] = window
            }
        case .wlSurfaceSerial:
            // The low 32 bits first; 0 is no serial.
            let serial = UInt64(event.data.data32.1) << 32 | UInt64(event.data.data32.0)
            guard let xwayland, serial != 0 else { return }
            if let surface = compositor.xwaylandShell.surface(withSerial: serial, of: xwayland) {
                pair(window, with: surface)
            } else {
                // Xwayland's commit of the serial may not have been read yet: paired when it is.
                unpairedBySerial[serial] = window
            }
        default:
            // _NET_WM_STATE and _NET_ACTIVE_WINDOW requests are not followed: the kiosk decides.
            break
        }
    }

    private func pair(_ window: XWindow, with surface: Surface) {
        // A surface shows one window: a second claim (a client's forged message) is ignored.
        guard !byID.values.contains(where: { $0.surface === surface }) else { return }
        window.surface = surface
        // What the surface shows is the X client's drawing: the kiosk shell sees its app draw.
        compositor.countBuffers(of: surface, asProcess: window.processID)
        showIfReady(window)
    }

    private func forgetUnpaired(_ window: XWindow) {
        unpaired = unpaired.filter { $0.value !== window }
        unpairedBySerial = unpairedBySerial.filter { $0.value !== window }
    }

    private func showIfReady(_ window: XWindow) {
        guard window.isMapped, window.surface != nil, !window.isShown else { return }
        window.isShown = true
        logger.info("X window \(window.description)\(window.processID.map { " of pid \($0)" } ?? "") mapped at \(window.frame)\(window.isOverrideRedirect ? " (override-redirect)" : "")")
        handler?.xWindowMapped(window)
    }

    private func hide(_ window: XWindow) {
        guard window.isShown else { return }
        window.isShown = false
        handler?.xWindowUnmapped(window)
    }

    /// Reads the properties the window manager keeps (all, or the one that changed).
    private func readProperties(of window: XWindow, changed atom: UInt32?) {
        let wanted: (AtomName) -> Bool = { name in atom == nil || self.connection[name] == atom }
        if wanted(.netWMName) || wanted(.wmName) {
            let value = [AtomName.netWMName, .wmName].lazy.compactMap { self.connection.property(self.connection[$0], of: window.id) }
                .first { !$0.bytes.isEmpty }
            if let value, value.format == 8 {
                // WM_NAME of type STRING is Latin-1; UTF8_STRING and (loosely) COMPOUND_TEXT are read as UTF-8.
                let isLatin1 = value.type == UInt32(XCB_ATOM_STRING.rawValue)
                window.title = isLatin1 ? String(value.bytes.map { Character(Unicode.Scalar($0)) }) : String(decoding: value.bytes, as: UTF8.self)
            } else {
                window.title = nil
            }
        }
        if wanted(.wmClass), let value = connection.property(connection[.wmClass], of: window.id), value.format == 8, !value.bytes.isEmpty {
            let parts = value.bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            window.instanceName = parts.first
            window.className = parts.count > 1 ? parts[1] : nil
        }
        if wanted(.wmTransientFor) {
            let parent = connection.property(connection[.wmTransientFor], of: window.id)?.words.first
            // A window cannot be its own dialog parent, nor one of a chain back to itself.
            var candidate = parent.flatMap { byID[$0] }
            var ancestor = candidate
            for _ in 0..<32 {
                guard let current = ancestor else { break }
                if current === window { candidate = nil; break }
                ancestor = current.transientFor
            }
            window.transientFor = candidate
        }
        let normalHints = UInt32(XCB_ATOM_WM_NORMAL_HINTS.rawValue)
        if atom == nil || atom == normalHints {
            // WM_SIZE_HINTS: flags, four obsolete words, then the minimum width and height,
            // which count when flags has PMinSize (16). Kept within X's 15-bit sizes.
            let words = connection.property(normalHints, of: window.id)?.words ?? []
            if words.count >= 7, words[0] & 16 != 0 {
                let size = { (word: UInt32) in min(max(Int32(bitPattern: word), 0), 32767) }
                window.minimumSize = (size(words[5]), size(words[6]))
            } else {
                window.minimumSize = (0, 0)
            }
        }
        if wanted(.wmProtocols) {
            window.protocols = Set(connection.property(connection[.wmProtocols], of: window.id)?.words ?? [])
        }
    }

    // MARK: _NET_WM_PING

    /// Sends `_NET_WM_PING` to each shown toplevel and dialog that lists it in `WM_PROTOCOLS`, of
    /// a process `belongs` accepts, with the compositor's ping timeout as its deadline. An answer
    /// stops it; otherwise the compositor's `clientUnresponsive` hears the process once, as for
    /// an xdg_wm_base ping (the kiosk shell restarts a hung app). While a ping is unanswered,
    /// another sends nothing and keeps the first deadline.
    public func ping(where belongs: (Int32) -> Bool) {
        for window in windows where window.isShown && !window.isOverrideRedirect && window.pingTimestamp == nil
            && window.protocols.contains(connection[.netWMPing])
        {
            guard let pid = window.processID, belongs(pid) else { continue }
            if window.pingTimer == nil {
                do {
                    window.pingTimer = try compositor.display.eventLoop.addTimer { [weak self, weak window] in
                        if let self, let window { pingTimedOut(window) }
                    }
                } catch {
                    logger.error("cannot ping X window \(window.description): \(error)")
                    continue
                }
            }
            // The timestamp only tells answers apart (EWMH: the client sends the message back
            // unchanged); it never is 0, X's CurrentTime.
            lastPingTimestamp = lastPingTimestamp == UInt32.max ? 1 : lastPingTimestamp + 1
            window.pingTimestamp = lastPingTimestamp
            sendProtocol(.netWMPing, to: window, timestamp: lastPingTimestamp)
            window.pingTimer?.arm(milliseconds: compositor.pingTimeoutMilliseconds)
        }
        connection.flush()
    }

    /// A client sent the ping of `id` back to the root (EWMH's answer).
    private func ponged(_ id: UInt32, timestamp: UInt32) {
        guard let window = byID[id], window.pingTimestamp == timestamp else { return }
        window.pingTimestamp = nil
        window.pingTimer?.disarm()
    }

    private func pingTimedOut(_ window: XWindow) {
        guard window.pingTimestamp != nil else { return }
        window.pingTimestamp = nil
        logger.warning("X window \(window.description)\(window.processID.map { " of pid \($0)" } ?? "") did not answer _NET_WM_PING")
        if let pid = window.processID { compositor.clientUnresponsive?(pid) }
    }

    /// Sends `window`'s client a `WM_PROTOCOLS` message of `protocol` (ICCCM 4.2.8: the
    /// protocol, a timestamp; EWMH's ping adds the window).
    private func sendProtocol(_ protocol: AtomName, to window: XWindow, timestamp: UInt32) {
        var message = xcb_client_message_event_t()
        message.response_type = UInt8(XCB_CLIENT_MESSAGE)
        message.format = 32
        message.window = window.id
        message.type = connection[.wmProtocols]
        message.data.data32.0 = connection[`protocol`]
        message.data.data32.1 = timestamp
        message.data.data32.2 = window.id
        connection.send(message, to: window.id, mask: 0)
    }

    func focus(_ window: XWindow) {
        let raw = connection.raw
        if window.protocols.contains(connection[.wmTakeFocus]) {
            sendProtocol(.wmTakeFocus, to: window, timestamp: UInt32(XCB_CURRENT_TIME))
        }
        xcb_set_input_focus(raw, UInt8(XCB_INPUT_FOCUS_POINTER_ROOT.rawValue), window.id, UInt32(XCB_CURRENT_TIME))
        connection.setProperty(connection[.netActiveWindow], of: connection.root, type: UInt32(XCB_ATOM_WINDOW.rawValue), words: [window.id])
        connection.flush()
    }
}
