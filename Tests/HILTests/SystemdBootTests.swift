import Foundation
import Glibc
import Graphics
import Testing

/// The kiosk as a device boots it: a QEMU guest runs systemd as PID 1 on the host's userland under
/// an overlay, with Vitrine, the unit and the QEMU board's config installed as the install note in
/// docs/kiosk-shell.md says. The unit starts on tty1 in a logind session, its app (foot) is killed
/// with SIGKILL and restarted behind the overlay, a hung main loop is restarted by the watchdog, and
/// the unit stops cleanly. One boot serves every check; a failure leaves its logs and captures in
/// the folder named.
@Suite(.guestTimeLimit) struct SystemdBootTests {
    static let width = 1280
    static let height = 800
    /// The board's splash colour (#1D3557), which the overlay shows while the app restarts.
    static let splash = PremultipliedPixel(red: 0x1D, green: 0x35, blue: 0x57, alpha: 255)
    /// The guest's watchdog interval (a drop-in over the unit's 10 s; see the setup).
    static let watchdogSeconds = 30

    @Test func theUnitIsReadyInALogindSessionOnTheFirstVT() throws {
        let boot = try SystemdBoot.shared.get()
        let ready = boot.properties("ready.txt")
        #expect(ready["ActiveState"] == "active", "\(ready); see \(boot.directory)")
        #expect(ready["NRestarts"] == "0")
        // logind's session for the PAM login the unit makes: user vitrine, seat0, tty1.
        let session = boot.text("sessions.txt").split(separator: "\n").first.map { $0.split(separator: " ").map(String.init) } ?? []
        #expect(session.dropFirst(2).prefix(3) == ["vitrine", "seat0", "tty1"], "\(boot.text("sessions.txt"))")
        #expect(boot.vitrineJournal.contains("devices of seat0 come through libseat"), "\(boot.vitrineJournal)")
        // Vitrine knows its stderr is the journal: entries carry their priority, not a timestamp.
        #expect(boot.vitrineJournal.contains("]: vitrine: [KioskShell] first frame on screen "), "\(boot.vitrineJournal)")
        #expect(boot.vitrineJournal.contains("Virtual-1 on /dev/dri/card0 (\(Self.width)x\(Self.height)@"))
    }

    @Test func theAppsFirstFrameIsOnTheScreen() throws {
        let boot = try SystemdBoot.shared.get()
        let first = try boot.capture("first")
        #expect(first.width == Self.width && first.height == Self.height)
        // foot's background, not the splash, with its text (light pixels) at the top left.
        #expect(first.pixel(x: Self.width / 2, y: Self.height / 2) != Self.splash)
        #expect(Self.countOfLightPixels(in: first, x: 0..<400, y: 0..<40) > 50)
    }

    @Test func aKilledAppIsRestartedWithTheOverlayShownMeanwhile() throws {
        let boot = try SystemdBoot.shared.get()
        #expect(boot.vitrineJournal.contains("/usr/bin/foot --hold sh -c"), "\(boot.vitrineJournal)")
        #expect(boot.vitrineJournal.contains("exited (signal 9); restarting in 500 ms"), "\(boot.vitrineJournal)")
        // Some capture between the kill and the new first frame shows the overlay: the splash
        // colour with the white "Restarting…" label below the middle.
        let restartCaptures = try boot.restartCaptures
        let overlays = restartCaptures.filter { capture in
            capture.pixel(x: Self.width / 2, y: Self.height / 2) == Self.splash
                && Self.countOfLightPixels(in: capture, x: 0..<Self.width, y: Self.height / 2..<Self.height) > 50
        }
        #expect(!overlays.isEmpty, "\(restartCaptures.count) captures, none with the overlay; see \(boot.directory)")
        // Once the app is back the screen is what it was before the kill.
        let first = try boot.capture("first"), after = try boot.capture("after-restart")
        #expect(after.countOfPixelsDiffering(from: first, byMoreThan: 0) == 0, "see \(boot.directory)")
        let ready = boot.properties("ready.txt"), restarted = boot.properties("after-restart.txt")
        #expect(restarted["MainPID"] == ready["MainPID"], "the app restarts, not Vitrine")
        #expect(restarted["NRestarts"] == "0")
    }

