internal import CXCB
internal import CXCBXFixes
import Glibc
import Logging
import SystemCalls
import WaylandServer

/// One X selection bridged with the seat's Wayland selection of the same kind, both ways, by
/// the window manager (rootless Xwayland leaves selections to it, as wlroots' and weston's do):
/// `CLIPBOARD` with the clipboard (wl_data_device), `PRIMARY` with the primary selection.
///
/// - X to Wayland: XFixes tells when an X client takes the selection; the bridge asks the owner
///   for its `TARGETS`, and makes them the Wayland selection (`XSelectionOffer`). A Wayland
///   client's paste converts the selection to the target its MIME type came from, into the
///   bridge's window, and the property's bytes are written to the client's pipe.
/// - Wayland to X: when a Wayland client sets the selection, the bridge's window takes the X
///   selection. An X client's `ConvertSelection` is answered with the selection's types
///   (`TARGETS`), or with its data: the Wayland source writes into a pipe the bridge reads, and
///   the bytes are put in the requestor's property.
///
/// Text types map both ways (`UTF8_STRING` ⇄ `text/plain;charset=utf-8`, `TEXT` and `STRING` ⇄
/// `text/plain`); other targets whose names are MIME types (`text/html`, `image/png`) pass as
/// they are. Data goes in one property of at most `maximumBytes`: X's incremental transfer (INCR)
/// is not spoken, so a larger selection is refused rather than cut.
final class XSelectionBridge {
    private let connection: XConnection
    private let seat: SeatGlobal
    private let eventLoop: EventLoop
    private let logger: Logger
    /// Which Wayland selection, and the X selection's atom (`CLIPBOARD` or `PRIMARY`).
    let kind: SelectionKind
    private let selection: UInt32
    /// The window that owns the X selection for Wayland and receives conversions for Wayland.
    let window: UInt32
    /// The X selection's name, for the log.
    private var name: String { kind == .clipboard ? "CLIPBOARD" : "PRIMARY" }
    private let xfixesEvent: UInt8
    /// The most bytes one transfer carries: what fits in one ChangeProperty request, and 16 MiB.
    let maximumBytes: Int
    /// Conversions to one requestor at a time at most: more are refused until some finish.
    static let maximumTransfers = 16

    /// The X owner's data as the Wayland selection, while it is.
    private var offer: XSelectionOffer?
    /// Wayland pastes waiting for the X owner's data, oldest first; the first is being converted.
    private var pastes: [(target: UInt32, descriptor: OwnedFileDescriptor)] = []
    /// Whether the bridge's window owns the X selection for the Wayland selection.
    private var ownsSelection = false
    /// X clients' conversions being read from Wayland sources.
    private var copies: [WaylandToXCopy] = []
    /// Writes of X data into Wayland clients' pipes that did not finish at once.
    private var writes: [PipeWrite] = []

