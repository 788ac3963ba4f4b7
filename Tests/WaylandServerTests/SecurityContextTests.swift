import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// wp_security_context_v1: a sandbox engine's socket becomes a way in whose clients carry the
/// engine's metadata, until the engine closes it; every misuse is the protocol's error.
@Suite struct SecurityContextTests {
    /// A Unix stream socket listening at a fresh path, as a sandbox engine makes it.
    final class EngineSocket {
        let path = "/tmp/vitrine-security-context-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let socket: OwnedFileDescriptor

        init() throws {
            socket = try OwnedFileDescriptor.unixStreamSocket()
            let address = try #require(UnixSocketAddress(path: path))
            #expect(address.withSocketAddress { bind(socket.rawValue, $0, $1) } == 0)
            #expect(listen(socket.rawValue, 8) == 0)
        }

        deinit { unlink(path) }

        /// A connection to the socket; nil when it is refused (nobody listens any more).
        func connect() throws -> OwnedFileDescriptor? {
            let connection = try OwnedFileDescriptor.unixStreamSocket(blocking: true)
            let address = try #require(UnixSocketAddress(path: path))
            return address.withSocketAddress { Glibc.connect(connection.rawValue, $0, $1) } == 0 ? connection : nil
        }
    }

    /// The engine's end of a pipe whose other end is close_fd: closing it says stop.
    private func pipeEnds() -> (read: OwnedFileDescriptor, write: OwnedFileDescriptor) {
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        return (OwnedFileDescriptor(rawValue: ends[0]), OwnedFileDescriptor(rawValue: ends[1]))
    }

    private func context(of client: TestClient, socket: OwnedFileDescriptor, closing: OwnedFileDescriptor) throws -> WpSecurityContextV1Proxy {
        // The manager's global was made after the client connected.
        try client.roundtrip()
        return try client.bind(WpSecurityContextManagerV1Proxy.self, version: 1)
            .createListener(listenFd: socket.fileDescriptor, closeFd: closing.fileDescriptor)
    }

    @Test func clientsConnectingThroughACommittedContextCarryItsMetadataUntilTheEngineClosesIt() throws {
        let harness = try Harness()
        let manager = SecurityContextManagerGlobal(display: harness.display)
        let engine = try EngineSocket()
        let (closeRead, closeWrite) = pipeEnds()
        let context = try context(of: harness.client, socket: engine.socket, closing: closeRead)
        try context.setSandboxEngine(name: "org.flatpak")
        try context.setAppID(appID: "org.example.Kiosk")
        try context.setInstanceID(instanceID: "7")
        try context.commit()
        try context.destroy()
        try harness.client.roundtrip()
        // The compositor keeps its own copies: the engine closes its ends.
        engine.socket.close()
        closeRead.close()

        let before = Set(harness.display.connectedClients)
        let connection = try #require(try engine.connect())
        let sandboxed = try TestClient(socket: connection.take()) {
            try? harness.display.eventLoop.dispatch(timeoutMilliseconds: 0)
            harness.display.flushClients()
        }
        let server = try #require(Set(harness.display.connectedClients).subtracting(before).first)
        #expect(server.securityContext == SecurityContextMetadata(sandboxEngine: "org.flatpak", appID: "org.example.Kiosk", instanceID: "7"))
        #expect(before.allSatisfy { $0.securityContext == nil })
        try sandboxed.roundtrip()

        closeWrite.close()
        try harness.client.roundtrip()
        #expect(try engine.connect() == nil)
        _ = manager
    }

    @Test func metadataLeftUnsetIsNil() throws {
        let harness = try Harness()
        let manager = SecurityContextManagerGlobal(display: harness.display)
        let engine = try EngineSocket()
        let (closeRead, closeWrite) = pipeEnds()
        let context = try context(of: harness.client, socket: engine.socket, closing: closeRead)
        try context.setSandboxEngine(name: "org.example.sandbox")
        try context.commit()
        try harness.client.roundtrip()
        let before = Set(harness.display.connectedClients)
        let sandboxed = try TestClient(socket: try #require(try engine.connect()).take()) {
            try? harness.display.eventLoop.dispatch(timeoutMilliseconds: 0)
            harness.display.flushClients()
        }
        try sandboxed.roundtrip()
        let server = try #require(Set(harness.display.connectedClients).subtracting(before).first)
        #expect(server.securityContext == SecurityContextMetadata(sandboxEngine: "org.example.sandbox"))
        _ = (manager, closeWrite)
    }

