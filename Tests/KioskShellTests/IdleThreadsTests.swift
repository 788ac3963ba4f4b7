import AppProcesses
import ControlSocket
import Foundation
import Glibc
import Testing

/// An idle kiosk sleeps in every thread, whatever it did before: the Vulkan renderer's frame
/// completions and the control socket's slow work run on threads of their own, and a tiled layer's
/// tiles on a serial queue, none on libdispatch's pool, whose first worker starts a monitor that
/// wakes the process every second from then on.
@Suite struct IdleThreadsTests {
    /// Wakeups of all of `pid`'s threads so far (each voluntary context switch ends in one).
    func wakeups(of pid: Int32) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").reduce(0) { total, thread in
            let status = try String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") })
            return total + (Int(line.split(separator: "\t").last ?? "") ?? 0)
        }
    }

    /// The wakeups of process `pid` over three seconds, half a second after what came before.
    func idleWakeups(of pid: Int32) throws -> Int {
        usleep(500_000)
        let before = try wakeups(of: pid)
        sleep(3)
        return try wakeups(of: pid) - before
    }

    func idleWakeups(of vitrine: RunningVitrine) throws -> Int {
        try idleWakeups(of: vitrine.process.processIdentifier)
    }

    @Test func aKioskIdleAfterAClientDrewWithVulkanWakesNoThread() throws {
        let vitrine = try RunningVitrine(options: ["--renderer", "vulkan"])
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        let display = ["XDG_RUNTIME_DIR": vitrine.folder, "WAYLAND_DISPLAY": vitrine.display]
        var client: ClientProcess? = try ClientProcess(arguments: ["weston-simple-shm"], environment: display, endingWithThisProcess: true)
        // Its frames wait for the GPU's completions; gone, it leaves nothing to do.
        sleep(2)
        #expect(client?.poll() == false, "weston-simple-shm ended by itself")
        client?.terminate()
        client = nil
        #expect(try idleWakeups(of: vitrine) == 0)
    }

    @Test func aKioskIdleAfterAPNGCaptureWakesNoThread() throws {
        let vitrine = try RunningVitrine(options: ["--renderer", "cpu"])
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing()
        // Encoding the PNG is the control socket's slow work, done away from the compositor's loop.
        let capture = ControlRequest(command: .capture, format: .png, output: 0)
        guard case .success = try ControlClient.send(capture, to: vitrine.controlSocket, timeoutSeconds: 30) else {
            Issue.record("the capture failed")
            return
        }
        #expect(try idleWakeups(of: vitrine) == 0)
    }

    /// An app's TiledLayer draws its tiles on its cache's serial queue, which libdispatch serves from
    /// its overcommit threads, not from the pool that the monitor watches: idle once they are drawn,
    /// the app wakes no thread (a global queue would start the monitor: once a second).
    @Test func anAppIdleAfterItsTiledLayerDrewTilesWakesNoThread() throws {
        let app = Process()
        app.executableURL = URL(fileURLWithPath: KioskSessionTests.vitrine).deletingLastPathComponent()
            .appendingPathComponent("tiled-layer-idle")
        let (input, output) = (Pipe(), Pipe())
        (app.standardInput, app.standardOutput) = (input, output)
        try app.run()
        // Its standard input ending ends it, whatever the test's outcome.
        defer {
            try? input.fileHandleForWriting.close()
            app.waitUntilExit()
        }
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        // The 1024 × 1024 points of the view, in 256 × 256 tiles.
        #expect(line == "drew 16 tiles\n")
        #expect(try idleWakeups(of: app.processIdentifier) == 0)
    }
}
