import Compositor
import Foundation
import Glibc
import Testing
import WaylandTestClient

/// Clients connect, show a window and leave again; the compositor must keep nothing of them.
@Suite(.serialized) struct ClientLifecycleTests {
    /// One client: binds, maps a 64×64 toplevel (configure, ack, buffer, commit) and disconnects.
    func cycle(_ session: HeadlessSession) throws {
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64), on: surface)
        try client.client.roundtrip()
    }

    /// The same with a linear dma-buf (a memfd sealed against shrinking, which lavapipe maps as it
    /// maps dma-bufs), which the compositor imports into the device and copies at commit.
    func dmabufCycle(_ session: HeadlessSession) throws {
        let client = try SessionClient(session)
        let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
        let (surface, _) = try client.makeToplevel()
        let fd = anonymousFile(size: 64 * 64 * 4, sealedAgainstShrinking: true)
        defer { close(fd) }
        let params = try dmabuf.createParams()
        try params.add(fd: FileDescriptor(rawValue: fd), planeIdx: 0, offset: 0, stride: 256, modifierHi: 0, modifierLo: 0)
        let buffer = try params.createImmed(width: 64, height: 64, format: 0x3432_5241, flags: [])
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
    }

    /// Runs the compositor until every client's leaving was handled and no frame is scheduled, in
    /// flight or waiting to be shown, so that both measurements see the same quiet state however
    /// slowly a loaded machine draws.
    func settle(_ session: HeadlessSession) throws {
        let output = session.backend.headlessOutput(0)
        try session.run(seconds: 30) {
            session.compositor.display.connectedClients.isEmpty && output.frameScheduler.isIdle
                && !output.hasFrameWaitingToShow
        }
    }

    /// Runs in a child process of its own (an exit test), so that no other test's descriptors or
    /// memory are counted; the child prints what it measured and the test checks it here, so that
    /// a failure says which of them grew.
    @Test(arguments: [false, true]) func thousandClientCyclesLeaveDescriptorsAndMemoryFlat(dmabuf: Bool) async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) { [dmabuf] in
            let test = ClientLifecycleTests()
            let session = try HeadlessSession()
            let cycle = dmabuf ? test.dmabufCycle : test.cycle
            for _ in 0..<50 { try cycle(session) }
            try test.settle(session)
            let descriptors = openDescriptorCount()
            let memory = residentBytes()
            for _ in 0..<1000 { try cycle(session) }
            try test.settle(session)
            let clients = session.compositor.display.connectedClients.count
            print("\(clients) \(descriptors) \(openDescriptorCount()) \(residentBytes() - memory)")
            exit(0)
        }
        guard let result else { return }
        let measured = String(decoding: result.standardOutputContent, as: UTF8.self)
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(measured.count == 4, "the child printed \(measured)")
        #expect(measured[0] == 0, "clients still connected")
        #expect(measured[2] == measured[1], "descriptors open before and after the thousand clients")
        // Stated tolerance: allocator slack, not per-client growth (1,000 leaked surfaces with
        // their 16 KiB pixel copies alone would be 16 MiB).
        #expect(measured[3] < 4 << 20, "resident memory grew \(measured[3]) bytes")
    }
}
