import DisplayBackend
import Foundation
import Testing

/// Flip cadence on a CRTC that counts vblanks: vkms, built out of tree for the guest's kernel
/// (hil/vkms.py), loaded beside virtio-gpu (which counts none). One short boot of its own.
///
/// Under TCG a frame takes longer than a refresh (weston-simple-shm at 640×480: 48 ms at best
/// against 16.7 ms), so frames cannot advance the sequence by exactly one. What holds, and is checked, is
/// the cadence itself: every presented frame's sequence is later than the last, and the time
/// between two flips is the number of refreshes between them times the mode's period. (Measured over
/// three runs: frames 4–24 refreshes apart, most often 6, rendering in 48–170 ms on a quiet
/// host; 6–78 apart, 68–770 ms, on a loaded one.)
@Suite(.guestTimeLimit) struct FlipCadenceTests {
    /// The frames the checks cover, after the first few, which take seconds each under TCG while
    /// lavapipe compiles its shaders (and make the just-in-time start wait as long).
    static let warmUpFrames = 10
    static let frameCount = 121
    /// How far a flip interval may be from (sequence advance) × period: vkms stamps each flip with
    /// its hrtimer's nominal expiry (in whole microseconds), so the error is the period's rounding
    /// (the backend keeps the refresh in millihertz: 0.13 µs a refresh at 59.94 Hz, at most 40 µs
    /// over the 300 refreshes of DRM's vblank-off delay; measured up to 19 µs). A flip one refresh
    /// off is 16.7 ms off, and a 60 Hz period for 59.94 Hz is off by 50 µs after three refreshes.
    static let toleranceNanoseconds: Int64 = 50_000

    @Test func vkmsCountsVblanksAndEveryFrameCarriesTheVsyncFlag() throws {
        let run = try CadenceRun.shared.get()
        #expect(run.kmsLog.contains("Virtual-2 on \(run.card) (640x480@"), "\(run.kmsLog)")
        // drmCrtcGetSequence answers on vkms's CRTC: the backend turns its vsync flag on.
        #expect(run.kmsLog.contains("vblank counter: true"), "\(run.kmsLog)")
        // vsync | hw_clock | hw_completion.
        #expect(run.flips.allSatisfy { $0.flags == 0x7 }, "see \(run.directory)")
        #expect(run.output.contains("vitrine-status 0"), "\(run.output)")
    }

    @Test func sequencesStrictlyIncreaseOverEveryPresentedFrame() throws {
        let run = try CadenceRun.shared.get()
        let frames = run.flips.dropFirst(Self.warmUpFrames).prefix(Self.frameCount)
        try #require(frames.count == Self.frameCount, "\(frames.count) flips; see \(run.directory)")
        for (earlier, later) in zip(frames, frames.dropFirst()) {
            #expect(later.sequence > earlier.sequence, "\(earlier) then \(later)")
        }
    }

    @Test func flipIntervalsAreTheSequenceAdvanceTimesTheRefreshPeriod() throws {
        let run = try CadenceRun.shared.get()
        let frames = run.flips.dropFirst(Self.warmUpFrames).prefix(Self.frameCount)
        try #require(frames.count == Self.frameCount, "\(frames.count) flips; see \(run.directory)")
        let period = try #require(run.period, "no mode in \(run.kmsLog)")
        let offDelay = try #require(run.vblankOffDelayNanoseconds, "\(run.output)")
        var advances: [UInt64: Int] = [:]
        var restarts = 0
        for (earlier, later) in zip(frames, frames.dropFirst()) {
            let advance = later.sequence &- earlier.sequence
            advances[advance, default: 0] += 1
            let interval = Int64(bitPattern: later.nanoseconds &- earlier.nanoseconds)
            // After this long without a flip (no vblank user), DRM turned vblank interrupts off,
            // and vkms restarted its vblank timer at a new phase when they came back on (the
            // count across is DRM's estimate from the timestamps): no cadence to check there.
            if offDelay > 0 && interval > offDelay {
                restarts += 1
                continue
            }
            let expected = Int64(advance) * Int64(period)
            #expect(abs(interval - expected) <= Self.toleranceNanoseconds,
                    "\(interval) ns between sequences \(earlier.sequence) and \(later.sequence), not \(advance) × \(period)")
        }
        // Every interval is at least one refresh: no two flips share a vblank.
        #expect(advances.keys.allSatisfy { $0 >= 1 }, "advances: \(advances.sorted { $0.key < $1.key })")
        // The distribution for the run's log: how many refreshes a frame took under this emulator.
        print("flip cadence on vkms: sequence advances \(advances.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")), \(restarts) vblank restarts")
        // Gaps that long are a stalled emulator, not the cadence: at most a few.
        #expect(restarts <= 5, "\(restarts) intervals over \(offDelay) ns; advances: \(advances.sorted { $0.key < $1.key })")
    }
}

