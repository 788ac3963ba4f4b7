import Buffers
import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// wl_shm_pool.create_buffer refuses rows that do not hold `width` pixels of the buffer's format
/// (wl_shm.error.invalid_stride on the pool), whatever the format's pixel size.
@Suite struct ShmStrideTests {
    /// A client of `display` with a 40,000-byte pool.
    private func pool(on display: Display) throws -> (client: TestClient, pool: WlShmPoolProxy) {
        let (_, socket) = try display.createClientSocket()
        let client = try TestClient(socket: socket) {
            try? display.eventLoop.dispatch(timeoutMilliseconds: 0)
            display.flushClients()
        }
        let shm = try client.bind(WlShmProxy.self, version: 1)
        let fd = anonymousFile(size: 40_000)
        defer { close(fd) }
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: 40_000)
        return (client, pool)
    }

    private func createBuffer(in pool: WlShmPoolProxy, width: Int32, height: Int32, stride: Int32, format: WlShmFormat) throws {
        try pool.createBuffer(offset: 0, width: width, height: height, stride: stride, format: format)
    }

    @Test func aStrideOfOneByteAPixelForARGB8888IsAnInvalidStrideErrorOnThePool() throws {
        let display = try Display()
        let (client, pool) = try pool(on: display)
        // 200 ARGB8888 pixels are 800 bytes; a stride of 200 is a quarter of a row.
        try createBuffer(in: pool, width: 200, height: 200, stride: 200, format: .argb8888)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlShmError.invalidStride, on: pool))) {
            try client.roundtrip()
        }
    }

    @Test func threeBytePixelsFitAStrideOfThreeBytesAPixelAndNotOneByteLess() throws {
        let rgb888 = WlShmFormat(rawValue: PixelFormat.rgb888.shmCode)
        let display = try Display(shmFormats: [.rgb888])
        let (client, pool) = try pool(on: display)
        try createBuffer(in: pool, width: 100, height: 100, stride: 300, format: rgb888)
        try client.roundtrip()
        #expect(client.protocolError == nil)
        try createBuffer(in: pool, width: 100, height: 100, stride: 299, format: rgb888)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlShmError.invalidStride, on: pool))) {
            try client.roundtrip()
        }
    }
}