    init?(_ kind: SelectionKind, connection: XConnection, seat: SeatGlobal, eventLoop: EventLoop, logger: Logger) {
        let raw = connection.raw
        guard let version = xcb_xfixes_query_version_reply(raw, xcb_xfixes_query_version(raw, 5, 0), nil) else { return nil }
        free(version)
        guard let extensionData = vitrine_xcb_xfixes_extension(raw), extensionData.pointee.present != 0 else { return nil }
        self.connection = connection
        self.seat = seat
        self.eventLoop = eventLoop
        self.logger = logger
        self.kind = kind
        selection = switch kind {
        case .clipboard: connection[.clipboard]
        case .primary: UInt32(XCB_ATOM_PRIMARY.rawValue)
        }
        xfixesEvent = extensionData.pointee.first_event
        maximumBytes = min(Int(xcb_get_maximum_request_length(raw)) * 4 - 64, 16 << 20)
        window = xcb_generate_id(raw)
        let mask: [UInt32] = [UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)]
        xcb_create_window(
            raw, 0, window, connection.root, -10, -10, 1, 1, 0, UInt16(XCB_WINDOW_CLASS_INPUT_ONLY.rawValue), 0,
            UInt32(XCB_CW_EVENT_MASK.rawValue), mask)
        let events = UInt32(XCB_XFIXES_SELECTION_EVENT_MASK_SET_SELECTION_OWNER.rawValue
            | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_WINDOW_DESTROY.rawValue
            | XCB_XFIXES_SELECTION_EVENT_MASK_SELECTION_CLIENT_CLOSE.rawValue)
        xcb_xfixes_select_selection_input(raw, window, selection, events)
        connection.flush()
    }

    /// Handles `event` when it is about this bridge's selection; false when it is not.
    func handle(_ event: UnsafeRawPointer, type: UInt8) -> Bool {
        switch Int32(type) {
        case XCB_SELECTION_REQUEST:
            let request = event.load(as: xcb_selection_request_event_t.self)
            guard request.owner == window else { return false }
            requested(request)
        case XCB_SELECTION_NOTIFY:
            let notify = event.load(as: xcb_selection_notify_event_t.self)
            guard notify.requestor == window else { return false }
            converted(notify)
        case Int32(xfixesEvent) + XCB_XFIXES_SELECTION_NOTIFY:
            let notify = event.load(as: xcb_xfixes_selection_notify_event_t.self)
            guard notify.window == window else { return false }
            ownerChanged(notify)
        default:
            return false
        }
        return true
    }

    // MARK: X to Wayland

    private func ownerChanged(_ event: xcb_xfixes_selection_notify_event_t) {
        guard event.selection == selection, event.owner != window else { return }
        guard event.owner != 0 else {
            // The X owner went away: its data with it.
            if let offer, seat.selectionProvider(kind) === offer { seat.clearSelection(kind) }
            offer = nil
            return
        }
        // What the new owner offers decides the Wayland selection.
        xcb_convert_selection(connection.raw, window, selection, connection[.targets], connection[.vitrineSelection], event.timestamp)
    }

    private func converted(_ event: xcb_selection_notify_event_t) {
        guard event.selection == selection else { return }
        let value = event.property == 0 ? nil : connection.property(event.property, of: window, delete: true, limitBytes: maximumBytes)
        if event.target == connection[.targets] {
            offerTargets(value?.type == UInt32(XCB_ATOM_ATOM.rawValue) ? value?.words ?? [] : [])
            return
        }
        guard !pastes.isEmpty, pastes[0].target == event.target else { return }
        let paste = pastes.removeFirst()
        if let value, value.type != connection[.incr] {
            write(value.bytes, to: paste.descriptor)
        } else if value?.type == connection[.incr] {
            logger.info("the owner of X's \(name) sends its data incrementally (INCR), which Vitrine does not read: pasted nothing")
        }
        convertNextPaste()
    }

    /// The X owner's targets become the Wayland selection's MIME types.
    private func offerTargets(_ targets: [UInt32]) {
        var types: [(mimeType: String, target: UInt32)] = []
        for target in targets.prefix(256) {
            guard let mimeType = mimeType(of: target), !types.contains(where: { $0.mimeType == mimeType }) else { continue }
            types.append((mimeType, target))
        }
        guard !types.isEmpty else { return }
        let offer = XSelectionOffer(types: types, bridge: self)
        self.offer = offer
        seat.setSelection(offer, kind: kind)
    }

    /// The MIME type a target stands for: the text targets', or a target named like a MIME type.
    private func mimeType(of target: UInt32) -> String? {
        if target == connection[.utf8String] { return "text/plain;charset=utf-8" }
        if target == connection[.text] || target == UInt32(XCB_ATOM_STRING.rawValue) { return "text/plain" }
        guard let name = connection.atomName(target), name.contains("/"), name.utf8.count <= 255,
              name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { return nil }
        return name
    }

    /// A Wayland client pastes the X owner's data as `target`.
    func paste(_ target: UInt32, into descriptor: OwnedFileDescriptor) {
        guard pastes.count < Self.maximumTransfers else { return }
        pastes.append((target, descriptor))
        if pastes.count == 1 { convertNextPaste() }
    }

    private func convertNextPaste() {
        guard let next = pastes.first else { return }
        xcb_convert_selection(connection.raw, window, selection, next.target, connection[.vitrineSelection], UInt32(XCB_CURRENT_TIME))
        connection.flush()
    }

    private func write(_ bytes: [UInt8], to descriptor: OwnedFileDescriptor) {
        guard let write = try? PipeWrite(bytes, to: descriptor, on: eventLoop, finished: { [weak self] done in
            self?.writes.removeAll { $0 === done }
        }) else { return }
        if !write.isFinished { writes.append(write) }
    }

    // MARK: Wayland to X

    /// The Wayland selection changed: the bridge's window owns the X selection while a Wayland
    /// client's selection is there, and lets it go when there is none.
    func waylandSelectionChanged() {
        if let offer, seat.selectionProvider(kind) === offer { return }
        offer = nil
        pastes.removeAll()
        if seat.selectionMimeTypes(kind) != nil {
            xcb_set_selection_owner(connection.raw, window, selection, UInt32(XCB_CURRENT_TIME))
            ownsSelection = true
        } else if ownsSelection {
            xcb_set_selection_owner(connection.raw, 0, selection, UInt32(XCB_CURRENT_TIME))
            ownsSelection = false
        }
        connection.flush()
    }

    private func requested(_ event: xcb_selection_request_event_t) {
        // ICCCM: an obsolete client names no property; the target's name serves.
        let property = event.property == 0 ? event.target : event.property
        let refuse = { self.notify(event, property: 0) }
        guard event.selection == selection, ownsSelection, let mimeTypes = seat.selectionMimeTypes(kind) else { return refuse() }
        if event.target == connection[.targets] {
            var targets = [connection[.targets]]
            for mimeType in mimeTypes {
                switch mimeType {
                case "text/plain;charset=utf-8": targets.append(connection[.utf8String])
                case "text/plain": targets += [connection[.text], UInt32(XCB_ATOM_STRING.rawValue)]
                default: if let atom = connection.atom(named: mimeType) { targets.append(atom) }
                }
            }
            connection.setProperty(property, of: event.requestor, type: UInt32(XCB_ATOM_ATOM.rawValue), words: targets)
            return notify(event, property: property)
        }
        guard let mimeType = mimeType(for: event.target, among: mimeTypes), copies.count < Self.maximumTransfers else { return refuse() }
        do {
            let copy = try WaylandToXCopy(request: event, property: property, limit: maximumBytes, on: eventLoop) { [weak self] copy, bytes in
                self?.finish(copy, bytes: bytes)
            }
            copies.append(copy)
            seat.receiveSelection(mimeType, kind: kind, into: copy.writingEnd)
        } catch {
            logger.warning("cannot copy the Wayland \(kind) selection to an X client: \(error)")
            refuse()
        }
    }

    /// The selection's MIME type an X target asks for, nil when it has none that fits.
    private func mimeType(for target: UInt32, among mimeTypes: [String]) -> String? {
        let utf8 = "text/plain;charset=utf-8"
        if target == connection[.utf8String] { return mimeTypes.contains(utf8) ? utf8 : mimeTypes.first { $0 == "text/plain" } }
        if target == connection[.text] || target == UInt32(XCB_ATOM_STRING.rawValue) {
            return mimeTypes.first { $0 == "text/plain" } ?? (mimeTypes.contains(utf8) ? utf8 : nil)
        }
        return connection.atomName(target).flatMap { name in mimeTypes.contains(name) ? name : nil }
    }

    private func finish(_ copy: WaylandToXCopy, bytes: [UInt8]?) {
        copies.removeAll { $0 === copy }
        guard let bytes else {
            logger.info("the Wayland \(kind) selection holds more than \(maximumBytes) bytes, more than Vitrine gives an X client at once: refused")
            return notify(copy.request, property: 0)
        }
        let type = copy.request.target == connection[.text] ? connection[.utf8String] : copy.request.target
        xcb_change_property(
            connection.raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), copy.request.requestor, copy.property, type, 8, UInt32(bytes.count), bytes)
        notify(copy.request, property: copy.property)
    }

    /// Tells the requestor its conversion is done (in `property`), or refused (0).
    private func notify(_ request: xcb_selection_request_event_t, property: UInt32) {
        var event = xcb_selection_notify_event_t()
        event.response_type = UInt8(XCB_SELECTION_NOTIFY)
        event.time = request.time
        event.requestor = request.requestor
        event.selection = request.selection
        event.target = request.target
        event.property = property
        connection.send(event, to: request.requestor, mask: 0)
        connection.flush()
    }
}

