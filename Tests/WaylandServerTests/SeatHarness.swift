import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// The core harness plus a seat ("seat0", every capability, keymap "us") and
/// wl_data_device_manager, recording what the seat asks of the compositor.
final class SeatHarness: SeatHandler {
    let base: Harness
    let seat: SeatGlobal
    let dataDeviceManager: DataDeviceManagerGlobal
    private(set) var cursorRequests: [(surface: Surface?, hotspotX: Int32, hotspotY: Int32)] = []
    private(set) var dragLog: [String] = []
    private(set) var selectionChanges = 0

    init(capabilities: SeatCapabilities = [.pointer, .keyboard, .touch]) throws {
        base = try Harness()
        seat = try SeatGlobal(display: base.display, name: "seat0", capabilities: capabilities)
        try seat.setKeymap(layout: "us")
        dataDeviceManager = DataDeviceManagerGlobal(display: base.display)
        seat.handler = self
        try base.client.roundtrip()
    }

    var client: TestClient { base.client }

    func connect() throws -> TestClient {
        try base.connect()
    }

    /// A new wl_surface of `client` and the server's Surface for it.
    func makeSurface(_ client: TestClient) throws -> (proxy: TestProxy, surface: Surface) {
        let compositor = try client.bind("wl_compositor", version: 5)
        let proxy = try compositor.send(0, [.newID], interface: "wl_surface")
        try client.roundtrip()
        let surface = try #require(base.surfaces.last)
        #expect(surface.id == proxy.id)
        return (proxy, surface)
    }

    func bindSeat(_ client: TestClient, version: UInt32 = 8) throws -> TestProxy {
        try client.bind("wl_seat", version: version)
    }

    func pointer(_ client: TestClient, version: UInt32 = 8) throws -> TestProxy {
        let pointer = try bindSeat(client, version: version).send(0, [.newID], interface: "wl_pointer")
        try client.roundtrip()
        return pointer
    }

    func keyboard(_ client: TestClient, version: UInt32 = 8) throws -> TestProxy {
        let keyboard = try bindSeat(client, version: version).send(1, [.newID], interface: "wl_keyboard")
        try client.roundtrip()
        return keyboard
    }

    func touch(_ client: TestClient, version: UInt32 = 8) throws -> TestProxy {
        let touch = try bindSeat(client, version: version).send(2, [.newID], interface: "wl_touch")
        try client.roundtrip()
        return touch
    }

    /// A wl_data_device of `client` for the seat (manager and seat bound at `version` and 8).
    func dataDevice(_ client: TestClient, version: UInt32 = 3) throws -> (manager: TestProxy, device: TestProxy) {
        let manager = try client.bind("wl_data_device_manager", version: version)
        let seatProxy = try bindSeat(client)
        let device = try manager.send(1, [.newID, .object(seatProxy)], interface: "wl_data_device")
        try client.roundtrip()
        return (manager, device)
    }

    /// A wl_data_source offering `mimeTypes`, with `actions` set when given.
    func dataSource(_ client: TestClient, manager: TestProxy, mimeTypes: [String], actions: UInt32? = nil) throws -> TestProxy {
        let source = try manager.send(0, [.newID], interface: "wl_data_source")
        for mimeType in mimeTypes { try source.send(0, [.string(mimeType)]) }
        if let actions { try source.send(2, [.uint(actions)]) }
        return source
    }

    /// What a client's roundtrip throws after the server posted error `code` on `object`.
    static func error(_ interface: String, _ object: TestProxy, code: UInt32) -> TestClientError {
        .protocolError(ProtocolErrorReport(interface: interface, objectID: object.id, code: code))
    }

    func cursorRequested(_ seat: SeatGlobal, surface: Surface?, hotspotX: Int32, hotspotY: Int32) {
        cursorRequests.append((surface, hotspotX, hotspotY))
    }

    func dragStarted(_ seat: SeatGlobal, icon: Surface?) {
        dragLog.append("started icon=\(icon.map { String($0.id) } ?? "none")")
    }

    func dragEnded(_ seat: SeatGlobal) {
        dragLog.append("ended")
    }

    func selectionChanged(_ seat: SeatGlobal) {
        selectionChanges += 1
    }
}

/// An event's arguments as a test compares them.
extension TestProxy {
    func arguments(of name: String, at index: Int = 0) -> [TestValue]? {
        let matching = events(named: name)
        return index < matching.count ? matching[index].arguments : nil
    }
}

extension TestValue {
    var uintValue: UInt32? {
        if case .uint(let value) = self { return value }
        return nil
    }

    var objectID: UInt32? {
        if case .object(let id) = self { return id }
        return nil
    }

    var descriptor: Int32? {
        if case .fileDescriptor(let fd) = self { return fd }
        return nil
    }
}
