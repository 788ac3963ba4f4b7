#!/usr/bin/env python3
"""The QEMU rig's timings: what the hardware-in-the-loop boots measured, printed as figures.

The HIL suites (Tests/HILTests) check what the design fixes (orders, counts, cadences); how long
things take under TCG emulation depends on the host's load, so those times are figures, read here
from the folders the suites leave beside the build products:

- hil/ (KMSFrameTests): when the mode was set and foot's first frame shown after start; for
  weston-simple-shm, commit → flip times, flips per second and the frames committed by the
  refresh they aimed at; input batches, from libinput read to the flush to clients;
- hil-vkms/ (FlipCadenceTests): how many refreshes apart frames were on vkms, and how far each
  flip interval was from that many frame durations;
- hil-display-change/ (DisplayChangeTests): a display plugged in after start: when it was lit and
  its first frame shown;
- hil-systemd/ (SystemdBootTests): unit start → READY and → the app's first frame, SIGKILL of
  the app → its new first frame, a hung main loop → READY again.

Usage: python3 benchmarks/hil_figures.py [--build .build/debug] [--run]
--run first runs those suites (`swift build --product vitrine` before it, as for `swift test`).
"""
import argparse
import collections
import pathlib
import re
import subprocess
import sys

SUITES = "KMSFrameTests|FlipCadenceTests|DisplayChangeTests|SystemdBootTests"


def flips(path):
    """A presentation log's lines as dictionaries of their numeric fields."""
    rows = []
    for line in path.read_text().splitlines():
        fields = line.split()
        rows.append({fields[i]: int(fields[i + 1]) for i in range(1, len(fields) - 1, 2)
                     if re.fullmatch(r"-?\d+", fields[i + 1])})
    return rows


def percentile(values, percent):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, len(ordered) * percent // 100)]


def milliseconds(nanoseconds):
    return f"{nanoseconds / 1e6:.1f} ms"


def start_up(log):
    """The 'lit after X ms, first frame shown Y ms after start' line of a Vitrine log."""
    match = re.search(r"(\S+): lit after (-?\d+) ms, first frame shown (-?\d+) ms after start", log.read_text())
    return f"{match[1]} lit {match[2]} ms after start, first frame shown at {match[3]} ms" if match else "no start-up line"


def kms(folder):
    print(f"KMS rig ({folder}):")
    print(f"  foot on virtio-gpu, Vulkan into GBM buffers: {start_up(folder / 'vitrine-kms.log')}")
    print(f"  foot on virtio-gpu, CPU renderer into dumb buffers: {start_up(folder / 'vitrine-kms-cpu.log')}")
    shm = [row for row in flips(folder / "flips-shm.log") if "committed" in row]
    if len(shm) > 1:
        latency = [row["commit-to-flip"] for row in shm]
        seconds = (shm[-1]["nanoseconds"] - shm[0]["nanoseconds"]) / 1e9
        in_time = sum(row["committed"] <= row["target"] for row in shm)
        print(f"  weston-simple-shm, {len(shm)} frames: commit → flip median {milliseconds(percentile(latency, 50))}, "
              f"p95 {milliseconds(percentile(latency, 95))}, max {milliseconds(max(latency))}; "
              f"{(len(shm) - 1) / seconds:.1f} flips/s; {in_time} of {len(shm)} committed by their target")
    batches = [int(line) for line in (folder / "input-latency.txt").read_text().split()]
    if batches:
        print(f"  input read → client flush, {len(batches)} batches: median {milliseconds(percentile(batches, 50))}, "
              f"p99 {milliseconds(percentile(batches, 99))}, {milliseconds(min(batches))} to {milliseconds(max(batches))}")


def vkms(folder, warm_up=10, count=121):
    print(f"vkms ({folder}):")
    frames = flips(folder / "flips.log")[warm_up:warm_up + count]
    advances = collections.Counter(b["sequence"] - a["sequence"] for a, b in zip(frames, frames[1:]))
    if advances:
        print(f"  {len(frames)} frames after {warm_up}: refreshes apart {min(advances)}–{max(advances)}, "
              f"most often {advances.most_common(1)[0][0]} ({' '.join(f'{k}×{v}' for k, v in sorted(advances.items()))})")
    mode = re.search(r'mode: "640x480": ((?:\d+ ){9}\d+)', (folder / "vkms-state.txt").read_text())
    if mode and len(frames) > 1:
        numbers = [int(n) for n in mode[1].split()]
        duration = numbers[5] * numbers[9] * 1_000_000 // numbers[1]
        error = max(abs(b["nanoseconds"] - a["nanoseconds"] - (b["sequence"] - a["sequence"]) * duration)
                    for a, b in zip(frames, frames[1:]))
        print(f"  flip intervals at most {error} ns from the refreshes apart × {duration} ns")


def display_change(folder):
    print(f"display plugged in after start ({folder}): {start_up(folder / 'vitrine-wait.log')}")


def systemd(folder):
    print(f"systemd boot ({folder}):")

    def properties(name):
        lines = (folder / name).read_text().splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)

    def uptime(name):
        return float((folder / name).read_text().split()[-1])

    ready = properties("ready.txt")
    unit_start = int(ready["InactiveExitTimestampMonotonic"]) / 1e6
    ready_at = int(ready["ActiveEnterTimestampMonotonic"]) / 1e6
    ready_again = int(properties("after-watchdog.txt")["ActiveEnterTimestampMonotonic"]) / 1e6
    first_frames = [float(match) for match in re.findall(r"^\[\s*([\d.]+)\].*drew its first frame",
                                                          (folder / "vitrine-journal.txt").read_text(), re.M)]
    print(f"  unit start → READY {ready_at - unit_start:.1f} s, → the app's first frame {first_frames[0] - unit_start:.1f} s")
    print(f"  SIGKILL of the app → its new first frame {first_frames[1] - uptime('kill.txt'):.1f} s")
    print(f"  hung main loop → READY again {ready_again - uptime('hang.txt'):.1f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=".build/debug", help="the build products folder the suites ran from")
    parser.add_argument("--run", action="store_true", help="run the HIL suites first")
    arguments = parser.parse_args()
    if arguments.run:
        subprocess.run(["swift", "test", "--filter", SUITES], check=True)
    build = pathlib.Path(arguments.build)
    missing = False
    for name, report in [("hil", kms), ("hil-vkms", vkms), ("hil-display-change", display_change), ("hil-systemd", systemd)]:
        folder = build / name
        try:
            report(folder)
        except (OSError, KeyError, IndexError, ValueError) as error:
            print(f"{folder}: incomplete ({error}); run the HIL suites ({SUITES})")
            missing = True
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
