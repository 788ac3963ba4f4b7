import Foundation
import Glibc
import SystemCalls
import Synchronization
import Testing
import WaylandTestClient

/// A client that writes requests as fast as it can does not starve the others (libwayland reads
/// at most one buffer of a client's requests per wakeup), and one that never reads its socket
/// while the compositor sends it events is disconnected once its buffer fills (libwayland gives
/// up on a client whose socket and buffer are full rather than wait), the compositor
/// never waiting for either.
@Suite(.serialized) struct ClientFloodTests {
    /// Writes wl_surface.damage requests of `surface` into `fd` from another thread until told to
    /// stop, counting the bytes written.
    final class Flood: Sendable {
        private let written = Atomic<Int>(0)
        private let stopping = Atomic<Bool>(false)
        private let stopped = Atomic<Bool>(false)

        var bytesWritten: Int { written.load(ordering: .relaxed) }
        var isStopped: Bool { stopped.load(ordering: .relaxed) }
        func stop() { stopping.store(true, ordering: .relaxed) }

        init(fd: Int32, surface: UInt32) {
            // wl_surface request 2: damage(x, y, width, height), 24 bytes; 170 to a 4 KiB write.
            let message: [UInt32] = [surface, 24 << 16 | 2, 0, 0, 1, 1]
            let batch = [[UInt32]](repeating: message, count: 170).flatMap { $0 }
            Thread { [self] in
                while !stopping.load(ordering: .relaxed) {
                    let count = batch.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard count > 0 else { break }
                    written.wrappingAdd(count, ordering: .relaxed)
                }
                close(fd)
                stopped.store(true, ordering: .relaxed)
            }.start()
        }
    }

    @Test func aClientFloodingRequestsDoesNotStarveAnotherClientsRoundTrips() throws {
        let session = try HeadlessSession()
        let (flooderOnServer, socket) = try session.compositor.display.createClientSocket()
        let flooderSocket = dup(socket.rawValue)
        let flooder = try TestClient(socket: socket) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        let surface = try flooder.bind(WlCompositorProxy.self, version: 5).createSurface()
        try flooder.roundtrip()
        let other = try SessionClient(session)

        let flood = Flood(fd: flooderSocket, surface: surface.id)
        // The flood has begun: the compositor has read some of it.
        while flood.bytesWritten < 64 * 1024 { try session.compositor.dispatch(timeoutMilliseconds: 10) }
        // Each round trip lets the compositor dispatch 1000 times at most (TestClient.roundtrip),
        // and throws when it is not answered by then. Whether requests of the flood wait unread
        // meanwhile depends on how the flooding thread is scheduled (the compositor reads up to
        // its 1 MiB buffer at a wakeup), so it is not asserted: the flood goes on, connected.
        for _ in 0..<20 { try other.client.roundtrip() }
        #expect(!flood.isStopped)
        #expect(session.compositor.display.connectedClients.contains { $0 === flooderOnServer })

        flood.stop()
        for _ in 0..<10_000 where !flood.isStopped { try session.compositor.dispatch(timeoutMilliseconds: 1) }
        #expect(flood.isStopped)
    }

    @Test func aClientThatNeverReadsIsDisconnectedWhenItsBufferFillsWhileOthersAreServed() throws {
        let session = try HeadlessSession()
        let (silentOnServer, socket) = try session.compositor.display.createClientSocket()
        defer { try? socket.close() }
        _ = fcntl(socket.rawValue, F_SETFL, O_NONBLOCK)
        let other = try SessionClient(session)

        // wl_display.sync with ever new callback ids; each answer is two events (done, delete_id)
        // of 12 bytes that the client never reads.
        var nextID: UInt32 = 2
        var pending: [UInt32] = []
        var syncs = 0
        while silentOnServer.isConnected, syncs < 200_000 {
            if pending.isEmpty {
                for _ in 0..<100 {
                    pending += [1, 12 << 16, nextID]
                    nextID += 1
                }
            }
            let count = pending.withUnsafeBytes { send(socket.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                syncs += count / 12
                pending.removeFirst(count / 4)
            }
            try session.compositor.dispatch(timeoutMilliseconds: 0)
            if syncs % 5000 < 100 { try other.client.roundtrip() }
        }
        #expect(!silentOnServer.isConnected, "still connected after \(syncs) unread round trips")
        #expect(!session.compositor.display.connectedClients.contains { $0 === silentOnServer })
        try other.client.roundtrip()
    }
}