/// The data of an X selection's owner, as the seat's selection of the same kind.
final class XSelectionOffer: SelectionProvider {
    let types: [(mimeType: String, target: UInt32)]
    private weak var bridge: XSelectionBridge?

    init(types: [(mimeType: String, target: UInt32)], bridge: XSelectionBridge) {
        self.types = types
        self.bridge = bridge
    }

    var mimeTypes: [String] { types.map(\.mimeType) }

    func send(_ mimeType: String, into descriptor: OwnedFileDescriptor) {
        guard let target = types.first(where: { $0.mimeType == mimeType })?.target else { return }
        bridge?.paste(target, into: descriptor)
    }

    func selectionReplaced() {}
}

/// Bytes written into a pipe without blocking the compositor: what the pipe does not take at once
/// is written as it drains; the pipe is closed when all is written or its reader goes.
final class PipeWrite {
    private let descriptor: OwnedFileDescriptor
    private var remaining: ArraySlice<UInt8>
    private var source: FileDescriptorSource?
    private let finished: (PipeWrite) -> Void
    private(set) var isFinished = false

    init(_ bytes: [UInt8], to descriptor: OwnedFileDescriptor, on loop: EventLoop, finished: @escaping (PipeWrite) -> Void) throws(SystemCallError) {
        self.descriptor = descriptor
        remaining = bytes[...]
        self.finished = finished
        _ = fcntl(descriptor.rawValue, F_SETFL, fcntl(descriptor.rawValue, F_GETFL) | O_NONBLOCK)
        if writeSome() { return }
        source = try loop.addFileDescriptor(descriptor.fileDescriptor, events: .writable) { [unowned self] _ in
            if writeSome() { finished(self) }
        }
    }