/// What the vkms boot produced.
struct CadenceRun: Sendable {
    let directory: String
    /// vkms's card, e.g. /dev/dri/card1.
    let card: String
    let flips: [Flip]
    let kmsLog: String
    /// What the guest script printed.
    let output: String

    /// DRM's delay before it turns unused vblank interrupts off (drm.vblankoffdelay, in ms).
    var vblankOffDelayNanoseconds: Int64? {
        output.split(separator: "\n").first { $0.hasPrefix("vblankoffdelay ") }
            .flatMap { Int64($0.dropFirst(15)) }.map { $0 * 1_000_000 }
    }

    /// The refresh period of the mode Vitrine logged, as the backend computes it.
    var period: UInt64? {
        guard let refresh = kmsLog.split(separator: "(640x480@").dropFirst().first?.prefix(while: { $0 != ")" }),
              let hertz = Double(refresh) else { return nil }
        return OutputMode(width: 640, height: 480, refreshMillihertz: Int((hertz * 1000).rounded())).refreshNanoseconds
    }

    static let shared = Result { try QEMUGuest.exclusively { try CadenceRun.boot() } }

    static func boot() throws -> CadenceRun {
        let vitrine = GuestRun.productsDirectory + "/vitrine"
        guard FileManager.default.isExecutableFile(atPath: vitrine) else { throw GuestRun.Failure.missingBinary(vitrine) }
        let directory = GuestRun.productsDirectory + "/hil-vkms"
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // vkms's smallest mode, so that frames are as cheap as the emulator allows; simple-shm
        // changes only its 250×250 window each frame (damage-limited frames).
        let script = """
            set -u
            OUT=/tmp/hil-out
            card=""
            for c in /sys/class/drm/card*; do
                [ "$(cat $c/device/modalias 2>/dev/null)" = platform:vkms ] && card=/dev/dri/${c##*/}
            done
            echo "vkms-card $card"
            [ -n "$card" ] || exit 1
            echo "vblankoffdelay $(cat /sys/module/drm/parameters/vblankoffdelay)"
            \(vitrine) run --kms --device $card --mode 640x480 --presentation-log $OUT/flips.log -- weston-simple-shm > $OUT/vitrine.log 2>&1 &
            pid=$!
            n=0
            while [ $n -lt 120 ] && [ "$(cat $OUT/flips.log 2>/dev/null | wc -l)" -lt \(FlipCadenceTests.warmUpFrames + FlipCadenceTests.frameCount) ]; do
                sleep 1; n=$((n + 1))
            done
            kill -TERM $pid; wait $pid; echo "vitrine-status $?"
            """
        try script.write(toFile: directory + "/guest-script.sh", atomically: true, encoding: .utf8)
        let (status, log) = try GuestRun.runProcess(
            ["/usr/bin/env", "python3", GuestRun.harness, "run", "--vkms", "--out", directory, "--timeout", "300",
             "--share", GuestRun.productsDirectory, directory + "/guest-script.sh"],
            timeoutSeconds: 360)
        guard status == 0 else { throw GuestRun.Failure.harness(status: status, directory: directory, log: log) }
        let output = (try? String(contentsOfFile: directory + "/output.txt", encoding: .utf8)) ?? ""
        return CadenceRun(
            directory: directory,
            card: output.split(separator: "\n").first { $0.hasPrefix("vkms-card ") }.map { String($0.dropFirst(10)) } ?? "",
            flips: GuestRun.readFlips(directory + "/flips.log"),
            kmsLog: (try? String(contentsOfFile: directory + "/vitrine.log", encoding: .utf8)) ?? "",
            output: output)
    }
}
