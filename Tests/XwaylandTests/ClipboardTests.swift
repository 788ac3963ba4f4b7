import AppProcesses
import Foundation
import Glibc
import Testing
import WaylandServer
import Xwayland

extension XwaylandSession {
    /// The folder of the Wayland socket the sessions' Wayland clients use.
    private static let runtimeDirectory: String = {
        let path = NSTemporaryDirectory() + "vitrine-x11-tests-\(getpid())"
        mkdir(path, 0o700)
        return path
    }()

    /// Starts a Wayland client on the session's compositor (listening on a socket of its own from
    /// the first call), without `DISPLAY`; its standard output and error go to `output`.
    func launchWayland(_ arguments: [String], output: String? = nil) throws -> ClientProcess {
        if waylandSocket == nil {
            waylandSocket = try compositor.listen(socketName: "vitrine-x11-\(UUID().uuidString.prefix(8))", in: Self.runtimeDirectory)
        }
        return try ClientProcess(
            arguments: arguments, environment: ["WAYLAND_DISPLAY": waylandSocket!, "XDG_RUNTIME_DIR": Self.runtimeDirectory],
            removing: ["DISPLAY"], standardOutput: output)
    }
}

/// X's selections and Wayland's are one: what a Wayland client copies (or selects, for the
/// primary selection), an X client pastes, and the other way, with Debian's wl-clipboard and xclip
/// on either side; CLIPBOARD is the clipboard and PRIMARY the primary selection, each apart.
@Suite(.serialized) struct ClipboardTests {
    @Test(arguments: [SelectionKind.clipboard, .primary])
    func textCopiedOnEitherSidePastesOnTheOther(_ kind: SelectionKind) throws {
        let session = try XwaylandSession(width: 640, height: 480)
        let seat = session.compositor.seat
        let other: SelectionKind = kind == .clipboard ? .primary : .clipboard
        let xSelection = kind == .clipboard ? "clipboard" : "primary"
        let waylandOption = kind == .clipboard ? [] : ["--primary"]
        // Copied by a Wayland client before any X client runs (Xwayland is not started yet).
        let copier = try session.launchWayland(["wl-copy", "--foreground"] + waylandOption + ["from wayland ✓"], output: "/dev/null")
        defer { copier.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 30) { seat.selectionMimeTypes(kind)?.contains("text/plain;charset=utf-8") == true })
        // The first X clients (waiting together while the first starts Xwayland) are served only
        // once the window manager has taken the X selection for the Wayland one: each one's one
        // paste gets it.
        let pasters = try (0..<6).map { _ in try session.launchPrinting(["xclip", "-selection", xSelection, "-o"]) }
        defer { pasters.forEach { $0.process.terminate(graceSeconds: 1) } }
        #expect(try session.run(seconds: 60) { pasters.allSatisfy { $0.process.poll() } })
        #expect(pasters.map { $0.printed() } == Array(repeating: "from wayland ✓", count: 6))
        // X's TARGETS name the Wayland source's types as X knows them.
        let targets = try session.output(of: ["xclip", "-selection", xSelection, "-o", "-t", "TARGETS"])
        #expect(targets.split(separator: "\n").contains("UTF8_STRING"))

        // Copied by an X client: the Wayland selection becomes X's, and wl-copy's is cancelled.
        let text = NSTemporaryDirectory() + "x11-clipboard-\(UUID().uuidString).txt"
        try "from x ✓".write(toFile: text, atomically: true, encoding: .utf8)
        defer { unlink(text) }
        let xclip = try session.launch(["xclip", "-quiet", "-selection", xSelection, "-i", text], output: "/dev/null")
        defer { xclip.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 30) { seat.selectionProvider(kind) != nil })
        #expect(seat.selectionMimeTypes(kind)?.contains("text/plain;charset=utf-8") == true)
        #expect(try session.run(seconds: 10) { copier.poll() })
        let pastedFile = NSTemporaryDirectory() + "x11-clipboard-\(UUID().uuidString).txt"
        defer { unlink(pastedFile) }
        let paster = try session.launchWayland(["wl-paste", "--no-newline"] + waylandOption, output: pastedFile)
        defer { paster.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 30) { paster.poll() })
        #expect((try? String(contentsOfFile: pastedFile, encoding: .utf8)) == "from x ✓")
        // The other selection was never set.
        #expect(seat.selectionMimeTypes(other) == nil)

        // The X owner gone, the Wayland selection is empty.
        xclip.terminate(graceSeconds: 1)
        #expect(try session.run(seconds: 10) { seat.selectionMimeTypes(kind) == nil })
    }

    /// 20 MiB, more than one X request carries, crosses both ways incrementally (ICCCM's INCR:
    /// xclip sends and reads it so, and so does the bridge), byte for byte.
    @Test func twentyMebibytesCrossBothWaysIncrementally() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        let seat = session.compositor.seat
        // Text, as both sides take it: lines of 79 characters drawn from a fixed xorshift stream.
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 ".utf8)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var bytes = [UInt8](repeating: 10, count: 20 << 20)
        for index in bytes.indices where index % 80 != 79 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = alphabet[Int(state % UInt64(alphabet.count))]
        }
        let expected = Data(bytes)
        let folder = NSTemporaryDirectory() + "x11-incr-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try expected.write(to: URL(fileURLWithPath: folder + "/source.txt"))

        // Wayland to X.
        let copier = try session.launchWayland(
            ["sh", "-c", "exec wl-copy --foreground --type 'text/plain;charset=utf-8' < \(folder)/source.txt"], output: "/dev/null")
        defer { copier.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 30) { seat.selectionMimeTypes(.clipboard)?.contains("text/plain;charset=utf-8") == true })
        let xclip = try session.launch(["xclip", "-selection", "clipboard", "-o"], output: folder + "/x.txt")
        defer { xclip.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 120) { xclip.poll() })
        let pastedInX = try Data(contentsOf: URL(fileURLWithPath: folder + "/x.txt"))
        #expect(pastedInX.count == 20 << 20)
        #expect(checksum(pastedInX) == checksum(expected))

        // X to Wayland.
        let owner = try session.launch(["xclip", "-quiet", "-selection", "clipboard", "-i", folder + "/source.txt"], output: "/dev/null")
        defer { owner.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 30) { seat.selectionProvider(.clipboard) != nil })
        let paster = try session.launchWayland(["wl-paste", "--no-newline", "--type", "text/plain;charset=utf-8"], output: folder + "/wayland.txt")
        defer { paster.terminate(graceSeconds: 1) }
        #expect(try session.run(seconds: 120) { paster.poll() })
        let pastedInWayland = try Data(contentsOf: URL(fileURLWithPath: folder + "/wayland.txt"))
        #expect(pastedInWayland.count == 20 << 20)
        #expect(checksum(pastedInWayland) == checksum(expected))
    }

    /// FNV-1a, 64 bits: whether two 20 MiB pastes are the same, stated in a line when they are not.
    private func checksum(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