    @Test func aHungMainLoopIsRestartedByTheWatchdog() throws {
        let boot = try SystemdBoot.shared.get()
        #expect(boot.unitJournal.contains("Watchdog timeout (limit \(Self.watchdogSeconds)s)!"), "\(boot.unitJournal)")
        // SIGABRT first, so that the Swift runtime writes the hung loop's stack to the journal;
        // SIGKILL after the unit's TimeoutAbortSec.
        #expect(boot.unitJournal.contains("with signal SIGABRT."), "\(boot.unitJournal)")
        #expect(boot.vitrineJournal.contains("Thread 0 \"vitrine\" crashed:"), "the hung thread's stack is in the journal")
        let before = boot.properties("after-restart.txt"), after = boot.properties("after-watchdog.txt")
        #expect(after["ActiveState"] == "active", "\(after); see \(boot.directory)")
        #expect(after["NRestarts"] == "1")
        #expect(after["MainPID"] != before["MainPID"])
        let first = try boot.capture("first"), back = try boot.capture("after-watchdog")
        #expect(back.countOfPixelsDiffering(from: first, byMoreThan: 0) == 0, "see \(boot.directory)")
    }

    @Test func stoppingTheUnitEndsVitrineCleanly() throws {
        let boot = try SystemdBoot.shared.get()
        let stopped = boot.properties("stopped.txt")
        #expect(stopped["ActiveState"] == "inactive", "\(stopped)")
        #expect(stopped["Result"] == "success")
        #expect(stopped["ExecMainStatus"] == "0")
    }

    /// The times themselves depend on the emulator's load and are figures, not checks
    /// (`benchmarks/hil_figures.py` prints them); what the design fixes is their order and the
    /// least each restart waits.
    @Test func restartsComeNoSoonerThanTheBackOffAndTheWatchdogAllow() throws {
        let boot = try SystemdBoot.shared.get()
        let ready = boot.properties("ready.txt")
        let unitStart = try #require(ready["InactiveExitTimestampMonotonic"].flatMap(Double.init)) / 1e6
        let readyAt = try #require(ready["ActiveEnterTimestampMonotonic"].flatMap(Double.init)) / 1e6
        let firstFrames = boot.journalSeconds(of: "drew its first frame")
        #expect(firstFrames.count == 3, "\(boot.vitrineJournal)")
        let killedAt = try #require(boot.uptime(in: "kill.txt"))
        let hungAt = try #require(boot.uptime(in: "hang.txt"))
        let readyAgain = try #require(boot.properties("after-watchdog.txt")["ActiveEnterTimestampMonotonic"].flatMap(Double.init)) / 1e6
        guard firstFrames.count == 3 else { return }
        #expect(readyAt > unitStart && firstFrames[0] > unitStart)
        // The supervisor starts a killed app again after its first back-off (the journal's
        // "restarting in 500 ms"), and the app draws after that.
        #expect(firstFrames[1] >= killedAt + 0.5, "the app drew again \(firstFrames[1] - killedAt) s after the kill")
        // systemd counts the limit from the last WATCHDOG=1, which the loop sends every half
        // limit: the restart comes at least half a limit after the hang, not a whole one.
        #expect(readyAgain > hungAt + Double(Self.watchdogSeconds) / 2, "READY again \(readyAgain - hungAt) s after the hang")
        #expect(firstFrames[2] > hungAt)
    }

    /// A kiosk's later starts (a reboot, a watchdog restart) reuse the shaders its first start
    /// compiled: Mesa's cache lives in the unit user's home, which its StateDirectory makes
    /// writable under ProtectSystem=strict.
    @Test func theDriverKeepsItsCompiledShadersInTheUnitsStateDirectory() throws {
        let boot = try SystemdBoot.shared.get()
        let listing = boot.text("driver-cache.txt").split(separator: "\n")
        #expect(listing.contains("/var/lib/vitrine/.cache/mesa_shader_cache"), "\(listing); see \(boot.directory)")
    }

    /// Pixels of `image` in the rectangle whose channels all exceed 160 (text and the spinner).
    static func countOfLightPixels(in image: Image, x: Range<Int>, y: Range<Int>) -> Int {
        var count = 0
        for row in y {
            for column in x {
                let pixel = image.pixel(x: column, y: row)
                if pixel.red > 160 && pixel.green > 160 && pixel.blue > 160 { count += 1 }
            }
        }
        return count
    }
}

/// What one systemd boot of the guest produced: the files its script left in `directory`.
struct SystemdBoot: Sendable {
    let directory: String

    static let shared = Result { try QEMUGuest.exclusively { try SystemdBoot.boot() } }

