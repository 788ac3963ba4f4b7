import Foundation
import Glibc
import Graphics
import Testing

/// Displays that are not there at start, or change while lit, on virtio-gpu in the QEMU guest (its
/// own boot, with two heads): a kiosk whose board names the second head starts while that head
/// is unplugged and lights it, app included, once it is plugged in; and the first head resized
/// through QEMU's D-Bus display (a new preferred mode, with a hotplug uevent) is set to the new
/// mode while foot runs, and foot's window fills it.
@Suite(.guestTimeLimit) struct DisplayChangeTests {
    /// The first head's mode at boot, and the one it is resized to.
    static let width = 1024
    static let height = 768
    static let resized = (width: 800, height: 600)
    static let background = KMSFrameTests.background

    @Test func aKioskStartedBeforeItsDisplayIsPluggedInLightsItAndThenStartsTheApp() throws {
        let run = try DisplayChangeRun.shared.get()
        let log = run.text("vitrine-wait.log")
        let waiting = try #require(log.range(of: "none of Virtual-2 has a display connected on /dev/dri/card0"), "\(log)")
        #expect(log.contains("waiting for a display to be plugged in; the app starts once it is lit"))
        #expect(run.output.contains("wait-alive"), "\(run.output)")
        // The app starts only after the display was lit: its start is logged after the hotplug.
        let lit = try #require(log.range(of: "Virtual-2 was connected: lit as Virtual-2 on /dev/dri/card0 (800x600@"), "\(log)")
        let started = try #require(log.range(of: "started foot"), "\(log)")
        #expect(waiting.upperBound < lit.lowerBound && lit.upperBound < started.lowerBound)
        #expect(log.contains("Virtual-2: lit after "), "\(log)")
        #expect(run.output.contains("vitrine-wait-status 0"), "\(run.output)")
        // The kernel's view: the second head scans out; foot fills it.
        let state = run.text("wait-state.txt")
        #expect(KMSFrameTests.crtc("crtc-1", in: state) == ["enable=1", "active=1"], "\(state)")
        let screen = try run.capture("wait-1")
        #expect(screen.width == 800 && screen.height == 600)
        #expect(screen.pixel(x: 400, y: 300) == Self.background && screen.pixel(x: 799, y: 599) == Self.background)
    }

    @Test func aResizedHeadIsSetToItsNewModeAndFootFillsIt() throws {
        let run = try DisplayChangeRun.shared.get()
        let log = run.text("vitrine-mode.log")
        #expect(log.contains("Virtual-1 on /dev/dri/card0 (\(Self.width)x\(Self.height)@"), "\(log)")
        #expect(log.contains("Virtual-1 changed mode from \(Self.width)x\(Self.height)@"), "\(log)")
        #expect(log.contains("output Virtual-1 changed mode: Virtual-1 on /dev/dri/card0 (800x600@"), "\(log)")
        #expect(run.output.contains("mode-same-pid"), "\(run.output)")
        #expect(run.output.contains("vitrine-mode-status 0"), "\(run.output)")
        // The kernel's atomic state: the CRTC runs the new mode, the primary plane covers it.
        let state = run.text("mode-state.txt")
        let crtc = DisplayChangeRun.section("crtc-0", in: state)
        #expect(crtc.contains("mode: \"800x600\""), "\(state)")
        #expect(state.contains("crtc-pos=800x600+0+0"), "\(state)")
        // A new client hears the new mode and logical size.
        let info = run.text("mode-info.txt")
        #expect(info.contains("width: 800 px, height: 600 px, refresh:"), "\(info)")
        #expect(info.contains("logical_width: 800, logical_height: 600"), "\(info)")
        // What the head scans out: 1024×768 of foot before, 800×600 of foot after, corner to corner.
        let before = try run.capture("mode-before")
        #expect(before.width == Self.width && before.height == Self.height)
        #expect(before.pixel(x: Self.width - 1, y: Self.height - 1) == Self.background)
        let after = try run.capture("mode-after")
        #expect(after.width == 800 && after.height == 600)
        #expect(after.pixel(x: 400, y: 300) == Self.background)
        #expect(after.pixel(x: 799, y: 599) == Self.background)
        #expect(after.pixel(x: 799, y: 0) == Self.background)
    }
}

