import Foundation
import Testing

/// Natural scrolling from real evdev wheels, in the QEMU guest (its own boot), read by libinput:
/// QEMU's virtio tablet turns QMP's wheel-up and wheel-down buttons into REL_WHEEL, and a uinput
/// mouse (hil/uinput_wheel.py) has the high-resolution and horizontal wheels the tablet lacks.
/// hil/scroll_client.c (wl_seat 9) prints the wl_pointer events it receives. The board's
/// `[input.pointer] natural-scrolling` is true in one run of Vitrine and false in another; each
/// run turns the tablet's wheel one detent up and one down, the mouse's one right and one left,
/// then two half detents up.
@Suite(.guestTimeLimit) struct NaturalScrollTests {
    /// One wl_pointer.frame of a wheel turned by `v120` (120 = one detent, positive down or
    /// right): axis_source wheel (0), axis_value120, axis_relative_direction (identical 0,
    /// inverted 1) and axis at libinput's 15 degrees a detent. Axis 0 is vertical, 1 horizontal.
    static func wheel(_ v120: Int, direction: Int, axis: Int = 0) -> [String] {
        ["axis_source 0", "axis_value120 \(axis) \(v120)", "axis_relative_direction \(axis) \(direction)",
         String(format: "axis \(axis) %.2f", Double(v120) * 15 / 120)]
    }

    /// libinput offers the option on both (off by default), and the board sets it.
    @Test func libinputOffersNaturalScrollingOnBothWheelsAndTheBoardTurnsItOnAndOff() throws {
        let run = try NaturalScrollRun.shared.get()
        let inputs = run.text("inputs.txt")
        #expect(inputs.contains("\"QEMU Virtio Tablet\" [0627:0003] pointer; size unknown; calibratable; natural scrolling off"), "\(inputs)")
        #expect(inputs.contains("\"Vitrine HIL wheel mouse\" [1d6b:0105] pointer; size unknown; natural scrolling off"), "\(inputs)")
        for (log, state) in [("vitrine-natural.log", "on"), ("vitrine-traditional.log", "off")] {
            for device in ["QEMU Virtio Tablet", "Vitrine HIL wheel mouse"] {
                #expect(run.text(log).contains("\"\(device)\": pointer; natural scrolling \(state)"), "\(run.text(log))")
            }
        }
    }

    /// Natural scrolling on: the wheel turned up (or tilted left) moves the content the same way,
    /// so the client gets the values of a turn down (right) and is told they are the inverse of
    /// the motion.
    @Test func withNaturalScrollingTheWheelsValuesAreInvertedAndSaySo() throws {
        let run = try NaturalScrollRun.shared.get()
        #expect(run.output.contains("vitrine-natural-status 0"), "\(run.output)")
        #expect(NaturalScrollRun.scrollFrames(in: run.text("vitrine-natural.log"))
            == [Self.wheel(120, direction: 1), Self.wheel(-120, direction: 1),
                Self.wheel(-120, direction: 1, axis: 1), Self.wheel(120, direction: 1, axis: 1),
                Self.wheel(60, direction: 1), Self.wheel(60, direction: 1)], "\(run.text("vitrine-natural.log"))")
    }

    @Test func withoutNaturalScrollingTheWheelsValuesFollowTheMotion() throws {
        let run = try NaturalScrollRun.shared.get()
        #expect(run.output.contains("vitrine-traditional-status 0"), "\(run.output)")
        #expect(NaturalScrollRun.scrollFrames(in: run.text("vitrine-traditional.log"))
            == [Self.wheel(-120, direction: 0), Self.wheel(120, direction: 0),
                Self.wheel(120, direction: 0, axis: 1), Self.wheel(-120, direction: 0, axis: 1),
                Self.wheel(-60, direction: 0), Self.wheel(-60, direction: 0)], "\(run.text("vitrine-traditional.log"))")
    }
}

/// The one boot of `NaturalScrollTests`.
struct NaturalScrollRun: Sendable {
    let directory: String
    let output: String

    static let shared = Result { try QEMUGuest.exclusively { try NaturalScrollRun.boot() } }

    func text(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }

    /// The scroll-client's axis events, one array per wl_pointer.frame that carried any.
    static func scrollFrames(in log: String) -> [[String]] {
        var frames: [[String]] = [], current: [String] = []
        for line in log.split(separator: "\n") {
            guard let range = line.range(of: "scroll-client: ") else { continue }
            let event = String(line[range.upperBound...])
            if event == "frame" {
                if !current.isEmpty { frames.append(current) }
                current = []
            } else if event.hasPrefix("axis") {
                current.append(event)
            }
        }
        return frames
    }