    /// Writes what the pipe takes; true once done (all written, or the reader gone).
    private func writeSome() -> Bool {
        while !remaining.isEmpty {
            let written = remaining.withUnsafeBytes { Glibc.write(descriptor.rawValue, $0.baseAddress, $0.count) }
            if written > 0 {
                remaining = remaining.dropFirst(written)
            } else if written < 0, errno == EINTR {
                continue
            } else if written < 0, errno == EAGAIN {
                return false
            } else {
                break
            }
        }
        isFinished = true
        source?.remove()
        source = nil
        descriptor.close()
        return true
    }
}

/// A Wayland source's data read from a pipe for an X client's conversion, up to a limit.
final class WaylandToXCopy {
    let request: xcb_selection_request_event_t
    let property: UInt32
    /// The end the Wayland source writes into (handed to it).
    let writingEnd: OwnedFileDescriptor
    private let readingEnd: OwnedFileDescriptor
    private var bytes: [UInt8] = []
    private let limit: Int
    private var source: FileDescriptorSource?

    /// `done` gets the bytes once the source closed its end, or nil when they passed `limit`.
    init(
        request: xcb_selection_request_event_t, property: UInt32, limit: Int, on loop: EventLoop,
        done: @escaping (WaylandToXCopy, [UInt8]?) -> Void
    ) throws(SystemCallError) {
        self.request = request
        self.property = property
        self.limit = limit
        var ends: [Int32] = [-1, -1]
        try SystemCallError.check(pipe(&ends), "pipe")
        readingEnd = OwnedFileDescriptor(rawValue: ends[0])
        writingEnd = OwnedFileDescriptor(rawValue: ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        source = try loop.addFileDescriptor(readingEnd.fileDescriptor, events: .readable) { [unowned self] _ in
            guard let result = readSome() else { return }
            source?.remove()
            source = nil
            readingEnd.close()
            done(self, result)
        }
    }

    /// Reads what the pipe holds: nil while more may come; the bytes at end of file, or nil
    /// wrapped when they passed the limit.
    private func readSome() -> [UInt8]?? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(readingEnd.rawValue, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += chunk.prefix(count)
                if bytes.count > limit { return .some(nil) }
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                return nil
            } else {
                return .some(bytes)
            }
        }
    }
}
