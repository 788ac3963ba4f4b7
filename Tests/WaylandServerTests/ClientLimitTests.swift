import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// What one client can make the server hold or do is bounded: past each bound it gets a protocol
/// error (or no_memory), and other clients go on.
@Suite struct ClientLimitTests {
    @Test func aBufferWiderThanTheLimitIsInvalidSizeAtAttach() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        let limit = Surface.maximumBufferDimension
        try surface.attach(buffer: try harness.shmBuffer(harness.client, width: limit, height: 1, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.buffer?.width == Int(limit))

        try surface.attach(buffer: try harness.shmBuffer(harness.client, width: 1, height: limit + 1, pixel: 0), x: 0, y: 0)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlSurfaceError.invalidSize, on: surface))) {
            try harness.client.roundtrip()
        }
    }

    @Test func damageBeyondTheLimitBecomesItsBoundingBox() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        for i in 0..<Int32(64) { try surface.damage(x: i, y: 0, width: 1, height: 1) }
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.surfaceDamage.count == 64)

        for i in 0..<Int32(65) { try surface.damageBuffer(x: 2 * i, y: -i, width: 1, height: 1) }
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.bufferDamage == [IntRect(x: 0, y: -64, width: 129, height: 65)])
    }

    /// Objects are counted every 1024 creations: 32,000 regions are served, 2,048 more are past
    /// the limit, and the client hears no_memory.
    @Test func aClientHoldingMoreThanTheMaximumObjectsIsDisconnected() throws {
        let harness = try Harness()
        let other = try harness.connect()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        func makeRegions(_ count: Int) throws {
            for index in 0..<count {
                try compositor.createRegion()
                if index % 1000 == 999 { try harness.client.roundtrip() }
            }
            try harness.client.roundtrip()
        }
        try makeRegions(32_000)
        #expect(harness.client.connectionError == 0)
        #expect(throws: TestClientError.disconnected(errno: ENOMEM)) { try makeRegions(2_048) }
        try other.roundtrip()
    }
}
