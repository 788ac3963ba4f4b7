import AppProcesses
import Foundation
import Glibc
import SystemCalls
import Testing

@Suite struct ClientProcessTests {
    @Test func anExitIsToldAsItsStatusAndASignalAsAShellReportsIt() throws {
        let exited = try ClientProcess(arguments: ["sh", "-c", "exit 3"], environment: [:])
        let killed = try ClientProcess(arguments: ["sh", "-c", "kill -9 $$"], environment: [:])
        let deadline = Date().addingTimeInterval(10)
        while !(exited.poll() && killed.poll()), Date() < deadline { usleep(10_000) }
        #expect(exited.exit == .status(3))
        #expect(exited.exit?.shellStatus == 3)
        #expect(killed.exit == .signal(9))
        #expect(killed.exit?.shellStatus == 137)
        #expect(killed.exit?.description == "signal 9")
    }

    @Test func theExitDescriptorTurnsReadableWhenTheProcessExitsAndNotBefore() throws {
        let app = try ClientProcess(arguments: ["sleep", "30"], environment: [:])
        defer { app.terminate(graceSeconds: 0) }
        let descriptor = try #require(app.exitDescriptor)
        var entry = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(Glibc.poll(&entry, 1, 0) == 0)
        kill(app.pid, SIGKILL)
        #expect(Glibc.poll(&entry, 1, 60_000) == 1)
        #expect(entry.revents & Int16(POLLIN) != 0)
        #expect(app.poll())
        #expect(app.exit == .signal(9))
    }

    @Test func theAppGetsItsParentsEnvironmentWithTheGivenAddedAndTheRemovedLeftOutAndBothOutputsAreCaptured() throws {
        let parent = ["PATH": "/usr/bin:/bin", "KEPT": "kept", "REMOVED": "removed", "WAYLAND_DISPLAY": "wayland-0"]
        let app = try ClientProcess(
            arguments: ["sh", "-c", #"echo "$WAYLAND_DISPLAY $KEPT [$REMOVED]"; echo error >&2"#], environment: ["WAYLAND_DISPLAY": "wayland-7"],
            removing: ["REMOVED"], parentEnvironment: parent, capturingOutput: true)
        let descriptor = try #require(app.outputDescriptor)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { read(descriptor.rawValue, $0.baseAddress, $0.count) }
            if count > 0 { output += buffer[..<count] } else if count == 0 { break } else { usleep(10_000) }
        }
        #expect(String(decoding: output, as: UTF8.self) == "wayland-7 kept []\nerror\n")
        app.terminate()
        #expect(app.exit == .status(0))
    }

    @Test func passedDescriptorsArriveAsThreeFourInTheirOrder() throws {
        var first: [Int32] = [-1, -1]
        var second: [Int32] = [-1, -1]
        #expect(pipe(&first) == 0)
        #expect(pipe(&second) == 0)
        for end in first + second { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { (first + second).forEach { close($0) } }
        let app = try ClientProcess(
            arguments: ["sh", "-c", "echo three >&3; echo four >&4"], environment: [:],
            passing: [FileDescriptor(rawValue: second[1]), FileDescriptor(rawValue: first[1])])
        let deadline = Date().addingTimeInterval(10)
        while !app.poll(), Date() < deadline { usleep(10_000) }
        close(first[1])
        close(second[1])
        first[1] = -1
        second[1] = -1
        func readAll(_ descriptor: Int32) -> String {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            return String(decoding: buffer[..<max(0, count)], as: UTF8.self)
        }
        #expect(app.exit == .status(0))
        #expect(readAll(second[0]) == "three\n")
        #expect(readAll(first[0]) == "four\n")
        #expect(ClientProcess.inheritedDescriptorNumbers(count: 2) == [3, 4])
    }

    @Test func aProcessOwnsTheProcessesItStartedButNotItsParent() throws {
        let app = try ClientProcess(arguments: ["sh", "-c", "sleep 30 & echo $!; wait"], environment: [:], capturingOutput: true)
        defer { app.terminate(graceSeconds: 0) }
        let child = try #require(pid_t(try firstLine(of: app)))
        #expect(app.owns(app.pid))
        #expect(app.owns(child))
        #expect(!app.owns(getpid()))
        kill(child, SIGKILL)
    }
}

/// Test clients must not outlive their test: a client leads a process group that ends with it,
/// and a test's client is killed by the kernel when the test process goes.
@Suite struct ClientProcessLifetimeTests {
    /// Whether `pid` runs (exists and is not a zombie left to a parent that does not reap).
    private func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }

    @Test func terminatingAProcessEndsTheProcessesItStartedInTheBackground() throws {
        let app = try ClientProcess(arguments: ["sh", "-c", "sleep 30 & echo $!; wait"], environment: [:], capturingOutput: true)
        let child = try #require(pid_t(try firstLine(of: app)))
        #expect(isRunning(child))
        app.terminate(graceSeconds: 1)
        let deadline = Date().addingTimeInterval(5)
        while isRunning(child), Date() < deadline { usleep(10_000) }
        #expect(!isRunning(child))
    }

    @Test func whatAnExitedProcessLeftBehindIsKilledWhenItIsReaped() throws {
        // The shell starts sleep and exits: the sleep, orphaned, is still in its group.
        let app = try ClientProcess(arguments: ["sh", "-c", "sleep 30 & echo $!"], environment: [:], capturingOutput: true)
        let child = try #require(pid_t(try firstLine(of: app)))
        let deadline = Date().addingTimeInterval(5)
        while !app.poll(), Date() < deadline { usleep(10_000) }
        #expect(app.exit == .status(0))
        while isRunning(child), Date() < deadline { usleep(10_000) }
        #expect(!isRunning(child))
    }

    @Test func aTestsClientIsSetToBeKilledWhenItsParentGoes() throws {
        // prctl(PR_GET_PDEATHSIG = 2) as the client sees it.
        let script = "import ctypes; s = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(s)); print(s.value)"
        let client = try ClientProcess(
            arguments: ["/usr/bin/python3", "-c", script], environment: [:], capturingOutput: true, endingWithThisProcess: true)
        defer { client.terminate() }
        #expect(try firstLine(of: client) == String(SIGKILL))
        let plain = try ClientProcess(arguments: ["/usr/bin/python3", "-c", script], environment: [:], capturingOutput: true)
        defer { plain.terminate() }
        #expect(try firstLine(of: plain) == "0")
    }
}

/// The first line a process started with `capturingOutput` prints (10 s at most).
private func firstLine(of process: ClientProcess) throws -> String {
    let descriptor = try #require(process.outputDescriptor)
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64)
    let deadline = Date().addingTimeInterval(10)
    while !output.contains(UInt8(ascii: "\n")), Date() < deadline {
        let count = buffer.withUnsafeMutableBytes { read(descriptor.rawValue, $0.baseAddress, $0.count) }
        if count > 0 { output += buffer[..<count] } else { usleep(10_000) }
    }
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .newlines)
}
