@testable import Compositor
import Foundation
import Glibc
import Testing
@testable import Renderer
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

    /// Runs in a child process of its own (an exit test), so that no other test's descriptors,
    /// images or allocations are counted; the child prints what it counted and the test checks it
    /// here, so that a failure says which of them grew.
    ///
    /// Memory is the heap in use (`heapBytesInUse()`), over two thousands of cycles in a row. Not
    /// resident memory, which also counts code paged in at its first run and the free chunks each
    /// thread's arena keeps. Not one thousand: llvmpipe compiles a fragment-shader variant when a
    /// draw first needs one, on lavapipe's queue thread, and on a loaded machine it now and then
    /// compiled one after the warm-up, keeping 1.2 MB of heap and paging in 8 MiB of LLVM's code
    /// (the 10–11 MB of resident memory CI saw). A cache filled once grows one thousand at most;
    /// what clients leave behind grows each (every client's buffer contents kept: 0.8 MB of heap
    /// a thousand with shm; with dma-bufs 2.8 MB, and a thousand images and descriptors).
    @Test(arguments: [false, true]) func thousandClientCyclesLeaveDescriptorsImagesAndHeapFlat(dmabuf: Bool) async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) { [dmabuf] in
            let test = ClientLifecycleTests()
            let session = try HeadlessSession()
            let cycle = dmabuf ? test.dmabufCycle : test.cycle
            for _ in 0..<50 { try cycle(session) }
            try test.settle(session)
            guard let device = session.compositor.device?.context else { exit(7) }
            let descriptors = openDescriptorCount(), images = device.liveImages
            var heap = [heapBytesInUse()]
            for _ in 0..<2 {
                for _ in 0..<1000 { try cycle(session) }
                try test.settle(session)
                heap.append(heapBytesInUse())
            }
            let clients = session.compositor.display.connectedClients.count
            print("\(clients) \(descriptors) \(openDescriptorCount()) \(images) \(device.liveImages) \(heap[1] - heap[0]) \(heap[2] - heap[1])")
            exit(0)
        }
        guard let result else { return }
        let measured = integers(printedIn: result.standardOutputContent)
        try #require(measured.count == 7, "the child printed \(measured)")
        #expect(measured[0] == 0, "clients still connected")
        #expect(measured[2] == measured[1], "descriptors open before and after the clients")
        #expect(measured[4] == measured[3], "images on the device before and after the clients")
        // Stated tolerance: what lavapipe and libdispatch allocate and free as they go varies by
        // up to 12 KiB a thousand cycles; 256 KiB is 256 bytes a client, less than its buffer's
        // contents alone hold.
        #expect(min(measured[5], measured[6]) < 256 << 10, "the heap grew \(measured[5]) and then \(measured[6]) bytes")
    }
}
