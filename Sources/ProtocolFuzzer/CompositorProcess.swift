import Foundation
import Glibc
import SystemCalls

/// The compositor under test: `vitrine run --headless` as a child process on its own socket in a
/// private XDG_RUNTIME_DIR, so that its death is an exit status the fuzzer reads, not the fuzzer's.
final class CompositorProcess {
    let pid: pid_t
    let runtimeDirectory: String
    let socketPath: String
    /// Its control socket (captures, status).
    let controlPath: String
    let logPath: String
    private(set) var exit: String?

    enum StartError: Error, CustomStringConvertible {
        case spawn(Errno)
        case notListening(String)

        var description: String {
            switch self {
            case .spawn(let errno): "could not start vitrine: \(errno)"
            case .notListening(let log): "vitrine did not open its socket within 60 s; its log ends:\n\(log)"
            }
        }
    }

    init(executable: String, output: String) throws(StartError) {
        var template = Array((FileManager.default.temporaryDirectory.path + "/vitrine-fuzz-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { throw .spawn(SystemCallError.current("mkdtemp").errno) }
        runtimeDirectory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        socketPath = runtimeDirectory + "/wayland-fuzz"
        logPath = runtimeDirectory + "/vitrine.log"
        controlPath = runtimeDirectory + "/control"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Without an X display: the fuzzer speaks Wayland only, and an X client of another test
        // finding this display would start an Xwayland whose descriptors count as leaked.
        var arguments = [executable, "run", "--headless", output, "--socket", "wayland-fuzz", "--control-socket", controlPath, "--no-x11"]
        // The compositor ends with the fuzzer, however the fuzzer ends (Ctrl-C, a test runner's
        // timeout): util-linux's setpriv sets the parent-death signal and becomes the compositor.
        let setpriv = "/usr/bin/setpriv"
        if FileManager.default.isExecutableFile(atPath: setpriv) { arguments = [setpriv, "--pdeathsig", "TERM", "--"] + arguments }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory
        environment["WAYLAND_DISPLAY"] = nil
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, arguments[0], &actions, nil, argv, envp)
        guard result == 0 else { throw .spawn(Errno(rawValue: result)) }
        pid = child
        let deadline = Date().addingTimeInterval(60)
        while (try? WaylandSocket(path: socketPath)) == nil {
            if checkExit() != nil || Date() > deadline {
                stop()
                throw .notListening(logTail())
            }
            usleep(20_000)
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    /// How the compositor ended ("exit status 1", "signal 11 (Segmentation fault)"), or nil while it
    /// runs.
    @discardableResult
    func checkExit() -> String? {
        guard exit == nil else { return exit }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let signal = status & 0x7f
        exit = signal == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(signal) (\(String(cString: strsignal(signal))))"
        return exit
    }

    /// SIGTERM, then SIGKILL after 5 s; waits for the process.
    func stop() {
        guard checkExit() == nil else { return }
        kill(pid, SIGTERM)
        for _ in 0..<250 where checkExit() == nil { usleep(20_000) }
        if checkExit() == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exit = "killed after SIGTERM did not stop it"
        }
    }

    /// Open descriptors, or nil once the process is gone.
    func descriptorCount() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// Resident memory in KiB (VmRSS), or nil once the process is gone.
    func residentKiB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// What explains the compositor's end: Swift's fatal error and the top of the crashed thread's
    /// backtrace when it has them, or else the last lines of its log.
    func logTail(lines count: Int = 30) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let crashed = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix(" crashed:") }) else {
            return lines.suffix(count).joined(separator: "\n")
        }
        let fatal = lines.filter { $0.contains("Fatal error") || $0.hasPrefix("*** Program crashed") }
        let frames = lines[(crashed + 1)...].drop { $0.isEmpty }.prefix { !$0.isEmpty }.prefix(16)
        return (fatal + [lines[crashed]] + frames).joined(separator: "\n")
    }
}
