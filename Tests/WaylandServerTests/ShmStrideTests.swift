import Buffers
import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// wl_shm_pool.create_buffer refuses rows that do not hold `width` pixels of the buffer's format
/// (wl_shm.error.invalid_stride on the pool), whatever the format's pixel size.
@Suite struct ShmStrideTests {
    /// A client of `display` with a 40,000-byte pool.
    private func pool(on display: Display) throws -> (client: TestClient, pool: TestProxy) {
        let (_, socket) = try display.createClientSocket()
        let client = try TestClient(socket: socket) {
            try? display.dispatch(timeoutMilliseconds: 0)
            display.flushClients()
        }
        let shm = try client.bind("wl_shm", version: 1)
        let fd = anonymousFile(size: 40_000)
        defer { close(fd) }
        let pool = try shm.send(0, [.newID, .fileDescriptor(fd), .int(40_000)], interface: "wl_shm_pool")
        return (client, pool)
    }

    private func createBuffer(in pool: TestProxy, width: Int32, height: Int32, stride: Int32, format: UInt32) throws {
        _ = try pool.send(0, [.newID, .int(0), .int(width), .int(height), .int(stride), .uint(format)], interface: "wl_buffer")
    }

    @Test func aStrideOfOneByteAPixelForARGB8888IsAnInvalidStrideErrorOnThePool() throws {
        let display = try Display()
        let (client, pool) = try pool(on: display)
        // 200 ARGB8888 pixels are 800 bytes; a stride of 200 is a quarter of a row.
        try createBuffer(in: pool, width: 200, height: 200, stride: 200, format: 0)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_shm_pool", objectID: pool.id, code: 1))) {
            try client.roundtrip()
        }
    }

    @Test func threeBytePixelsFitAStrideOfThreeBytesAPixelAndNotOneByteLess() throws {
        let rgb888 = PixelFormat.rgb888.shmCode
        let display = try Display(shmFormats: [.rgb888])
        let (client, pool) = try pool(on: display)
        try createBuffer(in: pool, width: 100, height: 100, stride: 300, format: rgb888)
        try client.roundtrip()
        #expect(client.protocolError == nil)
        try createBuffer(in: pool, width: 100, height: 100, stride: 299, format: rgb888)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_shm_pool", objectID: pool.id, code: 1))) {
            try client.roundtrip()
        }
    }
}
