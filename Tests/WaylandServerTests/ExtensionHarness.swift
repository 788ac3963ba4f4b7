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
    private var compositor: WlCompositorProxy?

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

    /// The idle inhibit handler (a test's) is unowned: cleared before the clients' objects go
    /// (with `core`), whenever the test let go of the handler.
    deinit {
        idleInhibit.handler = nil
    }

    /// A new wl_surface of the harness's client: its proxy and the server's `Surface`.
    func makeSurface() throws -> (proxy: WlSurfaceProxy, surface: Surface) {
        if compositor == nil { compositor = try client.bind(WlCompositorProxy.self, version: 5) }
        let proxy = try compositor!.createSurface()
        try client.roundtrip()
        let surface = try #require(core.surfaces.last)
        #expect(surface.id == proxy.id)
        return (proxy, surface)
    }

    /// `child` made a subsurface of `parent` (synchronized, as wl_subsurface starts).
    @discardableResult
    func makeSubsurface(_ child: WlSurfaceProxy, of parent: WlSurfaceProxy) throws -> WlSubsurfaceProxy {
        let subcompositor = try client.bind(WlSubcompositorProxy.self, version: 1)
        return try subcompositor.getSubsurface(surface: child, parent: parent)
    }

    /// Attaches `buffer` to `surface` (wl_surface.attach at 0, 0).
    func attach(_ buffer: WlBufferProxy?, to surface: WlSurfaceProxy) throws {
        try surface.attach(buffer: buffer, x: 0, y: 0)
    }

    func commit(_ surface: WlSurfaceProxy) throws {
        try surface.commit()
    }

    /// A wl_shm buffer of the harness's client.
    func shmBuffer(width: Int32, height: Int32) throws -> WlBufferProxy {
        try core.shmBuffer(client, width: width, height: height, pixel: 0)
    }

    /// Expects the next roundtrip to end with protocol error `code` posted on `object`.
    func expectProtocolError(_ code: some WaylandEnumeration, on object: TestProxy, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(code, on: object)), sourceLocation: sourceLocation) {
            try client.roundtrip()
        }
    }
}
