import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// What one client can make the server hold or do is bounded: past each bound it gets a protocol
/// error (or no_memory), and other clients go on.
@Suite struct ClientLimitTests {
    @Test func aBufferWiderThanTheLimitIsInvalidSizeAtAttach() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        let limit = Surface.maximumBufferDimension
        try surface.send(1, [.object(try harness.shmBuffer(harness.client, width: limit, height: 1, pixel: 0)), .int(0), .int(0)])
        try surface.send(6)
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.buffer?.width == limit)

        try surface.send(1, [.object(try harness.shmBuffer(harness.client, width: 1, height: limit + 1, pixel: 0)), .int(0), .int(0)])
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_surface", objectID: surface.id, code: 2))) {
            try harness.client.roundtrip()
        }
    }

    @Test func damageBeyondTheLimitBecomesItsBoundingBox() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        for i in 0..<Int32(64) { try surface.send(2, [.int(i), .int(0), .int(1), .int(1)]) }
        try surface.send(6)
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.surfaceDamage.count == 64)

        for i in 0..<Int32(65) { try surface.send(9, [.int(2 * i), .int(-i), .int(1), .int(1)]) }
        try surface.send(6)
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.bufferDamage == [IntRect(x: 0, y: -64, width: 129, height: 65)])
    }

    /// Objects are counted every 1024 creations: 32,000 regions are served, 2,048 more are past
    /// the limit, and the client hears no_memory.
    @Test func aClientHoldingMoreThanTheMaximumObjectsIsDisconnected() throws {
        let harness = try Harness()
        let other = try harness.connect()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        func makeRegions(_ count: Int) throws {
            for index in 0..<count {
                _ = try compositor.send(1, [.newID], interface: "wl_region")
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
