import Foundation
import Glibc
import Testing

/// `vitrine run --config` as systemd runs it (Type=notify, WatchdogSec=): the real command, with a
/// notification socket of the test's, on a headless output.
@Suite struct KioskSessionTests {
    /// Where `swift build` put the test binary, and the vitrine command beside it (.ci/run builds it
    /// before the tests).
    static var vitrine: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("vitrine").path
    }

    /// A kiosk session on a board whose app section is `app`, run until `done` holds for the
    /// notifications so far (at most 60 s), then stopped with SIGTERM. Returns every notification
    /// and what vitrine logged.
    func runSession(app: String, until done: ([String]) -> Bool) throws -> (messages: [String], log: String, status: Int32) {
        try #require(FileManager.default.isExecutableFile(atPath: Self.vitrine), "build vitrine first: swift build --product vitrine")
        let socket = try NotificationSocket(abstract: false)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-kiosk-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let board = folder + "/board.toml"
        try """
            [[output]]
            connector = "Virtual-1"
            scale = 2

            [app]
            \(app)
            """.write(toFile: board, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.vitrine)
        process.arguments = ["run", "--headless", "320x240@60", "--config", board, "--socket", "vitrine-kiosk-\(UUID().uuidString.prefix(8))"]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = socket.name
        environment["WATCHDOG_USEC"] = "400000"  // a WATCHDOG=1 every 200 ms
        environment["XDG_RUNTIME_DIR"] = folder
        process.environment = environment
        let log = folder + "/vitrine.log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        var messages: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !done(messages) {
            if let message = socket.receive() { messages.append(message) } else { usleep(20_000) }
        }
        process.terminate()
        process.waitUntilExit()
        while let message = socket.receive() { messages.append(message) }
        return (messages, try String(contentsOfFile: log, encoding: .utf8), process.terminationStatus)
    }

    @Test func readyFollowsTheFirstFrameTheAppIsRestartedAndTheLoopFeedsTheWatchdog() throws {
        // Long enough for the first frame, two restarts (0.5 s, then 1 s) and the third run's exit,
        // whose output is in the log by then (the exit drains the app's pipe).
        let (messages, log, status) = try runSession(app: #"command = ["sh", "-c", "echo hello from the kiosk app; exit 7"]"#) { messages in
            messages.contains { $0.hasSuffix("restarting in 2000 ms") }
        }
        let statuses = messages.filter { $0 != "WATCHDOG=1" }
        let command = "sh -c echo hello from the kiosk app; exit 7"
        #expect(statuses.first?.hasPrefix("STATUS=running \(command) as pid ") == true)
        // What the app prints reaches Vitrine's log (the journal) under the app's name, each run.
        #expect(log.components(separatedBy: "info sh: [KioskShell] hello from the kiosk app\n").count - 1 >= 3)
        // Ready exactly once, saying what it shows; the board's scale of 2 applies.
        #expect(log.contains("output at scale 2.0"))
        #expect(statuses.filter { $0.hasPrefix("READY=1") } == ["READY=1\nSTATUS=showing a headless 320x240@60.0 output"])
        let exits = statuses.filter { $0.contains("exited") }
        #expect(exits.prefix(2) == [
            "STATUS=\(command) exited (status 7); restarting in 500 ms",
            "STATUS=\(command) exited (status 7); restarting in 1000 ms",
        ])
        #expect(statuses.contains { $0.hasPrefix("STATUS=running \(command) as pid ") && $0.hasSuffix("(start 2)") })
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 3)
        #expect(messages.last == "STOPPING=1")
        #expect(status == 0)
    }

    @Test func anAppThatStopsAnsweringPingsIsKilledAndRestarted() throws {
        // weston-simple-shm answers pings; once the test freezes it (SIGSTOP) it cannot.
        var frozen = false
        let (messages, _, _) = try runSession(app: """
            command = ["weston-simple-shm"]
            unresponsive-after = 1
            """) { messages in
            if !frozen, let first = messages.first(where: { $0.hasPrefix("STATUS=running weston-simple-shm as pid ") }),
                messages.contains(where: { $0.hasPrefix("READY=1") }), let pid = pid_t(first.split(separator: " ")[4])
            {
                // Give the client time to connect and bind xdg_wm_base before freezing it.
                usleep(500_000)
                kill(pid, SIGSTOP)
                frozen = true
            }
            return messages.contains { $0.hasSuffix("(start 2)") }
        }
        let statuses = messages.filter { $0 != "WATCHDOG=1" && !$0.hasPrefix("READY=1") }
        #expect(statuses.contains("STATUS=weston-simple-shm did not answer a ping within 1.0 seconds; killing it"))
        #expect(statuses.contains("STATUS=weston-simple-shm exited (signal 9); restarting in 500 ms"))
        #expect(statuses.contains { $0.hasPrefix("STATUS=running weston-simple-shm as pid ") && $0.hasSuffix("(start 2)") })
        // The first start's first frame is reported before it was frozen and killed.
        let firstFrame = try #require(statuses.firstIndex { $0.hasPrefix("STATUS=weston-simple-shm drew its first frame ") }, "\(statuses)")
        #expect(statuses[firstFrame].hasSuffix(" ms after its start"))
        #expect(firstFrame < statuses.firstIndex(of: "STATUS=weston-simple-shm exited (signal 9); restarting in 500 ms") ?? -1)
    }

    @Test func anXAppThatStopsAnsweringPingsIsKilledAndRestarted() throws {
        // GTK 3 on X11 answers _NET_WM_PING through Xwayland; once the test freezes it (SIGSTOP)
        // it cannot.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("XwaylandTests/Clients/gtk3_x11_form.py").path
        let command = "/usr/bin/python3 \(script)"
        var frozen = false
        let (messages, _, _) = try runSession(app: """
            command = ["/usr/bin/python3", "\(script)"]
            environment = { GDK_BACKEND = "x11", NO_AT_BRIDGE = "1" }
            unresponsive-after = 1
            """) { messages in
            if !frozen, let first = messages.first(where: { $0.hasPrefix("STATUS=running \(command) as pid ") }),
                messages.contains(where: { $0.hasPrefix("STATUS=\(command) drew its first frame ") }),
                let pid = pid_t(first.split(separator: " ").last ?? "")
            {
                kill(pid, SIGSTOP)
                frozen = true
            }
            return messages.contains { $0.hasSuffix("(start 2)") }
        }
        let statuses = messages.filter { $0 != "WATCHDOG=1" && !$0.hasPrefix("READY=1") }
        #expect(statuses.contains("STATUS=\(command) did not answer a ping within 1.0 seconds; killing it"), "\(statuses)")
        #expect(statuses.contains("STATUS=\(command) exited (signal 9); restarting in 500 ms"))
        #expect(statuses.contains { $0.hasPrefix("STATUS=running \(command) as pid ") && $0.hasSuffix("(start 2)") })
    }

    @Test func anAppThatDrawsNothingNewIsKilledAndRestartedWhenTheBoardAsksForIt() throws {
        // An idle terminal draws a few frames, then nothing: with no-frame-after = 2 that counts
        // as hung (which is why the board setting is off by default).
        let (messages, _, _) = try runSession(app: """
            command = ["foot", "sh", "-c", "sleep 60"]
            no-frame-after = 2
            """) { messages in messages.contains { $0.hasSuffix("(start 2)") } }
        let statuses = messages.filter { $0 != "WATCHDOG=1" && !$0.hasPrefix("READY=1") }
        let command = "foot sh -c sleep 60"
        #expect(statuses.filter { $0.contains("presented no frame") } == [
            "STATUS=\(command) presented no frame for 2.0 seconds; killing it",
        ])
        #expect(statuses.contains("STATUS=\(command) exited (signal 9); restarting in 500 ms"))
        #expect(statuses.contains { $0.hasPrefix("STATUS=running \(command) as pid ") && $0.hasSuffix("(start 2)") })
    }
}
