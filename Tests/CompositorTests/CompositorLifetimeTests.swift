import DisplayBackend
import Foundation
import Glibc
import HeadlessBackend
import Testing
import Compositor
import WindowPolicy

/// A compositor that is shut down and dropped gives back everything it took: its memory, its
/// renderer's device and threads, its descriptors. WLCS starts and drops about a thousand of them
/// in one process, one per test.
@Suite struct CompositorLifetimeTests {
    /// Makes a compositor with a window policy on one headless output, runs a few loop turns, shuts
    /// it down and drops it; returns whether it was freed.
    static func cycle(renderer: RendererKind) throws -> Bool {
        weak var freed: Compositor?
        weak var freedBackend: HeadlessBackend?
        weak var freedOutput: HeadlessOutput?
        do {
            let backend = try HeadlessBackend(outputs: [
                HeadlessOutputConfiguration(mode: OutputMode(width: 320, height: 240, refreshMillihertz: 60_000))
            ])
            let compositor = try Compositor(backend: backend, renderer: renderer)
            compositor.windowPolicy = KioskWindowPolicy(compositor: compositor)
            for _ in 0..<5 { try compositor.dispatch(timeoutMilliseconds: 10) }
            compositor.shutdown()
            freed = compositor
            freedBackend = backend
            freedOutput = backend.headlessOutput(0)
        }
        if freedBackend != nil { exit(8) }
        if freedOutput != nil { exit(9) }
        return freed == nil
    }

    /// A session whose client shows a window, takes input (pointer, keyboard, touch) and shows a
    /// new buffer; the compositor is shut down with the client still connected. Returns whether the
    /// compositor was freed.
    static func windowCycle(renderer: RendererKind) throws -> Bool {
        weak var freed: Compositor?
        do {
            let session = try HeadlessSession(width: 320, height: 240, renderer: renderer)
            let window = try InputWindow(session)
            try session.run(seconds: 0.3)
            try window.client.show(try window.client.makeBuffer(width: 64, height: 64), on: window.surface)
            try session.compositor.dispatch(timeoutMilliseconds: 20)
            freed = session.compositor
        }
        return freed == nil
    }

    /// Makes and drops compositors in a child process; exits with success when each was freed and
    /// the later ones left the process with the descriptors and threads the first one left it.
    static func expectFreed(renderer: RendererKind) {
        do {
            // The first one loads what stays loaded (the Vulkan driver, its JIT); count after it.
            guard try cycle(renderer: renderer) else { exit(3) }
            let descriptors = openDescriptorCount()
            let threads = threadCount()
            for _ in 0..<3 {
                guard try cycle(renderer: renderer) else { exit(4) }
            }
            guard try windowCycle(renderer: renderer) else { exit(11) }
            if openDescriptorCount() != descriptors {
                let list = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.sorted().map { fd in "\(fd) -> \((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "?")" } ?? []
                try? list.joined(separator: "\n").write(toFile: "/tmp/lifetime-\(renderer).txt", atomically: true, encoding: .utf8)
                exit(5)
            }
            guard threadCount() == threads else { exit(6) }
        } catch {
            exit(7)
        }
    }

    @Test func aDroppedVulkanCompositorIsFreedWithItsThreadsAndDescriptors() async {
        await #expect(processExitsWith: .success) { Self.expectFreed(renderer: .vulkan) }
    }

    @Test func aDroppedCPUCompositorIsFreedWithItsThreadsAndDescriptors() async {
        await #expect(processExitsWith: .success) { Self.expectFreed(renderer: .cpu) }
    }
}
