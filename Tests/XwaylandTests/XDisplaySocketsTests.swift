import AppProcesses
import Foundation
import Glibc
import SystemCalls
import Testing
import Xwayland

/// Display numbers far above what a desktop or another suite's Vitrine takes.
private let testNumbers = 600...699

@Suite struct XDisplaySocketsTests {
    @Test func twoDisplaysTakeDifferentNumbersAndLeaveNoFileBehind() throws {
        var first: XDisplaySockets? = try XDisplaySockets.open(numbers: testNumbers)
        var second: XDisplaySockets? = try XDisplaySockets.open(numbers: testNumbers)
        let numbers = try [#require(first?.number), #require(second?.number)]
        #expect(numbers[0] != numbers[1])
        #expect(second?.displayName == ":\(numbers[1])")
        for number in numbers {
            let lock = try String(contentsOfFile: "/tmp/.X\(number)-lock", encoding: .utf8)
            #expect(lock == String(format: "%10d\n", getpid()))
            var status = stat()
            #expect(stat("/tmp/.X11-unix/X\(number)", &status) == 0)
            #expect(status.st_mode & S_IFMT == S_IFSOCK)
        }
        first = nil
        second = nil
        for number in numbers {
            #expect(access("/tmp/.X\(number)-lock", F_OK) != 0)
            #expect(access("/tmp/.X11-unix/X\(number)", F_OK) != 0)
        }
    }

    @Test func aLockLeftByAProcessThatIsGoneIsTakenOver() throws {
        try expectTakenOver(number: 650 + Int.random(in: 0..<40)) { Array(String(format: "%10d\n", $0).utf8) }
    }

    @Test func aLockLeftByAGoneWlrootsCompositorIsTakenOver() throws {
        // wlroots writes the pid in ten characters and a NUL, no newline.
        try expectTakenOver(number: 640 + Int.random(in: 0..<10)) { Array(String(format: "%10d", $0).utf8) + [0] }
    }

    /// Display `number`'s lock, written as `contents` gives for a process that is gone, is taken over.
    private func expectTakenOver(number: Int, contents: (pid_t) -> [UInt8]) throws {
        // A pid that was surely free a moment ago: a child that exited and was reaped.
        let gone = try ClientProcess(arguments: ["true"], environment: [:])
        while !gone.poll() { usleep(1000) }
        let lockPath = "/tmp/.X\(number)-lock"
        unlink(lockPath)
        try Data(contents(gone.pid)).write(to: URL(fileURLWithPath: lockPath))
        let sockets = try XDisplaySockets.open(numbers: number...number)
        #expect(sockets.number == number)
        #expect(try String(contentsOfFile: lockPath, encoding: .utf8) == String(format: "%10d\n", getpid()))
    }

    @Test func aLockOfALiveProcessIsLeftAlone() throws {
        let number = 690 + Int.random(in: 0..<10)
        let lockPath = "/tmp/.X\(number)-lock"
        unlink(lockPath)
        // Our parent is alive for certain.
        try String(format: "%10d\n", getppid()).write(toFile: lockPath, atomically: false, encoding: .utf8)
        defer { unlink(lockPath) }
        #expect(throws: XwaylandError.noFreeDisplay(number...number)) { try XDisplaySockets.open(numbers: number...number) }
        #expect(try String(contentsOfFile: lockPath, encoding: .utf8) == String(format: "%10d\n", getppid()))
    }

    @Test func aClientConnectingToEitherAddressIsWaitingOnTheSockets() throws {
        let sockets = try XDisplaySockets.open(numbers: testNumbers)
        let addresses = [
            UnixSocketAddress(abstractName: "/tmp/.X11-unix/X\(sockets.number)")!, UnixSocketAddress(path: "/tmp/.X11-unix/X\(sockets.number)")!,
        ]
        for (address, listening) in zip(addresses, sockets.sockets) {
            let client = try OwnedFileDescriptor.unixStreamSocket(blocking: true)
            #expect(address.withSocketAddress { connect(client.rawValue, $0, $1) } == 0)
            var ready = pollfd(fd: listening.rawValue, events: Int16(POLLIN), revents: 0)
            #expect(Glibc.poll(&ready, 1, 1000) == 1)
            let accepted = accept(listening.rawValue, nil, nil)
            #expect(accepted >= 0)
            close(accepted)
        }
    }
}