    static func boot() throws -> NaturalScrollRun {
        let vitrine = GuestRun.productsDirectory + "/vitrine"
        guard FileManager.default.isExecutableFile(atPath: vitrine) else { throw GuestRun.Failure.missingBinary(vitrine) }
        let directory = GuestRun.productsDirectory + "/hil-natural-scroll"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try GuestRun.buildClient("scroll_client", protocols: ["stable/xdg-shell/xdg-shell.xml"], into: directory)
        try GuestRun.copyUinputScripts(["uinput_wheel.py"], into: directory)
        let width = KMSFrameTests.width, height = KMSFrameTests.height
        let script = """
            set -u
            OUT=/tmp/hil-out
            waitlog() { n=0; while [ $n -lt $4 ] && [ "$(grep -c "$2" $OUT/$1)" -lt $3 ]; do sleep 1; n=$((n + 1)); done; }
            # udev tags QEMU's virtio keyboard and tablet and the uinput mouse for libinput
            # (udevadm trigger refuses to run in a chroot: the uevents are asked for by hand).
            /lib/systemd/systemd-udevd --daemon > $OUT/udevd.log 2>&1
            sleep 1
            python3 $OUT/uinput_wheel.py /tmp/wheel.fifo > $OUT/wheel-device.txt 2>&1 &
            n=0; while [ $n -lt 50 ] && ! grep -q /dev/input $OUT/wheel-device.txt; do sleep 0.2; n=$((n + 1)); done
            for uevent in /sys/class/input/*/uevent; do echo add > $uevent; done
            for node in /dev/input/event*; do
                n=0; while [ $n -lt 50 ] && ! udevadm info --query=property --name=$node | grep -q ID_INPUT=1; do sleep 0.2; n=$((n + 1)); done
                { echo "$node $(cat /sys/class/input/${node#/dev/input/}/device/name) rel=$(cat /sys/class/input/${node#/dev/input/}/device/capabilities/rel)"
                  udevadm info --query=property --name=$node | grep ID_INPUT; } >> $OUT/udev-inputs.txt
            done
            \(vitrine) list-inputs > $OUT/inputs.txt 2>&1
            # One run per setting: the client's window fills the panel, the pointer goes onto it
            # (at another point each time: the kernel drops an absolute position that did not
            # change); the tablet's wheel turns one detent up, then one down; the mouse's tilts one
            # right, one left, and turns two half detents up.
            x=\(width / 2)
            for setting in natural traditional; do
                log=vitrine-$setting.log
                \(vitrine) run --kms --seat-manager direct --config $OUT/$setting.toml -- $OUT/scroll_client > $OUT/$log 2>&1 &
                pid=$!
                waitlog $log 'scroll-client: \\(shown\\|failed\\)' 1 120
                waitlog $log 'first frame shown' 1 60
                hil_move $x \(height / 2)
                x=$((x + 100))
                waitlog $log 'scroll-client: enter' 1 30
                hil_click wheel-up
                waitlog $log 'scroll-client: axis 0' 1 30
                hil_click wheel-down
                waitlog $log 'scroll-client: axis 0' 2 30
                echo "hwheel 120" > /tmp/wheel.fifo
                waitlog $log 'scroll-client: axis 1' 1 30
                echo "hwheel -120" > /tmp/wheel.fifo
                waitlog $log 'scroll-client: axis 1' 2 30
                echo "wheel 60" > /tmp/wheel.fifo
                sleep 1
                echo "wheel 60" > /tmp/wheel.fifo
                waitlog $log 'scroll-client: axis 0' 3 30
                sleep 2
                kill -TERM $pid; wait $pid; echo "vitrine-$setting-status $?"
            done
            echo quit > /tmp/wheel.fifo
            """
        try script.write(toFile: directory + "/guest-script.sh", atomically: true, encoding: .utf8)
        for (name, natural) in [("natural", true), ("traditional", false)] {
            try """
                [[output]]
                connector = "Virtual-1"
                mode = "\(width)x\(height)"

                [input.pointer]
                natural-scrolling = \(natural)

                [app]
                command = ["/tmp/hil-out/scroll_client"]
                """.write(toFile: directory + "/\(name).toml", atomically: true, encoding: .utf8)
        }
        let (status, log) = try GuestRun.runProcess(
            ["/usr/bin/env", "python3", GuestRun.harness, "run", "--out", directory, "--timeout", "540",
             "--display", "\(width)x\(height)", "--share", GuestRun.productsDirectory, directory + "/guest-script.sh"],
            timeoutSeconds: 600)
        guard status == 0 else { throw GuestRun.Failure.harness(status: status, directory: directory, log: log) }
        return NaturalScrollRun(directory: directory, output: (try? String(contentsOfFile: directory + "/output.txt", encoding: .utf8)) ?? "")
    }
}
