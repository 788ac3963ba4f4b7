#!/usr/bin/env python3
"""CPU per presented frame of Vitrine builds and cage, measured in alternation.

Per-frame CPU time on a shared machine moves between runs minutes apart for every compositor
alike, so a ratio is only as good as the runs being close in time: each round runs every
Vitrine build (CPU renderer) and cage once, one after another, on the same client, and measures
the compositor's task clock (`perf stat -e task-clock -p PID`, linux-perf) over a window of
frames counted from the client's frame callbacks. Reports each round's ratio to cage's and the
medians.

    python3 benchmarks/alternate_frames.py --rounds 6 --workload fullscreen NEW_BINARY OLD_BINARY
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_compositors as bench  # noqa: E402


def client_command(workload):
    if workload == "fullscreen":
        return [bench.build_fullscreen_client(), "1280", "720"]
    client = shutil.which("weston-simple-shm")
    if not client:
        sys.exit("weston-simple-shm not found (apt-get install weston)")
    return [client]


def cpu_per_frame(name, vitrine, app, seconds):
    """Milliseconds of the compositor's CPU time per frame callback the client got."""
    session = bench.Session(name, vitrine, app, client_env={"WAYLAND_DEBUG": "client"})
    try:
        session.wait_first_frame(name)
        time.sleep(1.5)  # past start-up's frames
        before = len(session.frames_done())
        result = subprocess.run(
            ["perf", "stat", "-e", "task-clock", "-x,", "-p", str(session.compositor.pid), "--",
             "sleep", str(seconds)], capture_output=True, text=True, check=True)
        frames = len(session.frames_done()) - before
        milliseconds = float(result.stderr.strip().splitlines()[-1].split(",")[0])
        return milliseconds / frames, frames
    finally:
        session.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vitrine", nargs="+", help="vitrine binaries to compare (release builds)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--workload", choices=["fullscreen", "simple-shm"], default="fullscreen")
    arguments = parser.parse_args()
    if not shutil.which("perf"):
        sys.exit("perf not found (apt-get install linux-perf)")
    app = client_command(arguments.workload)
    runs = [(os.path.basename(binary), "vitrine-cpu", binary) for binary in arguments.vitrine]
    runs.append(("cage", "cage", arguments.vitrine[0]))
    results = {label: [] for label, _, _ in runs}
    for round_number in range(1, arguments.rounds + 1):
        for label, name, binary in runs:
            milliseconds, frames = cpu_per_frame(name, binary, app, arguments.seconds)
            results[label].append(milliseconds)
            print(f"round {round_number} {label}: {milliseconds:.4f} ms a frame over {frames} frames",
                  flush=True)
    cage = results["cage"]
    for label, values in results.items():
        line = f"{label}: median {statistics.median(values):.4f} ms, range {min(values):.4f}–{max(values):.4f}"
        if label != "cage":
            ratios = [value / reference for value, reference in zip(values, cage)]
            line += (f"; per round {min(ratios):.3f}–{max(ratios):.3f}× cage's, median "
                     f"{statistics.median(ratios):.3f}×, ratio of the medians "
                     f"{statistics.median(values) / statistics.median(cage):.3f}×")
        print(line)


if __name__ == "__main__":
    main()
