internal import CVitrineProcess
import Foundation
import Glibc
public import SystemCalls

/// A client application started by the compositor, with WAYLAND_DISPLAY pointing at it. It leads
/// a process group of its own, which the processes it starts join (a shell wrapper's program, a
/// session bus it runs): once it has exited and is reaped, what is left of the group is killed.
public final class ClientProcess {
    public let pid: Glibc.pid_t
    /// How it ended, once `poll()` or `terminate()` reaped it.
    public private(set) var exit: ProcessExit?
    /// With `capturingOutput`, the non-blocking read end of a pipe that receives the app's standard
    /// output and standard error; closed with the process object.
    public var outputDescriptor: FileDescriptor? { output?.fileDescriptor }
    private let output: OwnedFileDescriptor?
    /// Readable once the process has exited (its pidfd): an event loop wakes on it instead of
    /// polling `poll()`. Nil where the kernel has no pidfd_open (Linux before 5.3); the owner then
    /// polls.
    public var exitDescriptor: FileDescriptor? { exitNotice?.fileDescriptor }
    private let exitNotice: OwnedFileDescriptor?

    /// Starts `arguments` (the first is looked up in PATH) with `environment` added to
    /// `parentEnvironment` (ours by default), less the variables in `removing`, in
    /// `workingDirectory` (ours when nil). `standardOutput`, when given, receives both standard
    /// output and standard error; `capturingOutput` sends them to `outputDescriptor` instead.
    /// `passing` descriptors are the child's 3, 4, … in their order (`inheritedDescriptorNumbers`);
    /// nothing else of ours reaches it. With `endingWithThisProcess`, the kernel kills it
    /// (SIGKILL, through setpriv's --pdeathsig) when the thread that started it ends, the whole
    /// process included however it ends: for tests, whose clients must not outlive a run killed
    /// by a timeout.
    public init(
        arguments: [String], environment: [String: String], removing removed: [String] = [],
        parentEnvironment: [String: String] = ProcessInfo.processInfo.environment,
        workingDirectory: String? = nil, standardOutput: String? = nil, capturingOutput: Bool = false,
        passing descriptors: [FileDescriptor] = [], endingWithThisProcess: Bool = false
    ) throws {
        let arguments = endingWithThisProcess ? ["setpriv", "--pdeathsig", "KILL", "--"] + arguments : arguments
        var merged = parentEnvironment
        for name in removed { merged[name] = nil }
        for (key, value) in environment { merged[key] = value }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // libwayland's event loop blocks the signals it watches; the app must not inherit that mask.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        // Group 0: a new group, led by the child.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let workingDirectory {
            vitrine_spawn_file_actions_addchdir(&actions, workingDirectory)
        }
        if let standardOutput {
            posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        var pipeEnds: [Int32] = [-1, -1]
        if capturingOutput {
            guard pipe(&pipeEnds) == 0 else { throw AppError.pipeFailed(.current("pipe")) }
            // Only the child's standard output and error (dup2 copies drop the flag) keep the write end.
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(pipeEnds[0], F_SETFL, O_NONBLOCK)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        }
        // After the output's dup2s, as a pipe end may have a target's number. The copies lie above
        // every target, so that no target's dup2 overwrites a descriptor still to be passed; a
        // dup2 leaves its copy without close-on-exec.
        var copies: [OwnedFileDescriptor] = []
        for (descriptor, target) in zip(descriptors, Self.inheritedDescriptorNumbers(count: descriptors.count)) {
            let copy = fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, Self.firstInheritedDescriptor + Int32(descriptors.count))
            guard copy >= 0 else {
                let error = SystemCallError.current("fcntl(F_DUPFD_CLOEXEC)")
                if capturingOutput { pipeEnds.forEach { _ = close($0) } }
                throw AppError.descriptorFailed(error)
            }
            copies.append(OwnedFileDescriptor(rawValue: copy))
            posix_spawn_file_actions_adddup2(&actions, copy, target)
        }
        var child: pid_t = 0
        let result = posix_spawnp(&child, arguments[0], &actions, &attributes, argv, envp)
        if capturingOutput { close(pipeEnds[1]) }
        guard result == 0 else {
            if capturingOutput { close(pipeEnds[0]) }
            throw AppError.spawnFailed(arguments[0], Errno(rawValue: result))
        }
        pid = child
        output = capturingOutput ? OwnedFileDescriptor(rawValue: pipeEnds[0]) : nil
        // The child is not reaped before `poll()`, so the pid is still this child's even if it
        // has already exited (its pidfd is then readable at once).
        exitNotice = try? OwnedFileDescriptor(processID: child)
    }

    private static let firstInheritedDescriptor: Int32 = 3

    /// The numbers `passing` descriptors have in the child: 3, 4, … (after standard input, output
    /// and error).
    public static func inheritedDescriptorNumbers(count: Int) -> [Int32] {
        (0..<Int32(count)).map { firstInheritedDescriptor + $0 }
    }

    /// Reaps the process if it exited; returns whether it has.
    @discardableResult
    public func poll() -> Bool {
        guard exit == nil else { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid {
            reaped(status)
            return true
        }
        return false
    }

    /// The app exited: the rest of its group is killed at once, while the group still holds the
    /// app's number (the kernel hands a process id out again only once no group uses it).
    private func reaped(_ status: Int32) {
        exit = ProcessExit(waitStatus: status)
        kill(-pid, SIGKILL)
    }

    /// Asks the app and the rest of its process group to end (SIGTERM), waits up to
    /// `graceSeconds` for the app to exit, then kills what is left of the group (SIGKILL), the
    /// app included. `wait` runs between checks and must block briefly: a compositor that runs a
    /// loop iteration there keeps serving the app while it shuts down.
    public func terminate(graceSeconds: Double = 2, waitingWith wait: () -> Void = { usleep(10_000) }) {
        guard !poll() else { return }
        signalGroup(SIGTERM)
        let deadline = Date().addingTimeInterval(graceSeconds)
        while Date() < deadline {
            if poll() { return }
            wait()
        }
        signalGroup(SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        reaped(status)
    }

    /// Sends `signal` to the app's process group (the app and the processes it started that did
    /// not leave the group), unless the app was reaped already.
    public func signalGroup(_ signal: Int32) {
        guard exit == nil else { return }
        kill(-pid, signal)
    }

    /// Whether `pid` is this process or one of its descendants (a browser's helper processes, or
    /// the program a shell wrapper started), as /proc tells.
    public func owns(_ pid: pid_t) -> Bool {
        var current = pid
        for _ in 0..<64 {
            if current == self.pid { return true }
            guard current > 1, let parent = Self.parent(of: current) else { return false }
            current = parent
        }
        return false
    }

    private static func parent(of pid: pid_t) -> pid_t? {
        // /proc/PID/stat: "PID (COMMAND) STATE PPID …"; the command may hold spaces and parentheses.
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}

/// How a process ended, as its wait status tells.
public enum ProcessExit: Equatable, Sendable, CustomStringConvertible {
    /// It exited with this code.
    case status(Int32)
    /// This signal ended it.
    case signal(Int32)

    public init(waitStatus: Int32) {
        self = waitStatus & 0x7f == 0 ? .status((waitStatus >> 8) & 0xff) : .signal(waitStatus & 0x7f)
    }

    /// "status N" or "signal N", as Vitrine's log and systemd status lines name it.
    public var description: String {
        switch self {
        case .status(let code): "status \(code)"
        case .signal(let signal): "signal \(signal)"
        }
    }

    /// The exit status a shell reports for it: the code, or 128 + the signal.
    public var shellStatus: Int32 {
        switch self {
        case .status(let code): code
        case .signal(let signal): 128 + signal
        }
    }
}

public enum AppError: Error, CustomStringConvertible {
    case spawnFailed(String, Errno)
    case pipeFailed(SystemCallError)
    case descriptorFailed(SystemCallError)

    public var description: String {
        switch self {
        case .spawnFailed(let program, let errno): "cannot start \(program): \(errno)"
        case .pipeFailed(let error): "cannot make a pipe for the app's output: \(error.errno)"
        case .descriptorFailed(let error): "cannot pass a descriptor to the app: \(error.errno)"
        }
    }
}