/// The one boot of `DisplayChangeTests`.
struct DisplayChangeRun: Sendable {
    let directory: String
    let output: String

    static let shared = Result { try QEMUGuest.exclusively { try DisplayChangeRun.boot() } }

    func text(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }

    func capture(_ name: String) throws -> Image {
        try Image(contentsOfPNGFile: directory + "/" + name + ".png")
    }

    /// The lines of `object`'s block (e.g. crtc-0) in a debugfs atomic state: the indented ones after its name.
    static func section(_ object: String, in state: String) -> String {
        guard let start = state.range(of: ": \(object)\n") else { return "" }
        return state[start.upperBound...].split(separator: "\n").prefix { $0.first?.isWhitespace == true }.joined(separator: "\n")
    }

    static func boot() throws -> DisplayChangeRun {
        let vitrine = GuestRun.productsDirectory + "/vitrine"
        guard FileManager.default.isExecutableFile(atPath: vitrine) else { throw GuestRun.Failure.missingBinary(vitrine) }
        let directory = GuestRun.productsDirectory + "/hil-display-change"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let foot = GuestRun.footCommand
        let script = """
            set -u
            OUT=/tmp/hil-out
            mount -t debugfs none /sys/kernel/debug 2>/dev/null
            waitlog() { n=0; while [ $n -lt 120 ] && [ "$(grep -c "$2" $OUT/$1)" -lt $3 ]; do sleep 1; n=$((n + 1)); done; }
            # A kiosk whose board names the second head, unplugged at boot: it waits, then lights it.
            \(vitrine) run --kms --seat-manager direct --socket hil-wait --config $OUT/wait-board.toml -- \(foot) > $OUT/vitrine-wait.log 2>&1 &
            pid=$!
            waitlog vitrine-wait.log 'waiting for a display' 1
            sleep 5
            kill -0 $pid && echo "wait-alive"
            hil_head 1 800x600
            waitlog vitrine-wait.log 'first frame shown' 1
            sleep 15
            cat /sys/kernel/debug/dri/0/state > $OUT/wait-state.txt 2>&1
            hil_screendump wait-1 1
            kill -TERM $pid; wait $pid; echo "vitrine-wait-status $?"
            hil_head 1 off
            sleep 3
            # Every connected display (the first head): resized while foot runs.
            \(vitrine) run --kms --seat-manager direct --socket hil-mode -- \(foot) > $OUT/vitrine-mode.log 2>&1 &
            pid=$!
            waitlog vitrine-mode.log 'first frame shown' 1
            sleep 15
            hil_screendump mode-before 0
            hil_head 0 800x600
            waitlog vitrine-mode.log 'Virtual-1 changed mode' 1
            sleep 15
            WAYLAND_DISPLAY=hil-mode wayland-info > $OUT/mode-info.txt 2>&1
            cat /sys/kernel/debug/dri/0/state > $OUT/mode-state.txt 2>&1
            hil_screendump mode-after 0
            kill -0 $pid && echo "mode-same-pid"
            kill -TERM $pid; wait $pid; echo "vitrine-mode-status $?"
            """
        try script.write(toFile: directory + "/guest-script.sh", atomically: true, encoding: .utf8)
        try """
            [[output]]
            connector = "Virtual-2"

            [app]
            command = ["sleep", "600"]

            [cursor]
            visible = false
            """.write(toFile: directory + "/wait-board.toml", atomically: true, encoding: .utf8)
        let (status, log) = try GuestRun.runProcess(
            ["/usr/bin/env", "python3", GuestRun.harness, "run", "--out", directory, "--timeout", "540",
             "--display", "\(DisplayChangeTests.width)x\(DisplayChangeTests.height)", "--heads", "2",
             "--share", GuestRun.productsDirectory, directory + "/guest-script.sh"],
            timeoutSeconds: 600)
        guard status == 0 else { throw GuestRun.Failure.harness(status: status, directory: directory, log: log) }
        return DisplayChangeRun(directory: directory, output: (try? String(contentsOfFile: directory + "/output.txt", encoding: .utf8)) ?? "")
    }
}
