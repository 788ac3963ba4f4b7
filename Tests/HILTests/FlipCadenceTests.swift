import Foundation
import Testing

/// Flip cadence on a CRTC that counts vblanks: vkms, built out of tree for the guest's kernel
/// (hil/vkms.py), loaded beside virtio-gpu (which counts none). One short boot of its own.
///
/// Under TCG a frame takes longer than a refresh (weston-simple-shm at 640×480: 48 ms at best
/// against 16.7 ms), so frames cannot advance the sequence by exactly one. What holds, and is checked, is
/// the cadence itself: every presented frame's sequence is later than the last, and the time
/// between two flips is the number of refreshes between them times the mode's frame duration.
/// How many refreshes frames take under the emulator is a figure, not a check:
/// `benchmarks/hil_figures.py` prints it.
@Suite(.guestTimeLimit) struct FlipCadenceTests {
    /// The frames the checks cover, after the first few, which take seconds each under TCG while
    /// lavapipe compiles its shaders (and make the just-in-time start wait as long).
    static let warmUpFrames = 10
    static let frameCount = 121
    /// How far a flip interval may be from (sequence advance) × frame duration: vkms's vblank timer
    /// advances by exactly the frame duration (in nanoseconds) and stamps each flip with its
    /// expiry, which the event carries in whole microseconds, so two stamps differ from the exact
    /// interval by less than a microsecond. A flip one refresh off is 16.7 ms off.
    static let toleranceNanoseconds: Int64 = 1_000

    @Test func vkmsCountsVblanksAndEveryFrameCarriesTheVsyncFlag() throws {
        let run = try CadenceRun.shared.get()
        #expect(run.kmsLog.contains("Virtual-2 on \(run.card) (640x480@"), "\(run.kmsLog)")
        // vkms takes modifiers and lists LINEAR: the Vulkan renderer's GBM buffers' framebuffers say so explicitly
        // (an implied layout is refused at commit there). lavapipe renders into no tiled layout, and the plane lists none.
        #expect(
            run.kmsLog.contains("frames in GBM buffer objects, linear (explicit modifier; the renderer renders into no tiled layout)"),
            "\(run.kmsLog)")
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

    @Test func everyFlipIntervalIsTheSequenceAdvanceTimesTheFrameDuration() throws {
        let run = try CadenceRun.shared.get()
        let frames = run.flips.dropFirst(Self.warmUpFrames).prefix(Self.frameCount)
        try #require(frames.count == Self.frameCount, "\(frames.count) flips; see \(run.directory)")
        let duration = try #require(run.frameDurationNanoseconds, "no 640x480 mode in \(run.directory)/vkms-state.txt")
        // DRM never turns vkms's vblank interrupts off in this run: turning them back on would
        // restart its timer at a new phase, which a hardware counter would not do.
        try #require(run.output.contains("vblankoffdelay 0"), "\(run.output)")
        for (earlier, later) in zip(frames, frames.dropFirst()) {
            let advance = Int64(bitPattern: later.sequence &- earlier.sequence)
            let interval = Int64(bitPattern: later.nanoseconds &- earlier.nanoseconds)
            // At least one refresh apart: no two flips share a vblank.
            #expect(advance >= 1, "sequences \(earlier.sequence) then \(later.sequence)")
            #expect(abs(interval - advance * duration) < Self.toleranceNanoseconds,
                    "\(interval) ns between sequences \(earlier.sequence) and \(later.sequence), not \(advance) × \(duration)")
        }
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

    /// The kernel's atomic state of vkms while Vitrine ran (debugfs).
    let state: String

    /// DRM's frame duration of the 640x480 mode in the kernel's state (`mode: "640x480": vrefresh
    /// clock hdisplay hsync_start hsync_end htotal vdisplay vsync_start vsync_end vtotal …`, the
    /// clock in kHz): htotal × vtotal × 10⁶ / clock, truncated, as drm_calc_timestamping_constants
    /// computes it and vkms's vblank timer advances.
    var frameDurationNanoseconds: Int64? {
        guard let line = state.split(separator: "\n").first(where: { $0.contains("mode: \"640x480\": ") }) else { return nil }
        let fields = line.split(separator: ":").last?.split(separator: " ").compactMap { Int64($0) } ?? []
        guard fields.count >= 10, fields[1] > 0 else { return nil }
        return fields[5] * fields[9] * 1_000_000 / fields[1]
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
            # Vblank interrupts stay on once enabled (0: never turned off), so vkms's timer keeps
            # one phase for the whole run.
            echo 0 > /sys/module/drm/parameters/vblankoffdelay
            echo "vblankoffdelay $(cat /sys/module/drm/parameters/vblankoffdelay)"
            mount -t debugfs none /sys/kernel/debug 2>/dev/null
            \(vitrine) run --kms --renderer vulkan --device $card --mode 640x480 --presentation-log $OUT/flips.log -- weston-simple-shm > $OUT/vitrine.log 2>&1 &
            pid=$!
            n=0
            while [ $n -lt 120 ] && [ "$(cat $OUT/flips.log 2>/dev/null | wc -l)" -lt \(FlipCadenceTests.warmUpFrames + FlipCadenceTests.frameCount) ]; do
                sleep 1; n=$((n + 1))
            done
            for d in /sys/kernel/debug/dri/*; do
                [ -f $d/state ] && grep -q '^vkms ' $d/name && cat $d/state > $OUT/vkms-state.txt
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
            output: output,
            state: (try? String(contentsOfFile: directory + "/vkms-state.txt", encoding: .utf8)) ?? "")
    }
}
