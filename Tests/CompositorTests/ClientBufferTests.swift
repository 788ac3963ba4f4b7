import Foundation
import Glibc
import LayerKit
import Graphics
@testable import Renderer
import Testing
import WaylandServer
import WaylandTestClient
@testable import Compositor

/// Client buffers are layers' contents where they lie: a commit copies nothing, the frame that
/// draws a shm buffer uploads its damaged rows straight from the client's pool and only then
/// releases it, and buffers leave nothing behind once their clients destroy them.
@Suite(.serialized) struct ClientBufferTests {
    /// A 64×64 window of an opaque colour, centred on the 640×480 output: 288…352 × 208…272.
    func window(_ session: HeadlessSession) throws -> (client: SessionClient, surface: WlSurfaceProxy) {
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        let buffer = try client.makeBuffer(width: 64, height: 64, format: .xrgb8888, fill: fillPixels(0xFF00_00FF, count: 64 * 64))
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 320, y: 240) == blue })
        return (client, surface)
    }

    @Test func aCommitCopiesNothingAndTheBufferIsReleasedByTheFrameThatUploadsItsDamage() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let (client, surface) = try window(session)
        let node = try #require(session.compositor.nodes.values.first)
        let uploaded = node.surfaceTexture.uploadedBytes
        #expect(uploaded == 64 * 64 * 4)

        // With the display off no frame is drawn: the commit alone is seen.
        session.compositor.setOutputsPowered(false)
        let green = try client.makeBuffer(width: 64, height: 64, format: .xrgb8888, fill: fillPixels(0xFF00_FF00, count: 64 * 64))
        try surface.attach(buffer: green, x: 0, y: 0)
        try surface.damageBuffer(x: 8, y: 8, width: 16, height: 16)
        try surface.commit()
        try client.client.roundtrip()
        try session.run(seconds: 0.2)
        // The layer shows the client's buffer itself, read by no one yet and not released.
        let contents = try #require(node.content.externalContents as? ClientBufferContents)
        #expect(node.content.contents == nil)
        #expect((contents.buffer as? Buffer)?.isAlive == true && contents.holdsBuffer)
        #expect(!contents.isUploaded)
        #expect(node.surfaceTexture.uploadedBytes == uploaded)
        #expect(green.events.isEmpty)

        // The next frame uploads the 16×16 damaged rows from the pool, then releases the buffer.
        session.compositor.setOutputsPowered(true)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 296 + 8, y: 216 + 8) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255) })
        try client.client.roundtrip()
        #expect(contents.isUploaded)
        #expect(node.surfaceTexture.uploadedBytes == uploaded + 16 * 16 * 4)
        #expect(green.events == [.release])
        // Only the damage was uploaded: the rest of the window still shows the first buffer.
        #expect(session.screen?.pixel(x: 290, y: 210) == blue)
    }

    /// A buffer replaced before any frame read it goes back to its client at once, and its damage
    /// is uploaded from the buffer that replaced it.
    @Test func aBufferReplacedUnreadIsReleasedAtOnceAndItsDamageGoesToItsSuccessor() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let (client, surface) = try window(session)
        let node = try #require(session.compositor.nodes.values.first)
        let uploaded = node.surfaceTexture.uploadedBytes
        session.compositor.setOutputsPowered(false)
        let first = try client.makeBuffer(width: 64, height: 64, format: .xrgb8888, fill: fillPixels(0xFF00_FF00, count: 64 * 64))
        try surface.attach(buffer: first, x: 0, y: 0)
        try surface.damageBuffer(x: 0, y: 0, width: 8, height: 8)
        try surface.commit()
        let second = try client.makeBuffer(width: 64, height: 64, format: .xrgb8888, fill: fillPixels(0xFFFF_0000, count: 64 * 64))
        try surface.attach(buffer: second, x: 0, y: 0)
        try surface.damageBuffer(x: 56, y: 56, width: 8, height: 8)
        try surface.commit()
        try client.client.roundtrip()
        #expect(first.events == [.release])
        #expect(second.events.isEmpty)
        session.compositor.setOutputsPowered(true)
        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 290, y: 210) == red && session.screen?.pixel(x: 350, y: 270) == red })
        try client.client.roundtrip()
        #expect(second.events == [.release])
        // Both damaged squares, as one rectangle of the second buffer: 64×64 here.
        #expect(node.surfaceTexture.uploadedBytes == uploaded + 64 * 64 * 4)
    }

    /// One buffer shown on two surfaces (a window and its subsurface) goes back to its client once,
    /// when neither needs it: with the CPU renderer, which reads it at every frame, once both
    /// replaced it; with Vulkan, once frames copied it for both, whatever either commits later.
    @Test(arguments: [RendererKind.vulkan, .cpu])
    func aBufferShownOnTwoSurfacesIsReleasedOnceWhenNeitherNeedsIt(renderer: RendererKind) throws {
        let session = try HeadlessSession(width: 640, height: 480, renderer: renderer)
        let client = try SessionClient(session)
        let subcompositor = try client.client.bind(WlSubcompositorProxy.self, version: 1)
        let (surface, _) = try client.makeToplevel()
        let child = try client.compositor.createSurface()
        let subsurface = try subcompositor.getSubsurface(surface: child, parent: surface)
        try subsurface.setPosition(x: 32, y: 32)
        let shared = try client.makeBuffer(width: 64, height: 64, format: .xrgb8888, fill: fillPixels(0xFF00_00FF, count: 64 * 64))
        // The subsurface is synchronized: its commit applies with its parent's.
        try client.show(shared, on: child)
        try client.show(shared, on: surface)
        try client.client.roundtrip()
        // The window is centred, the subsurface 32 points right and down of it: (290, 210) is the
        // window's alone and (360, 280) the subsurface's, whether the window's geometry takes the
        // subsurface in or not.
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 290, y: 210) == blue && session.screen?.pixel(x: 360, y: 280) == blue })

        let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let redBuffer = try client.makeBuffer(width: 64, height: 64, format: .xrgb8888, fill: fillPixels(0xFFFF_0000, count: 64 * 64))
        try client.show(redBuffer, on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 290, y: 210) == red && session.screen?.pixel(x: 360, y: 280) == blue })
        try client.client.roundtrip()
        // The subsurface still shows it: the CPU renderer reads it again at each frame.
        #expect(shared.events == (renderer == .vulkan ? [.release] : []))

        let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
        let greenBuffer = try client.makeBuffer(width: 64, height: 64, format: .xrgb8888, fill: fillPixels(0xFF00_FF00, count: 64 * 64))
        try client.show(greenBuffer, on: child)
        try surface.commit()
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 360, y: 280) == green })
        try client.client.roundtrip()
        #expect(shared.events == [.release])
    }

    /// 1,000 buffers, shm and dma-buf, each attached, committed and destroyed (every tenth drawn by
    /// a frame, the others replaced unread; the dma-bufs, at lavapipe's row pitch, are imported as
    /// images and sampled in place): once the output settled, the process has the descriptors it
    /// had and the device the images it had, and the heap in use (`heapBytesInUse()`) grew by less
    /// than 32 KiB over one of the two runs of 500 (each from a client that then left). Not
    /// resident memory: llvmpipe now and then compiles a shader variant on its own thread after the
    /// warm-up, paging in 8 MiB of LLVM's code and keeping ~1.2 MB of heap (see
    /// ClientLifecycleTests); a cache filled once grows one run at most, a leak grows both. Without
    /// a leak a run grows by 0 to 7 KiB; 100 bytes leaked a buffer make it 58 KiB. Run in a process
    /// of its own, where no other test opens descriptors meanwhile.
    @Test func aThousandClientBuffersLeaveNoDescriptorImageOrHeapBehind() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let session = try HeadlessSession(width: 640, height: 480)
            // Each run of buffers comes from a client of its own that then leaves: the test client
            // keeps every object it destroyed until it disconnects, and would be counted too.
            func churnWithOneClient(_ count: Int) throws {
                let client = try SessionClient(session)
                let (surface, _) = try client.makeToplevel()
                let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
                for index in 0..<count {
                    let buffer: WlBufferProxy
                    if index % 2 == 0 {
                        buffer = try client.makeBuffer(width: 32, height: 32, format: .xrgb8888, fill: fillPixels(0xFF00_00FF, count: 32 * 32))
                    } else {
                        let pixels = LinearDmabuf(width: 32, height: 32, pixel: [0xFF, 0, 0, 0xFF])
                        buffer = try pixels.buffer(dmabuf, format: 0x3432_5258)
                        close(pixels.fd)
                    }
                    try client.show(buffer, on: surface)
                    try client.client.roundtrip()
                    // Drawn: a frame presented at its commit may already have come during the
                    // roundtrip, so this waits for the output to show the commit, not for one more frame.
                    if index % 10 == 9 {
                        guard try session.run(seconds: 20, until: { session.compositor.outputs.allSatisfy(\.isSettled) }) else { exit(3) }
                    }
                    try buffer.destroy()
                }
                try client.client.roundtrip()
                try session.run(seconds: 0.2)
                // A frame on the GPU holds a descriptor more (its completion's source) until committed.
                guard try session.run(seconds: 30, until: { session.compositor.outputs.allSatisfy(\.isSettled) }) else { exit(6) }
            }
            func churn(_ count: Int) throws {
                try churnWithOneClient(count)
                guard try session.run(seconds: 30, until: {
                    session.compositor.display.connectedClients.isEmpty && session.compositor.outputs.allSatisfy(\.isSettled)
                }) else { exit(9) }
            }
            try churn(100)
            let descriptors = openDescriptorCount()
            // Images, not memory allocations: shm uploads leave a varying number of idle staging
            // buffers in the pool, while each dma-buf's image owns its imported memory.
            guard let device = session.compositor.device?.context else { exit(7) }
            let images = device.liveImages
            var heap = [heapBytesInUse()]
            for _ in 0..<2 {
                try churn(500)
                heap.append(heapBytesInUse())
            }
            print("\(descriptors) \(openDescriptorCount()) \(images) \(device.liveImages) \(heap[1] - heap[0]) \(heap[2] - heap[1])")
            exit(0)
        }
        guard let result else { return }
        let measured = integers(printedIn: result.standardOutputContent)
        try #require(measured.count == 6, "the child printed \(measured)")
        #expect(measured[1] == measured[0], "descriptors open before and after the buffers")
        #expect(measured[3] == measured[2], "images on the device before and after the buffers")
        #expect(min(measured[4], measured[5]) < 32 << 10, "the heap grew \(measured[4]) and then \(measured[5]) bytes")
    }

    /// The fuzzer's seed 23, iteration 999: one dma-buf shown on a window and on its subsurface,
    /// the client then killed by a protocol error. Once it is gone the process has the descriptors
    /// it had before the client came, and the window's layers and contents are freed, though
    /// nothing on screen changes after the frame that removed the window.
    @Test func aDmabufOnAWindowAndItsSubsurfaceLeavesNoDescriptorOnceItsClientIsKilled() async {
        await #expect(processExitsWith: .success) {
            let session = try HeadlessSession(width: 640, height: 480)
            try session.run(seconds: 0.3)
            let descriptors = openDescriptorCount()
            weak var contents: ClientBufferContents?
            weak var container: Layer?
            do {
                let client = try SessionClient(session)
                let dmabuf = try client.client.bind(ZwpLinuxDmabufV1Proxy.self, version: 3)
                let subcompositor = try client.client.bind(WlSubcompositorProxy.self, version: 1)
                let (surface, _) = try client.makeToplevel()
                let pixels = LinearDmabuf(width: 64, height: 64, pixel: [0xFF, 0, 0, 0xFF])
                let params = try pixels.params(dmabuf)
                let buffer = try params.createImmed(width: 64, height: 64, format: 0x3432_5258, flags: [])
                close(pixels.fd)
                try client.show(buffer, on: surface)
                try client.client.roundtrip()
                guard try session.run(seconds: 30, until: { session.screen?.pixel(x: 320, y: 240) == blue }) else { exit(3) }
                let node = session.compositor.nodes.values.first
                contents = node?.content.externalContents as? ClientBufferContents
                container = node?.container
                let child = try client.compositor.createSurface()
                _ = try subcompositor.getSubsurface(surface: child, parent: surface)
                try client.show(buffer, on: child)
                try surface.commit()
                try client.client.roundtrip()
                try session.run(seconds: 0.3)
                // params was used: the client is disconnected with an error.
                try params.create(width: 64, height: 64, format: 0x3432_5258, flags: [])
                _ = try? client.client.roundtrip()
            }
            guard try session.run(seconds: 30, until: { session.compositor.nodes.isEmpty && session.screen?.pixel(x: 320, y: 240) != blue }) else { exit(5) }
            try session.run(seconds: 0.3)
            guard contents == nil, container == nil else { exit(6) }
            guard openDescriptorCount() == descriptors else { exit(4) }
        }
    }
}

private let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
