import Testing
import WaylandServer
import WaylandTestClient

/// The core harness plus the small extension globals (viewporter, presentation, single-pixel
/// buffers, fractional scale, xdg_output, idle inhibit), with the helpers their suites share.
final class ExtensionHarness {
    let core: Harness
    let viewporter: ViewporterGlobal
    let presentation: PresentationGlobal
    let singlePixelBuffers: SinglePixelBufferManagerGlobal
    let fractionalScale: FractionalScaleManagerGlobal
    let xdgOutputs: XdgOutputManagerGlobal
    let idleInhibit: IdleInhibitManagerGlobal
    private var compositor: TestProxy?

    var client: TestClient { core.client }
    var output: Output { core.output }

    init() throws {
        core = try Harness()
        viewporter = ViewporterGlobal(display: core.display)
        presentation = PresentationGlobal(display: core.display)
        singlePixelBuffers = SinglePixelBufferManagerGlobal(display: core.display)
        fractionalScale = FractionalScaleManagerGlobal(display: core.display)
        xdgOutputs = XdgOutputManagerGlobal(display: core.display)
        idleInhibit = IdleInhibitManagerGlobal(display: core.display)
        // The client connected before these globals existed: let it hear about them.
        try core.client.roundtrip()
    }

    /// A new wl_surface of the harness's client: its proxy and the server's `Surface`.
    func makeSurface() throws -> (proxy: TestProxy, surface: Surface) {
        if compositor == nil { compositor = try client.bind("wl_compositor", version: 5) }
        let proxy = try compositor!.send(0, [.newID], interface: "wl_surface")
        try client.roundtrip()
        let surface = try #require(core.surfaces.last)
        #expect(surface.id == proxy.id)
        return (proxy, surface)
    }

    /// `child` made a subsurface of `parent` (synchronized, as wl_subsurface starts).
    func makeSubsurface(_ child: TestProxy, of parent: TestProxy) throws -> TestProxy {
        let subcompositor = try client.bind("wl_subcompositor", version: 1)
        return try subcompositor.send(1, [.newID, .object(child), .object(parent)], interface: "wl_subsurface")
    }

    /// Attaches `buffer` to `surface` (wl_surface.attach at 0, 0).
    func attach(_ buffer: TestProxy?, to surface: TestProxy) throws {
        try surface.send(1, [.object(buffer), .int(0), .int(0)])
    }

    func commit(_ surface: TestProxy) throws {
        try surface.send(6)
    }

    /// A wl_shm buffer of the harness's client.
    func shmBuffer(width: Int32, height: Int32) throws -> TestProxy {
        try core.shmBuffer(client, width: width, height: height, pixel: 0)
    }

    /// Expects the next roundtrip to end with protocol error `code` posted on `object`.
    func expectProtocolError(on object: TestProxy, code: UInt32, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = ProtocolErrorReport(interface: object.interfaceName, objectID: object.id, code: code)
        #expect(throws: TestClientError.protocolError(expected), sourceLocation: sourceLocation) {
            try client.roundtrip()
        }
    }
}