    /// Runs `misuse` on a fresh context and expects `error` on it.
    private func expectError(_ error: WpSecurityContextV1Error, _ misuse: (WpSecurityContextV1Proxy) throws -> Void) throws {
        let harness = try Harness()
        let manager = SecurityContextManagerGlobal(display: harness.display)
        let engine = try EngineSocket()
        let (closeRead, closeWrite) = pipeEnds()
        let context = try context(of: harness.client, socket: engine.socket, closing: closeRead)
        try misuse(context)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(error, on: context))) { try harness.client.roundtrip() }
        #expect(harness.display.connectedClients.isEmpty)
        _ = (manager, closeWrite)
    }

    @Test func settingMetadataTwiceIsAlreadySet() throws {
        try expectError(.alreadySet) { context in
            try context.setAppID(appID: "a")
            try context.setAppID(appID: "b")
        }
        try expectError(.alreadySet) { context in
            try context.setSandboxEngine(name: "a")
            try context.setSandboxEngine(name: "a")
        }
        try expectError(.alreadySet) { context in
            try context.setInstanceID(instanceID: "1")
            try context.setInstanceID(instanceID: "2")
        }
    }

    @Test func anyRequestButDestroyAfterCommitIsAlreadyUsed() throws {
        try expectError(.alreadyUsed) { context in
            try context.commit()
            try context.commit()
        }
        try expectError(.alreadyUsed) { context in
            try context.commit()
            try context.setAppID(appID: "late")
        }
    }

    @Test func aListenDescriptorThatIsNotAListeningUnixStreamSocketIsInvalid() throws {
        let harness = try Harness()
        let manager = SecurityContextManagerGlobal(display: harness.display)
        let (closeRead, closeWrite) = pipeEnds()
        // A Unix stream socket that does not listen, and a pipe.
        let unlistened = try OwnedFileDescriptor.unixStreamSocket()
        try harness.client.roundtrip()
        let proxy = try harness.client.bind(WpSecurityContextManagerV1Proxy.self, version: 1)
        _ = try proxy.createListener(listenFd: unlistened.fileDescriptor, closeFd: closeRead.fileDescriptor)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WpSecurityContextManagerV1Error.invalidListenFd, on: proxy))) {
            try harness.client.roundtrip()
        }
        let other = try harness.connect()
        let otherProxy = try other.bind(WpSecurityContextManagerV1Proxy.self, version: 1)
        _ = try otherProxy.createListener(listenFd: closeWrite.fileDescriptor, closeFd: closeRead.fileDescriptor)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WpSecurityContextManagerV1Error.invalidListenFd, on: otherProxy))) {
            try other.roundtrip()
        }
        _ = manager
    }

    @Test func aClientInASecurityContextCannotCreateAnother() throws {
        let harness = try Harness()
        let manager = SecurityContextManagerGlobal(display: harness.display)
        let engine = try EngineSocket()
        let (closeRead, closeWrite) = pipeEnds()
        try context(of: harness.client, socket: engine.socket, closing: closeRead).commit()
        try harness.client.roundtrip()
        let sandboxed = try TestClient(socket: try #require(try engine.connect()).take()) {
            try? harness.display.eventLoop.dispatch(timeoutMilliseconds: 0)
            harness.display.flushClients()
        }
        let inner = try EngineSocket()
        let proxy = try sandboxed.bind(WpSecurityContextManagerV1Proxy.self, version: 1)
        _ = try proxy.createListener(listenFd: inner.socket.fileDescriptor, closeFd: closeRead.fileDescriptor)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WpSecurityContextManagerV1Error.nested, on: proxy))) {
            try sandboxed.roundtrip()
        }
        // The engine's own connection is not in a context, and goes on.
        try harness.client.roundtrip()
        _ = (manager, closeWrite)
    }
}
