import Testing
import WaylandServer
import WaylandTestClient

/// zwlr_layer_shell_v1 request by request: the configure/ack/map cycle the compositor's policy
/// drives, and every value the protocol rules out answered with its error (the client is
/// disconnected, the server goes on serving others).
@Suite struct LayerShellTests {
    /// The core harness and the layer shell, with a policy that configures each commit to the
    /// size asked for (640×480 where it is 0) and records what it hears.
    final class LayerHarness: LayerShellHandler {
        let base: Harness
        let shell: LayerShellGlobal
        private(set) var log: [String] = []

        init() throws {
            base = try Harness()
            shell = LayerShellGlobal(display: base.display)
            shell.handler = self
            try base.client.roundtrip()
        }

        /// The shell's handler is unowned: cleared before the clients' objects go (with `base`).
        deinit {
            shell.handler = nil
        }

        var client: TestClient { base.client }

        /// A wl_surface and its layer surface on `layer`, bound at `version`.
        func makeLayerSurface(layer: ZwlrLayerShellV1Layer = .top, version: UInt32 = 4)
            throws -> (surface: WlSurfaceProxy, layerSurface: ZwlrLayerSurfaceV1Proxy) {
            let compositor = try client.bind(WlCompositorProxy.self, version: 5)
            let surface = try compositor.createSurface()
            let shellProxy = try client.bind(ZwlrLayerShellV1Proxy.self, version: version)
            let layerSurface = try shellProxy.getLayerSurface(surface: surface, output: nil, layer: layer, namespace: "test")
            return (surface, layerSurface)
        }

        /// A 10×20 layer surface on the top layer, configured, acknowledged and mapped with a buffer.
        func mapLayerSurface() throws -> (surface: WlSurfaceProxy, layerSurface: ZwlrLayerSurfaceV1Proxy) {
            let (surface, layerSurface) = try makeLayerSurface()
            try layerSurface.setSize(width: 10, height: 20)
            try surface.commit()
            try client.roundtrip()
            try layerSurface.ackConfigure(serial: try LayerShellTests.lastConfigure(layerSurface).serial)
            try surface.attach(buffer: try base.shmBuffer(client, width: 10, height: 20, pixel: 0), x: 0, y: 0)
            try surface.commit()
            return (surface, layerSurface)
        }

        /// Expects the next roundtrip to end with error `code` on `object`, then a new client to
        /// be served: the server lives on.
        func expectError(_ code: some WaylandEnumeration, on object: TestProxy, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(throws: TestClientError.protocolError(ProtocolErrorReport(code, on: object)), sourceLocation: sourceLocation) {
                try client.roundtrip()
            }
            let next = try base.connect()
            _ = try next.bind(ZwlrLayerShellV1Proxy.self, version: 4)
            try next.roundtrip()
        }

        func layerSurfaceCommitted(_ layerSurface: LayerSurface) {
            let state = layerSurface.state
            log.append("committed \(state.layer) \(state.width)×\(state.height)")
            let size = (state.width == 0 ? 640 : state.width, state.height == 0 ? 480 : state.height)
            if layerSurface.configuredSize.map({ $0 != size }) ?? true { layerSurface.configure(width: size.0, height: size.1) }
        }

        func layerSurfaceMapped(_ layerSurface: LayerSurface) { log.append("mapped") }
        func layerSurfaceUnmapped(_ layerSurface: LayerSurface) { log.append("unmapped") }
    }

    /// The serial of the last configure `layerSurface` received.
    private static func lastConfigure(_ layerSurface: ZwlrLayerSurfaceV1Proxy) throws -> (serial: UInt32, width: UInt32, height: UInt32) {
        guard case .configure(let serial, let width, let height)? = layerSurface.events.last else {
            throw TestClientError.timedOut
        }
        return (serial, width, height)
    }

    @Test func theInitialCommitIsConfiguredAndABufferAfterTheAckMaps() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.makeLayerSurface(layer: .overlay)
        try layerSurface.setSize(width: 300, height: 0)
        try layerSurface.setAnchor(anchor: [.top, .bottom, .right])
        try layerSurface.setMargin(top: 1, right: 2, bottom: 3, left: 4)
        try layerSurface.setExclusiveZone(zone: 40)
        try layerSurface.setKeyboardInteractivity(keyboardInteractivity: .onDemand)
        try surface.commit()
        try harness.client.roundtrip()
        let configure = try Self.lastConfigure(layerSurface)
        #expect((configure.width, configure.height) == (300, 480))
        let server = try #require(harness.shell.layerSurfaces.first)
        #expect(server.state.anchor == [.top, .bottom, .right])
        #expect(server.state.margins == LayerSurface.Margins(top: 1, right: 2, bottom: 3, left: 4))
        #expect(server.state.exclusiveZone == 40)
        #expect(server.state.keyboardInteractivity == .onDemand)
        #expect(server.namespace == "test")

