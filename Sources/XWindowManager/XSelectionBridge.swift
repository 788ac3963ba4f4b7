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
///   bridge's window, and the property's bytes are written to the client's pipe; an owner that
///   answers `INCR` sends them chunk by chunk, each read (and deleted) once the pipe took the
///   last.
/// - Wayland to X: when a Wayland client sets the selection, the bridge's window takes the X
///   selection. An X client's `ConvertSelection` is answered with the selection's types
///   (`TARGETS`), or with its data: the Wayland source writes into a pipe the bridge reads, and
///   the bytes are put in the requestor's property, at once when they end within one chunk,
///   otherwise incrementally (ICCCM's `INCR`: a chunk each time the requestor deleted the last).
///
/// Text types map both ways (`UTF8_STRING` ⇄ `text/plain;charset=utf-8`, `TEXT` and `STRING` ⇄
/// `text/plain`); other targets whose names are MIME types (`text/html`, `image/png`) pass as
/// they are. Against clients that send without end or stop half-way: at most
/// `maximumTransfers` transfers each way, at most two chunks held for each, and a transfer that
/// makes no progress for `stallMilliseconds` is given up.
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
    /// The most bytes of one property read: what fits in one ChangeProperty request, and 16 MiB.
    let maximumPropertyBytes: Int
    /// The bytes of one chunk of an incremental transfer to an X client; data that ends within
    /// one chunk goes in one property.
    let chunkBytes: Int
    /// Transfers each way at most: more are refused until some finish.
    static let maximumTransfers = 16
    /// How long a transfer may make no progress before it is given up.
    static let stallMilliseconds: Int32 = 5000

    /// The X owner's data as the Wayland selection, while it is.
    private var offer: XSelectionOffer?
    /// Wayland pastes waiting for the X owner's data, oldest first; the first is being converted.
    private var pastes: [XToWaylandPaste] = []
    /// The deadline of the paste being converted.
    private var pasteStall: TimerSource?
    /// Pipes of finished pastes still being written (each closed `stallMilliseconds` after its
    /// paste ended, whatever its reader has not taken).
    private var finishing: [PipeWriter] = []
    /// Whether the bridge's window owns the X selection for the Wayland selection.
    private var ownsSelection = false
    /// X clients' conversions being read from Wayland sources.
    private var copies: [WaylandToXCopy] = []
    /// Handles the events xcb queued meanwhile: called after the bridge waited for replies from
    /// outside the connection's own callback (a pipe's), since queued events leave nothing to
    /// read on the connection's descriptor to wake the loop.
    var handleQueuedEvents: () -> Void = {}

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
        maximumPropertyBytes = min(Int(xcb_get_maximum_request_length(raw)) * 4 - 64, 16 << 20)
        chunkBytes = min(maximumPropertyBytes, 256 << 10)
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

    deinit {
        pasteStall?.remove()
        for copy in copies { copy.stall?.remove() }
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
        case XCB_PROPERTY_NOTIFY:
            return propertyChanged(event.load(as: xcb_property_notify_event_t.self))
        case Int32(xfixesEvent) + XCB_XFIXES_SELECTION_NOTIFY:
            let notify = event.load(as: xcb_xfixes_selection_notify_event_t.self)
            guard notify.window == window else { return false }
            ownerChanged(notify)
        default:
            return false
        }
        return true
    }

    /// A property of the bridge's window (a chunk from an X owner) or of a requestor (which
    /// deleted a chunk it was given) changed.
    private func propertyChanged(_ event: xcb_property_notify_event_t) -> Bool {
        if event.window == window {
            if event.atom == connection[.vitrineSelection], event.state == UInt8(XCB_PROPERTY_NEW_VALUE.rawValue) { chunkArrived() }
            return true
        }
        guard event.state == UInt8(XCB_PROPERTY_DELETE.rawValue),
              let copy = copies.first(where: { $0.isIncremental && $0.request.requestor == event.window && $0.property == event.atom })
        else { return false }
        copy.requestorWaits = true
        progress(copy)
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
        xcb_convert_selection(connection.raw, window, selection, connection[.targets], connection[.vitrineTargets], event.timestamp)
    }

    private func converted(_ event: xcb_selection_notify_event_t) {
        guard event.selection == selection else { return }
        if event.target == connection[.targets] {
            let value = event.property == 0 ? nil : connection.property(event.property, of: window, delete: true)
            offerTargets(value?.type == UInt32(XCB_ATOM_ATOM.rawValue) ? value?.words ?? [] : [])
            return
        }
        guard let paste = pastes.first, paste.target == event.target, !paste.isIncremental else { return }
        let value = event.property == 0 ? nil : connection.property(event.property, of: window, delete: true, limitBytes: maximumPropertyBytes)
        if value?.type == connection[.incr] {
            // Deleting INCR asked for the first chunk.
            paste.isIncremental = true
            pasteStall?.arm(milliseconds: Self.stallMilliseconds)
            return
        }
        if let value { paste.writer.write(value.bytes) }
        pasteDone()
    }

    /// An X owner put the next chunk of an incremental transfer in the bridge's window: it is
    /// read once the pipe took the last.
    private func chunkArrived() {
        guard let paste = pastes.first, paste.isIncremental else { return }
        if paste.writer.pendingCount == 0 {
            readChunk(of: paste)
        } else {
            paste.chunkWaits = true
        }
    }

    private func readChunk(of paste: XToWaylandPaste) {
        paste.chunkWaits = false
        pasteStall?.arm(milliseconds: Self.stallMilliseconds)
        // Reading deletes the chunk, which asks the owner for the next; an empty one ends the data.
        guard let value = connection.property(connection[.vitrineSelection], of: window, delete: true, limitBytes: maximumPropertyBytes),
              !value.bytes.isEmpty
        else { return pasteDone() }
        paste.writer.write(value.bytes)
        connection.flush()
        if paste.writer.isClosed { pasteDone() }
    }

    /// The paste under way got all it gets: its pipe is closed once written, and the next
    /// paste is converted.
    private func pasteDone() {
        guard !pastes.isEmpty else { return }
        let paste = pastes.removeFirst()
        paste.writer.finish(closingAfter: Self.stallMilliseconds)
        if !paste.writer.isClosed {
            finishing.append(paste.writer)
            paste.writer.drained = { [weak self] writer in
                if writer.isClosed { self?.finishing.removeAll { $0 === writer } }
            }
        }
        pasteStall?.disarm()
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
        if pasteStall == nil {
            pasteStall = try? eventLoop.addTimer { [weak self] in self?.pasteStalled() }
        }
        guard pasteStall != nil else { return }
        let paste = XToWaylandPaste(target: target, writer: PipeWriter(descriptor, on: eventLoop))
        paste.writer.drained = { [weak self, unowned paste] writer in
            guard let self, pastes.first === paste else { return }
            if writer.isClosed {
                // The Wayland client stopped reading.
                pasteDone()
            } else if paste.chunkWaits {
                readChunk(of: paste)
                handleQueuedEvents()
            }
        }
        pastes.append(paste)
        if pastes.count == 1 { convertNextPaste() }
    }

    private func convertNextPaste() {
        guard let next = pastes.first else { return }
        xcb_convert_selection(connection.raw, window, selection, next.target, connection[.vitrineSelection], UInt32(XCB_CURRENT_TIME))
        connection.flush()
        pasteStall?.arm(milliseconds: Self.stallMilliseconds)
    }

    private func pasteStalled() {
        guard let paste = pastes.first else { return }
        if paste.writer.pendingCount > 0 {
            // The Wayland client stopped reading: what the bridge holds for it goes.
            logger.info("a Wayland paste of X's \(name) took nothing for \(Self.stallMilliseconds) ms: given up")
            paste.writer.close()
        } else {
            logger.info("the owner of X's \(name) sent nothing for \(Self.stallMilliseconds) ms: the Wayland paste ends there")
        }
        pasteDone()
    }

    // MARK: Wayland to X

    /// The Wayland selection changed: the bridge's window owns the X selection while a Wayland
    /// client's selection is there, and lets it go when there is none.
    func waylandSelectionChanged() {
        if let offer, seat.selectionProvider(kind) === offer { return }
        offer = nil
        // Pastes of the X owner's data that were not answered get nothing more.
        for paste in pastes { paste.writer.finish(closingAfter: Self.stallMilliseconds) }
        pastes.removeAll()
        pasteStall?.disarm()
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
            let copy = try WaylandToXCopy(request: event, property: property, reader: PipeReader(limit: 2 * chunkBytes, on: eventLoop))
            copy.stall = try eventLoop.addTimer { [weak self, weak copy] in
                guard let self, let copy else { return }
                logger.info("an X client's conversion of the Wayland \(kind) selection made no progress for \(Self.stallMilliseconds) ms: given up")
                if !copy.isIncremental { notify(copy.request, property: 0) }
                end(copy)
            }
            copy.reader.received = { [weak self, unowned copy] in
                self?.progress(copy)
                self?.handleQueuedEvents()
            }
            copies.append(copy)
            copy.stall?.arm(milliseconds: Self.stallMilliseconds)
            seat.receiveSelection(mimeType, kind: kind, into: copy.reader.writingEnd)
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

    /// The Wayland source wrote more (or ended), or the requestor deleted the last chunk: what
    /// can go to the requestor now goes.
    private func progress(_ copy: WaylandToXCopy) {
        copy.stall?.arm(milliseconds: Self.stallMilliseconds)
        let reader = copy.reader
        guard copy.isIncremental else {
            if reader.isEnded, reader.count <= chunkBytes {
                put(reader.take(reader.count), for: copy)
                notify(copy.request, property: copy.property)
                end(copy)
            } else if reader.count > chunkBytes, !beginIncremental(copy) {
                notify(copy.request, property: 0)
                end(copy)
            }
            return
        }
        guard copy.requestorWaits else { return }
        if reader.count >= chunkBytes || (reader.isEnded && reader.count > 0) {
            copy.requestorWaits = false
            put(reader.take(chunkBytes), for: copy)
            connection.flush()
        } else if reader.isEnded {
            // An empty chunk ends the transfer.
            put([], for: copy)
            connection.flush()
            end(copy)
        }
    }

    /// Starts an incremental transfer (ICCCM 2.7.2): the requestor's property becomes `INCR`
    /// with a lower bound of the size, and each time the requestor deletes the property, the
    /// next chunk is put there, an empty one last. The bridge listens to the requestor's
    /// property changes for it (adding to its own event mask there, which the window manager
    /// may use already); false when the requestor is gone.
    private func beginIncremental(_ copy: WaylandToXCopy) -> Bool {
        let raw = connection.raw
        let requestor = copy.request.requestor
        guard let attributes = xcb_get_window_attributes_reply(raw, xcb_get_window_attributes(raw, requestor), nil) else { return false }
        let mask = [attributes.pointee.your_event_mask | UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)]
        free(attributes)
        xcb_change_window_attributes(raw, requestor, UInt32(XCB_CW_EVENT_MASK.rawValue), mask)
        connection.setProperty(copy.property, of: requestor, type: connection[.incr], words: [UInt32(clamping: copy.reader.count)])
        copy.isIncremental = true
        notify(copy.request, property: copy.property)
        return true
    }

    /// Puts `bytes` in the requestor's property, typed as the target asked for (`TEXT` is
    /// answered as `UTF8_STRING`).
    private func put(_ bytes: [UInt8], for copy: WaylandToXCopy) {
        let type = copy.request.target == connection[.text] ? connection[.utf8String] : copy.request.target
        xcb_change_property(
            connection.raw, UInt8(XCB_PROP_MODE_REPLACE.rawValue), copy.request.requestor, copy.property, type, 8, UInt32(bytes.count), bytes)
    }

    private func end(_ copy: WaylandToXCopy) {
        copy.stall?.remove()
        copy.stall = nil
        copies.removeAll { $0 === copy }
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

/// A Wayland client's paste of an X owner's data, written into the client's pipe.
final class XToWaylandPaste {
    let target: UInt32
    let writer: PipeWriter
    /// The owner answered `INCR`: the data comes in chunks.
    var isIncremental = false
    /// A chunk arrived while the pipe was still taking the last.
    var chunkWaits = false

    init(target: UInt32, writer: PipeWriter) {
        self.target = target
        self.writer = writer
    }
}

/// An X client's conversion of the Wayland selection: the source's data read from a pipe and put
/// in the requestor's property.
final class WaylandToXCopy {
    let request: xcb_selection_request_event_t
    let property: UInt32
    let reader: PipeReader
    /// Its deadline, moved on by every progress.
    var stall: TimerSource?
    /// The data goes in chunks (`INCR`).
    var isIncremental = false
    /// The requestor deleted the last chunk (or `INCR`) and waits for the next.
    var requestorWaits = false

    init(request: xcb_selection_request_event_t, property: UInt32, reader: PipeReader) {
        self.request = request
        self.property = property
        self.reader = reader
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

