#!/usr/bin/env python3
"""A soak run: Vitrine in board mode for a long time while apps restart and clients come and go.

Vitrine runs headless (1280x720) with a board configuration whose kiosk app is a real client
(weston-simple-shm, animating every frame) that exits after a while, so the supervisor restarts it
again and again (with its "restarting" overlay, a LayerKit animation). Beside it, a driver starts
other real clients one after another, up to three at once, each for a few seconds: weston's demo
clients (shm, damage, subsurfaces, flower, transformed, scaler, dmabuf-less EGL on llvmpipe,
presentation feedback), foot and wayland-info, most of them animating their windows. Every
--sample seconds it records Vitrine's resident memory, the part of it that is Vitrine's alone
(private: without the clients' shared-memory pools it maps, which count in RSS while a client is
connected) and its open descriptors.

At the end it prints the samples as a table (one row per tenth of the run), the clients started,
the app's restarts, and the least-squares slope of RSS, private memory and descriptors after its
first tenth (the warm-up: caches, pipelines and the driver's first allocations), per hour. It
fails (exit status 1) if Vitrine died.

Usage: python3 benchmarks/soak.py [--vitrine PATH] [--minutes 60] [--sample 10] [--csv FILE]
(`swift build -c release --product vitrine` first; PATH defaults to .build/release/vitrine).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import processes

CLIENTS = [
    ["weston-simple-shm"],
    ["weston-simple-damage"],
    ["weston-simple-damage", "--use-viewport"],
    ["weston-subsurfaces"],
    ["weston-flower"],
    ["weston-transformed"],
    ["weston-scaler"],
    ["weston-simple-egl"],
    ["weston-presentation-shm", "-f"],
    ["foot", "sh", "-c", "for i in $(seq 100); do echo line $i; sleep 0.05; done"],
    ["wayland-info"],
]

BOARD = """[board]
name = "soak"

[[output]]
connector = "Virtual-1"
mode = "1280x720"
refresh = 60

[app]
command = ["sh", "-c", "timeout -s KILL 70 weston-simple-shm; exit 3"]
no-frame-after = 0

[splash]
background = "#203040"
"""


def memory_kib(pid):
    """(RSS, private) in KiB, from smaps_rollup."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        for line in rollup:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    return fields.get("Rss", 0), fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def slope_per_hour(samples):
    """Least-squares slope of (seconds, value) pairs, per hour."""
    n = len(samples)
    if n < 2:
        return 0.0
    mean_t = sum(t for t, _ in samples) / n
    mean_v = sum(v for _, v in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    if var == 0:
        return 0.0
    return sum((t - mean_t) * (v - mean_v) for t, v in samples) / var * 3600


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vitrine", default=".build/release/vitrine")
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--sample", type=float, default=10, help="seconds between samples")
    parser.add_argument("--csv", help="write every sample here (seconds, rss_kib, private_kib, fds)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not os.access(args.vitrine, os.X_OK):
        sys.exit(f"{args.vitrine} is missing: swift build -c release --product vitrine")

    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="vitrine-soak-")
    runtime = os.path.join(work, "runtime")
    os.mkdir(runtime, 0o700)
    board = os.path.join(work, "soak.toml")
    with open(board, "w") as file:
        file.write(BOARD)
    environment = dict(os.environ, XDG_RUNTIME_DIR=runtime, XDG_CACHE_HOME=os.path.join(work, "cache"))
    environment.pop("WAYLAND_DISPLAY", None)
    log = open(os.path.join(work, "vitrine.log"), "w")
    vitrine = subprocess.Popen(
        [args.vitrine, "run", "--config", board, "--socket", "soak-0"], env=environment,
        stdout=log, stderr=subprocess.STDOUT)
    client_environment = dict(environment, WAYLAND_DISPLAY="soak-0")
    processes.wait_until_listening(os.path.join(runtime, "soak-0"), 30, alive=lambda: vitrine.poll() is None)

    start = time.monotonic()
    end = start + args.minutes * 60
    samples = []  # (seconds, rss KiB, private KiB, fds)
    running = []  # (process, stop time)
    started = 0
    next_sample = start
    died = None
    try:
        while time.monotonic() < end:
            now = time.monotonic()
            if vitrine.poll() is not None:
                died = vitrine.returncode
                break
            for process, stop in list(running):
                if process.poll() is not None or now >= stop:
                    processes.stop(process, grace=2)
                    running.remove((process, stop))
            if len(running) < 3 and rng.random() < 0.5:
                command = rng.choice(CLIENTS)
                process = subprocess.Popen(
                    command, env=client_environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                running.append((process, now + rng.uniform(1, 8)))
                started += 1
            if now >= next_sample:
                samples.append((now - start, *memory_kib(vitrine.pid), descriptors(vitrine.pid)))
                next_sample += args.sample
            time.sleep(0.2)
    finally:
        for process, _ in running:
            process.kill()
            process.wait()
        processes.stop(vitrine, grace=15)
        log.close()

    with open(os.path.join(work, "vitrine.log")) as file:
        restarts = sum(1 for line in file if "; restarting in " in line)
    if args.csv:
        with open(args.csv, "w") as file:
            file.write("seconds,rss_kib,private_kib,fds\n")
            for t, rss, private, fds in samples:
                file.write(f"{t:.0f},{rss},{private},{fds}\n")
    print(f"{args.minutes:g} minutes, {len(samples)} samples, {started} clients started, "
          f"{restarts} app restarts logged (log: {work}/vitrine.log)")
    print("minute   RSS MiB   private MiB   fds")
    step = max(1, len(samples) // 10)
    for t, rss, private, fds in samples[::step] + samples[-1:]:
        print(f"{t / 60:6.1f}   {rss / 1024:7.1f}   {private / 1024:11.1f}   {fds:3d}")
    settled = samples[len(samples) // 10:]
    rss_slope = slope_per_hour([(t, rss / 1024) for t, rss, _, _ in settled])
    private_slope = slope_per_hour([(t, private / 1024) for t, _, private, _ in settled])
    fd_slope = slope_per_hour([(t, fds) for t, _, _, fds in settled])
    print(f"after the first tenth: RSS {rss_slope:+.2f} MiB/hour, private {private_slope:+.2f} MiB/hour, "
          f"descriptors {fd_slope:+.2f}/hour")
    if died is not None:
        print(f"Vitrine died with status {died}")
        return 1
    shutil.rmtree(runtime, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