        try layerSurface.ackConfigure(serial: configure.serial)
        try surface.attach(buffer: try harness.base.shmBuffer(harness.client, width: 300, height: 480, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.log == ["committed overlay 300×0", "committed overlay 300×0", "mapped"])
        #expect(server.isMapped)
    }

    /// A null buffer unmaps the surface; it starts over, and its next commit is configured anew.
    @Test func aNullBufferUnmapsAndTheNextCommitIsConfiguredAgain() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.mapLayerSurface()
        try surface.attach(buffer: nil, x: 0, y: 0)
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.log.suffix(2) == ["mapped", "unmapped"])
        try surface.commit()
        try harness.client.roundtrip()
        #expect(layerSurface.events.count == 2)
        // A buffer before that configure is acknowledged is an error again.
        try surface.attach(buffer: try harness.base.shmBuffer(harness.client, width: 10, height: 20, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidSurfaceState, on: layerSurface)
    }

    /// A buffer on the very first commit (WLCS's helpers, Mir accepts it): that commit is
    /// configured and maps the surface at once; the late ack of its configure is still valid.
    @Test func aBufferOnTheInitialCommitIsConfiguredAndMapsAtOnce() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.makeLayerSurface()
        try layerSurface.setSize(width: 10, height: 20)
        try surface.attach(buffer: try harness.base.shmBuffer(harness.client, width: 10, height: 20, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.client.roundtrip()
        let configure = try Self.lastConfigure(layerSurface)
        #expect((configure.width, configure.height) == (10, 20))
        #expect(layerSurface.events.count == 1)
        #expect(harness.log == ["committed top 10×20", "mapped"])
        let server = try #require(harness.shell.layerSurfaces.first)
        #expect(server.isMapped)
        try layerSurface.ackConfigure(serial: configure.serial)
        try surface.attach(buffer: try harness.base.shmBuffer(harness.client, width: 10, height: 20, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.log == ["committed top 10×20", "mapped", "committed top 10×20"])
    }

    /// Once a configure was sent, a buffer before its ack is an error (the protocol's rule).
    @Test func aBufferAfterAConfigureButBeforeItsAckIsInvalidSurfaceState() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.makeLayerSurface()
        try layerSurface.setSize(width: 10, height: 20)
        try surface.commit()
        try harness.client.roundtrip()
        #expect(layerSurface.events.count == 1)
        try surface.attach(buffer: try harness.base.shmBuffer(harness.client, width: 10, height: 20, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidSurfaceState, on: layerSurface)
    }

    /// A buffer on the initial commit does not excuse a size the protocol rules out.
    @Test func aBufferOnTheInitialCommitWithAZeroSizeIsStillInvalidSize() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.makeLayerSurface()
        try surface.attach(buffer: try harness.base.shmBuffer(harness.client, width: 10, height: 20, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidSize, on: layerSurface)
    }

    @Test func anAckOfASerialNeverSentIsInvalidSurfaceState() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.makeLayerSurface()
        try layerSurface.setSize(width: 10, height: 20)
        try surface.commit()
        try harness.client.roundtrip()
        try layerSurface.ackConfigure(serial: try Self.lastConfigure(layerSurface).serial &+ 7)
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidSurfaceState, on: layerSurface)
    }

    /// A size of 0 needs anchors to both opposite edges in that dimension: the default 0×0
    /// without anchors, or 0 wide anchored left only, is invalid_size at the commit.
    struct SizeAndAnchor: Sendable {
        let width: UInt32
        let height: UInt32
        let anchor: UInt32
    }

    @Test(arguments: [
        SizeAndAnchor(width: 0, height: 0, anchor: 0),
        SizeAndAnchor(width: 0, height: 50, anchor: 4 | 1 | 2),
        SizeAndAnchor(width: 50, height: 0, anchor: 1 | 4 | 8),
    ])
    func aZeroSizeWithoutBothOppositeAnchorsIsInvalidSize(_ value: SizeAndAnchor) throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.makeLayerSurface()
        try layerSurface.setSize(width: value.width, height: value.height)
        try layerSurface.setAnchor(anchor: ZwlrLayerSurfaceV1Anchor(rawValue: value.anchor))
        try surface.commit()
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidSize, on: layerSurface)
    }

    @Test(arguments: [UInt32(16385), .max])
    func aSizePastTheMaximumIsInvalidSize(width: UInt32) throws {
        let harness = try LayerHarness()
        let (_, layerSurface) = try harness.makeLayerSurface()
        try layerSurface.setSize(width: width, height: 10)
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidSize, on: layerSurface)
    }

    @Test(arguments: [UInt32(16), 0xffff_ffff])
    func unknownAnchorBitsAreInvalidAnchor(bits: UInt32) throws {
        let harness = try LayerHarness()
        let (_, layerSurface) = try harness.makeLayerSurface()
        try layerSurface.setAnchor(anchor: ZwlrLayerSurfaceV1Anchor(rawValue: bits))
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidAnchor, on: layerSurface)
    }

    @Test func anUnknownLayerIsInvalidLayer() throws {
        let harness = try LayerHarness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let shell = try harness.client.bind(ZwlrLayerShellV1Proxy.self, version: 4)
        _ = try shell.getLayerSurface(surface: try compositor.createSurface(), output: nil,
                                      layer: ZwlrLayerShellV1Layer(rawValue: 4), namespace: "")
        try harness.expectError(ZwlrLayerShellV1Error.invalidLayer, on: shell)

        let other = try LayerHarness()
        let (_, layerSurface) = try other.makeLayerSurface()
        try layerSurface.setLayer(layer: ZwlrLayerShellV1Layer(rawValue: 0x8000_0000))
        // As wlroots does: the shell's invalid_layer code, on the layer surface.
        try other.expectError(ZwlrLayerShellV1Error.invalidLayer, on: layerSurface)
    }

    /// Interactivity values past the enum, and on_demand before version 4, are refused.
    @Test(arguments: [(UInt32(3), UInt32(4)), (2, 3)])
    func anUnknownKeyboardInteractivityIsRefused(value: UInt32, version: UInt32) throws {
        let harness = try LayerHarness()
        let (_, layerSurface) = try harness.makeLayerSurface(version: version)
        try layerSurface.setKeyboardInteractivity(keyboardInteractivity: ZwlrLayerSurfaceV1KeyboardInteractivity(rawValue: value))
        try harness.expectError(ZwlrLayerSurfaceV1Error.invalidKeyboardInteractivity, on: layerSurface)
    }

    @Test func aSurfaceWithAnotherRoleOrABufferCannotBecomeALayerSurface() throws {
        let harness = try LayerHarness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let parent = try compositor.createSurface()
        let child = try compositor.createSurface()
        _ = try harness.client.bind(WlSubcompositorProxy.self, version: 1).getSubsurface(surface: child, parent: parent)
        let shell = try harness.client.bind(ZwlrLayerShellV1Proxy.self, version: 4)
        _ = try shell.getLayerSurface(surface: child, output: nil, layer: .top, namespace: "")
        try harness.expectError(ZwlrLayerShellV1Error.role, on: shell)

        let other = try LayerHarness()
        let surface = try other.client.bind(WlCompositorProxy.self, version: 5).createSurface()
        try surface.attach(buffer: try other.base.shmBuffer(other.client, width: 4, height: 4, pixel: 0), x: 0, y: 0)
        try surface.commit()
        let otherShell = try other.client.bind(ZwlrLayerShellV1Proxy.self, version: 4)
        _ = try otherShell.getLayerSurface(surface: surface, output: nil, layer: .top, namespace: "")
        try other.expectError(ZwlrLayerShellV1Error.alreadyConstructed, on: otherShell)
    }

    /// Margins and zones far past any output are clamped to the coordinate limit every other
    /// client value is held to, so that the compositor's arithmetic cannot overflow.
    @Test func hugeMarginsAndZonesAreClampedToTheCoordinateLimit() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.makeLayerSurface()
        try layerSurface.setSize(width: 10, height: 10)
        try layerSurface.setMargin(top: .max, right: .min, bottom: 0, left: -5)
        try layerSurface.setExclusiveZone(zone: .min)
        try surface.commit()
        try harness.client.roundtrip()
        let server = try #require(harness.shell.layerSurfaces.first)
        #expect(server.state.margins == LayerSurface.Margins(top: 1 << 24, right: -(1 << 24), bottom: 0, left: -5))
        #expect(server.state.exclusiveZone == -(1 << 24))
    }

    @Test func destroyingTheSurfaceUnmapsAndForgetsTheLayerSurface() throws {
        let harness = try LayerHarness()
        let (surface, layerSurface) = try harness.mapLayerSurface()
        try surface.destroy()
        try harness.client.roundtrip()
        #expect(harness.log.suffix(2) == ["mapped", "unmapped"])
        #expect(harness.shell.layerSurfaces.isEmpty)
        try layerSurface.destroy()
        try harness.client.roundtrip()
    }
}
