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
        let descriptor = try #require(app.outputDescriptor)
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        let deadline = Date().addingTimeInterval(10)
        while !output.contains(UInt8(ascii: "\n")), Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { read(descriptor.rawValue, $0.baseAddress, $0.count) }
            if count > 0 { output += buffer[..<count] } else { usleep(10_000) }
        }
        let child = try #require(pid_t(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .newlines)))
        #expect(app.owns(app.pid))
        #expect(app.owns(child))
        #expect(!app.owns(getpid()))
        kill(child, SIGKILL)
    }
}