    func text(_ name: String) -> String {
        (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
    }

    /// `systemctl show` output: Key=Value lines.
    func properties(_ name: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text(name).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return result
    }

    func capture(_ name: String) throws -> Image { try Image(contentsOfPNGFile: directory + "/\(name).png") }

    /// The captures taken while the app restarted, in order.
    var restartCaptures: [Image] {
        get throws {
            let count = Int(text("restart-captures.txt").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            return try (0..<count).map { try capture("restart-\($0)") }
        }
    }

    /// The guest's uptime (s) in a "PID UPTIME" file the script wrote.
    func uptime(in name: String) -> Double? {
        text(name).split(whereSeparator: \.isWhitespace).last.flatMap { Double($0) }
    }

    /// Vitrine's own journal (its identifier; its process lives in the logind session's scope).
    var vitrineJournal: String { text("vitrine-journal.txt") }
    /// systemd's messages about the unit.
    var unitJournal: String { text("unit-journal.txt") }

    /// The monotonic times (s) of Vitrine's journal lines containing `message`.
    func journalSeconds(of message: String) -> [Double] {
        vitrineJournal.split(separator: "\n").filter { $0.contains(message) }.compactMap { line in
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
            return Double(line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: .whitespaces))
        }
    }

    static let unitName = "vitrine@qemu-virtio-gpu.service"

    static func boot() throws -> SystemdBoot {
        let vitrine = GuestRun.productsDirectory + "/vitrine"
        guard FileManager.default.isExecutableFile(atPath: vitrine) else { throw GuestRun.Failure.missingBinary(vitrine) }
        let directory = GuestRun.productsDirectory + "/hil-systemd"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The guest sees the output folder, but not a clone under /tmp (its own /tmp hides it).
        try FileManager.default.copyItem(
            atPath: repository.appendingPathComponent("systemd/vitrine@.service").path, toPath: directory + "/vitrine@.service")
        // The board as shipped, drawn with Vulkan (lavapipe): on virtio-gpu `auto` takes the CPU
        // renderer, and the driver's shader cache is part of what this boot checks.
        let board = try String(contentsOf: repository.appendingPathComponent("board-configs/qemu-virtio-gpu.toml"), encoding: .utf8)
            .replacingOccurrences(of: "[board]\n", with: "[board]\nrenderer = \"vulkan\"\n")
        try board.write(toFile: directory + "/qemu-virtio-gpu.toml", atomically: true, encoding: .utf8)
        let setup = """
            # The install note of docs/kiosk-shell.md, with the binary just built.
            install -m 755 \(vitrine) /usr/local/bin/vitrine
            id -u vitrine > /dev/null 2>&1 || useradd --system --home-dir /var/lib/vitrine --shell /usr/sbin/nologin --groups video,input,render vitrine
            install -D -m 644 /hil-out/qemu-virtio-gpu.toml /etc/vitrine/qemu-virtio-gpu.toml
            vitrine check-config /etc/vitrine/qemu-virtio-gpu.toml
            install -m 644 /hil-out/vitrine@.service /etc/systemd/system/
            systemctl enable \(unitName)
            # The guest boots hil.target rather than graphical.target: the kiosk joins it.
            systemctl add-wants hil.target \(unitName)
            # The watchdog's SIGABRT would otherwise leave a core file the size of Vitrine in the guest's RAM.
            echo 'kernel.core_pattern=|/bin/false' > /etc/sysctl.d/50-hil-no-cores.conf
            # Under emulation on a loaded machine one frame (the first: Vulkan pipelines compiled by
            # LLVM) can take longer than the unit's 10 s, which would look like a hung loop; start-up
            # (seen at 47 s) and a clean stop can outlast the unit's 60 s and 10 s the same way.
            mkdir -p /etc/systemd/system/\(unitName).d
            printf '[Service]\nWatchdogSec=\(SystemdBootTests.watchdogSeconds)s\nTimeoutStartSec=180s\nTimeoutStopSec=60s\n' > /etc/systemd/system/\(unitName).d/emulation.conf

            """
        let script = """
            set -u
            unit=\(unitName)
            uptime() { cut -d' ' -f1 /proc/uptime; }
            # Whether SECONDS have passed since the uptime START (waits count time, not tries: a
            # systemctl call alone can take seconds on a loaded machine).
            expired() { awk -v start=$1 -v limit=$2 "BEGIN { exit !($(uptime) - start > limit) }"; }
            show() { systemctl show $unit -p ActiveState -p NRestarts -p MainPID -p Result -p ExecMainStatus \
                -p InactiveExitTimestampMonotonic -p ActiveEnterTimestampMonotonic; }
            # Vitrine's journal lines by identifier: its process is in the logind session's scope.
            first_frames() { journalctl -b -t vitrine -o cat --no-pager | grep -c 'drew its first frame'; }
            # Waits (SECONDS at most) until the app has drawn its first frame COUNT times since boot.
            wait_first_frames() {
                start=$(uptime); while ! expired $start $2 && [ "$(first_frames)" -lt $1 ]; do sleep 1; done
            }
            # Waits (SECONDS at most) until the unit is active with RESTARTS restarts.
            wait_active() {
                start=$(uptime)
                while ! expired $start $2; do
                    [ "$(systemctl show $unit -p ActiveState --value)" = active ] \
                        && [ "$(systemctl show $unit -p NRestarts --value)" = $1 ] && return 0
                    sleep 1
                done
            }
            # Captures NAME once three captures in a row, three seconds apart, are the same.
            capture_settled() {
                n=0; same=0; previous=""
                while [ $n -lt 30 ] && [ $same -lt 2 ]; do
                    hil_screendump $1-try-$n || return 1
                    if [ -n "$previous" ] && cmp -s $previous $1-try-$n.png; then same=$((same + 1)); else same=0; fi
                    previous=$1-try-$n.png; n=$((n + 1)); sleep 3
                done
                cp $previous $1.png
            }
            wait_active 0 240
            show > ready.txt
            loginctl list-sessions --no-legend > sessions.txt
            wait_first_frames 1 120
            capture_settled first
            # The app is killed; the overlay covers the output until it draws again.
            app=$(pgrep -u vitrine -x foot)
            echo "$app $(uptime)" > kill.txt
            kill -KILL $app
            n=0
            while [ $n -lt 40 ] && [ "$(first_frames)" -lt 2 ]; do hil_screendump restart-$n; n=$((n + 1)); done
            echo $n > restart-captures.txt
            capture_settled after-restart
            show > after-restart.txt
            # A hung main loop stops the watchdog pings: systemd kills Vitrine and starts it again.
            socket=$(ls /run/user/*/vitrine-*.control | head -1)
            echo "$(systemctl show $unit -p MainPID --value) $(uptime)" > hang.txt
            python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\\"command\\":\\"hang\\"}\\n"); s.close()' $socket
            wait_active 1 120
            show > after-watchdog.txt
            wait_first_frames 3 120
            capture_settled after-watchdog
            systemctl stop $unit
            show > stopped.txt
            # Where the GPU driver kept the shaders it compiled (Mesa: the passwd home's .cache).
            find /var/lib/vitrine/.cache -maxdepth 1 > driver-cache.txt 2>&1
            journalctl -b -t vitrine -o short-monotonic --no-pager > vitrine-journal.txt
            journalctl -b -u $unit -o short-monotonic --no-pager > unit-journal.txt
            """
        try script.write(toFile: directory + "/guest-script.sh", atomically: true, encoding: .utf8)
        try setup.write(toFile: directory + "/setup.sh", atomically: true, encoding: .utf8)
        let (status, log) = try GuestRun.runProcess(
            ["/usr/bin/env", "python3", GuestRun.harness, "run", "--systemd", directory + "/setup.sh", "--out", directory,
             "--timeout", "900", "--display", "\(SystemdBootTests.width)x\(SystemdBootTests.height)",
             "--share", GuestRun.productsDirectory, directory + "/guest-script.sh"],
            timeoutSeconds: 960)
        guard status == 0 else { throw GuestRun.Failure.harness(status: status, directory: directory, log: log) }
        return SystemdBoot(directory: directory)
    }
}

extension Trait where Self == TimeLimitTrait {
    /// The limit of each suite that boots a guest: before its own boot it may wait for every other
    /// suite's guest (one at a time), which under CI's load took over ten minutes together.
    static var guestTimeLimit: Self { .timeLimit(.minutes(30)) }
}

/// One QEMU guest at a time, across processes too (parallel test runs in other checkouts): two
/// at once on a small machine would slow each past its waits. The lock is an flock on a file in
/// /tmp, taken before a boot's clock starts.
enum QEMUGuest {
    static let lockPath = "/tmp/vitrine-hil-guest.lock"

    static func exclusively<T>(_ body: () throws -> T) throws -> T {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw GuestLockError(errno: errno) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw GuestLockError(errno: errno) }
        }
        return try body()
    }
}

struct GuestLockError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "cannot lock \(QEMUGuest.lockPath): \(String(cString: strerror(errno)))" }
}
