import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// The core harness plus a seat ("seat0", every capability, keymap "us", compiled when first needed) and
/// wl_data_device_manager, recording what the seat asks of the compositor.
final class SeatHarness: SeatHandler {
    let base: Harness
    let seat: SeatGlobal
    let dataDeviceManager: DataDeviceManagerGlobal
    private(set) var cursorRequests: [(surface: Surface?, hotspotX: Int32, hotspotY: Int32)] = []
    private(set) var dragLog: [String] = []
    /// How often the clipboard changed.
    private(set) var selectionChanges = 0
    /// What the seat reported of its keymap not compiling.
    private(set) var keymapErrors: [KeymapError] = []

    init(capabilities: SeatCapabilities = [.pointer, .keyboard, .touch], keymapLayout: String = "us") throws {
        base = try Harness()
        seat = SeatGlobal(display: base.display, name: "seat0", capabilities: capabilities, keymapLayout: keymapLayout)
        dataDeviceManager = DataDeviceManagerGlobal(display: base.display)
        seat.handler = self
        try base.client.roundtrip()
    }

    /// The seat's handler is unowned: cleared before the clients' objects go (with `base`).
    deinit {
        seat.handler = nil
    }

    var client: TestClient { base.client }

    func connect() throws -> TestClient {
        try base.connect()
    }

    /// A new wl_surface of `client` and the server's Surface for it.
    func makeSurface(_ client: TestClient) throws -> (proxy: WlSurfaceProxy, surface: Surface) {
        let compositor = try client.bind(WlCompositorProxy.self, version: 5)
        let proxy = try compositor.createSurface()
        try client.roundtrip()
        let surface = try #require(base.surfaces.last)
        #expect(surface.id == proxy.id)
        return (proxy, surface)
    }

    func bindSeat(_ client: TestClient, version: UInt32 = 8) throws -> WlSeatProxy {
        try client.bind(WlSeatProxy.self, version: version)
    }

    func pointer(_ client: TestClient, version: UInt32 = 8) throws -> WlPointerProxy {
        let pointer = try bindSeat(client, version: version).getPointer()
        try client.roundtrip()
        return pointer
    }

    func keyboard(_ client: TestClient, version: UInt32 = 8) throws -> WlKeyboardProxy {
        let keyboard = try bindSeat(client, version: version).getKeyboard()
        try client.roundtrip()
        return keyboard
    }

    func touch(_ client: TestClient, version: UInt32 = 8) throws -> WlTouchProxy {
        let touch = try bindSeat(client, version: version).getTouch()
        try client.roundtrip()
        return touch
    }

    /// A wl_data_device of `client` for the seat (manager and seat bound at `version` and 8).
    func dataDevice(_ client: TestClient, version: UInt32 = 3) throws -> (manager: WlDataDeviceManagerProxy, device: WlDataDeviceProxy) {
        let manager = try client.bind(WlDataDeviceManagerProxy.self, version: version)
        let seatProxy = try bindSeat(client)
        let device = try manager.getDataDevice(seat: seatProxy)
        try client.roundtrip()
        return (manager, device)
    }

    /// A wl_data_source offering `mimeTypes`, with `actions` set when given.
    func dataSource(_ client: TestClient, manager: WlDataDeviceManagerProxy, mimeTypes: [String],
                    actions: WlDataDeviceManagerDndAction? = nil) throws -> WlDataSourceProxy {
        let source = try manager.createDataSource()
        for mimeType in mimeTypes { try source.offer(mimeType: mimeType) }
        if let actions { try source.setActions(dndActions: actions) }
        return source
    }

    /// What a client's roundtrip throws after the server posted error `code` on `object`.
    static func error(_ code: some WaylandEnumeration, on object: TestProxy) -> TestClientError {
        .protocolError(ProtocolErrorReport(code, on: object))
    }

    func cursorRequested(_ seat: SeatGlobal, surface: Surface?, hotspotX: Int32, hotspotY: Int32) {
        cursorRequests.append((surface, hotspotX, hotspotY))
    }

    /// Lets go of the surfaces the cursor requests named.
    func forgetCursorRequests() {
        cursorRequests = []
    }

    func dragStarted(_ seat: SeatGlobal, icon: Surface?) {
        dragLog.append("started icon=\(icon.map { String($0.id) } ?? "none")")
    }

    func dragEnded(_ seat: SeatGlobal) {
        dragLog.append("ended")
    }

    func selectionChanged(_ seat: SeatGlobal, kind: SelectionKind) {
        if kind == .clipboard { selectionChanges += 1 }
    }

    func keymapUnavailable(_ seat: SeatGlobal, error: KeymapError) {
        keymapErrors.append(error)
    }
}

extension WlDataDeviceProxy {
    /// The offers the device introduced with data_offer, in order.
    var offers: [WlDataOfferProxy] {
        events.compactMap { if case .dataOffer(let offer) = $0 { offer } else { nil } }
    }
}

/// The keymap text a keymap event carries, read through a private read-only mapping.
func keymapText(_ keyboard: WlKeyboardProxy, at index: Int = 0) throws -> String {
    let keymaps = keyboard.events.compactMap { event -> (format: WlKeyboardKeymapFormat, fd: FileDescriptor, size: UInt32)? in
        guard case .keymap(let format, let fd, let size) = event else { return nil }
        return (format, fd, size)
    }
    let keymap = try #require(index < keymaps.count ? keymaps[index] : nil)
    #expect(keymap.format == .xkbV1)
    let size = Int(keymap.size)
    let memory = try #require(mmap(nil, size, PROT_READ, MAP_PRIVATE, keymap.fd.rawValue, 0))
    #expect(memory != MAP_FAILED)
    defer { munmap(memory, size) }
    // Sealed against writing: a writable shared mapping is refused.
    #expect(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, keymap.fd.rawValue, 0) == MAP_FAILED)
    return String(cString: memory.assumingMemoryBound(to: CChar.self))
}

/// The symbols of `key` ("AD06") in a keymap's text: the list in the last brackets of its line.
func symbols(of key: String, in keymap: String) -> [String] {
    guard let line = keymap.split(separator: "\n").first(where: { $0.contains("key <\(key)>") }),
          let open = line.lastIndex(of: "["), let close = line[open...].firstIndex(of: "]") else { return [] }
    return line[line.index(after: open)..<close].split(separator: ",").map { String($0.filter { !$0.isWhitespace }) }
}
