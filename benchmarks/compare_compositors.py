#!/usr/bin/env python3
"""Runs Vitrine, weston and cage headless on the same clients in one run and compares them.

For each compositor (1280x720 headless output, software rendering: Vitrine on lavapipe, weston
10 with pixman and desktop-shell, cage with pixman) and each of --rounds rounds, it measures:
  * idle RSS of the compositor (cage needs an app: it runs `sleep`, which is no Wayland client);
  * start → first presented frame: from spawning the compositor to the first wl_callback.done
    that weston-simple-shm receives (WAYLAND_DEBUG timestamps, CLOCK_REALTIME), once with an
    empty cache (the first start after installing) and then in every round with what the
    earlier starts left in it;
  * compositor CPU time per frame of weston-simple-shm (utime+stime from /proc over --seconds,
    divided by the frame callbacks the client received meanwhile);
  * commit → frame callback latency of weston-simple-shm (median and p95);
  * RSS with that client;
  * commit → presented latency from weston-presentation-shm -f (median and p95; cage has no
    wp_presentation, so none there).
weston runs desktop-shell because its kiosk-shell shows nothing on the headless backend (no seat)
and fullscreen-shell offers no xdg_wm_base, which weston-presentation-shm needs.
It prints a table of medians over the rounds and the ratios to Vitrine. Compositors and clients
run as an unprivileged user when started as root (cage refuses root), each compositor with a
cache directory of its own (XDG_CACHE_HOME) that the user can write, where the GPU driver keeps
compiled shaders between starts: Mesa looks there, else in the passwd entry's home (not $HOME),
which for nobody does not exist; the systemd unit's user has its home in its StateDirectory.
Usage: python3 benchmarks/compare_compositors.py [--vitrine PATH] [--rounds N] [--seconds S]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import processes

WIDTH, HEIGHT = 1280, 720
LINE = re.compile(r"^\[\s*(\d+)\.(\d+)\]\s+(->)?\s*([a-z_0-9]+)@(\d+)\.([a-z_0-9]+)\(")


def now_debug_ms():
    # WAYLAND_DEBUG prints CLOCK_REALTIME microseconds truncated to 32 bits, as milliseconds.
    micros = (time.time_ns() // 1000) & 0xFFFFFFFF
    return micros / 1000.0


def unprivileged():
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def runtime_dir():
    path = "/tmp/vitrine-bench-runtime"
    shutil.rmtree(path, ignore_errors=True)
    os.mkdir(path, 0o700)
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    return path


def compositor_cache(name, fresh=False):
    """The compositor's XDG_CACHE_HOME, kept across its starts (emptied when `fresh`)."""
    path = f"/tmp/vitrine-bench-cache-{name}"
    if fresh:
        shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path, 0o700, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    return path


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    # Sum over the process's threads (Vitrine's renderer uses lavapipe's worker threads).
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def wait_for(path, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.005)
    return False


def compositor_command(name, vitrine, socket, app):
    if name == "vitrine":
        return [vitrine, "run", "--headless", f"{WIDTH}x{HEIGHT}@60", "--socket", socket], {}
    if name == "weston":
        return ["weston", "--backend=headless-backend.so", "--shell=desktop-shell.so", "--use-pixman",
                f"--width={WIDTH}", f"--height={HEIGHT}", f"--socket={socket}", "--idle-time=0"], {}
    # cage names its own socket and always runs an app; its headless output is 1280x720.
    env = {"WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_HEADLESS_OUTPUTS": "1",
           "WLR_LIBINPUT_NO_DEVICES": "1"}
    return ["cage", "--"] + app, env


class Session:
    """A compositor with (for vitrine and weston) a client started once its socket exists."""

    def __init__(self, name, vitrine, app, client_env=None):
        self.runtime = runtime_dir()
        self.socket = "bench-0"
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime, XDG_CACHE_HOME=compositor_cache(name))
        env.pop("WAYLAND_DISPLAY", None)
        command, extra = compositor_command(name, vitrine, self.socket, app)
        env.update(extra)
        if name == "cage":
            env.update(client_env or {})
        self.log = open(f"{self.runtime}/client.log", "w+") if app else None
        self.start_ms = now_debug_ms()
        self.compositor = subprocess.Popen(unprivileged() + command, env=env, stdout=subprocess.DEVNULL,
                                           stderr=self.log if name == "cage" and self.log else subprocess.DEVNULL)
        self.client = None
        if name != "cage":
            if not wait_for(f"{self.runtime}/{self.socket}"):
                raise RuntimeError(f"{name} did not open its socket")
            if app:
                client_env = dict(env, WAYLAND_DISPLAY=self.socket, **(client_env or {}))
                self.client = subprocess.Popen(unprivileged() + app, env=client_env, stdout=self.log,
                                               stderr=self.log)

    def stop(self):
        for process in (self.client, self.compositor):
            if process:
                processes.stop(process, grace=5)
        if self.log:
            self.log.close()

    def lines(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log.name) as text:
            return text.read().splitlines()


FRAME_CALLBACK = re.compile(r"new id wl_callback@(\d+)\)")


def callback_events(lines):
    """(time ms, kind) for commits and frame callbacks in WAYLAND_DEBUG output.

    Only callbacks made by wl_surface.frame count: those of wl_display.sync (the client's first
    roundtrips) are answered before any frame is drawn. Object ids are reused, so a callback id
    counts from its frame request to its done."""
    events = []
    frame_callbacks = set()
    for line in lines:
        match = LINE.match(line)
        if not match:
            continue
        stamp = int(match.group(1)) + int(match.group(2)) / 1000.0
        outgoing, interface, object_id, method = match.group(3), match.group(4), match.group(5), match.group(6)
        if outgoing and interface == "wl_surface" and method == "frame":
            new_id = FRAME_CALLBACK.search(line)
            if new_id:
                frame_callbacks.add(new_id.group(1))
        elif outgoing and interface == "wl_surface" and method == "commit":
            events.append((stamp, "commit"))
        elif not outgoing and interface == "wl_callback" and method == "done" and object_id in frame_callbacks:
            frame_callbacks.discard(object_id)
            events.append((stamp, "done"))
    return events


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def shm_session(name, vitrine):
    """weston-simple-shm on the compositor, and the time from the compositor's start to the
    client's first frame callback (ms)."""
    session = Session(name, vitrine, ["weston-simple-shm"], client_env={"WAYLAND_DEBUG": "client"})
    deadline = time.time() + 30
    first = None
    while time.time() < deadline and first is None:
        time.sleep(0.02)
        done = [stamp for stamp, kind in callback_events(session.lines()) if kind == "done"]
        first = done[0] if done else None
    if first is None:
        session.stop()
        raise RuntimeError(f"{name}: weston-simple-shm got no frame callback")
    return session, first - session.start_ms


def measure_cold_startup(name, vitrine):
    compositor_cache(name, fresh=True)
    session, startup = shm_session(name, vitrine)
    session.stop()
    return {"startup_cold_ms": startup}


def measure_shm(name, vitrine, seconds):
    session, startup = shm_session(name, vitrine)
    try:
        cpu_before = cpu_seconds(session.compositor.pid)
        window_start = now_debug_ms()
        time.sleep(seconds)
        cpu_after = cpu_seconds(session.compositor.pid)
        window_end = now_debug_ms()
        rss_client = rss_kib(session.compositor.pid)
        events = callback_events(session.lines())
        frames = sum(1 for stamp, kind in events if kind == "done" and window_start <= stamp <= window_end)
        latencies, pending = [], None
        for stamp, kind in events:
            if kind == "commit":
                pending = stamp
            elif pending is not None:
                latencies.append(stamp - pending)
                pending = None
        return {
            "startup_ms": startup,
            "cpu_per_frame_ms": (cpu_after - cpu_before) * 1000 / max(1, frames),
            "fps": frames / seconds,
            "commit_to_callback_median_ms": statistics.median(latencies),
            "commit_to_callback_p95_ms": percentile(latencies, 0.95),
            "rss_client_mib": rss_client / 1024,
        }
    finally:
        session.stop()


def measure_idle(name, vitrine):
    session = Session(name, vitrine, ["sleep", "30"] if name == "cage" else None)
    try:
        time.sleep(1.5)
        return {"rss_idle_mib": rss_kib(session.compositor.pid) / 1024}
    finally:
        session.stop()


def measure_presentation(name, vitrine, seconds):
    if name == "cage":
        return {}
    session = Session(name, vitrine, ["stdbuf", "-oL", "weston-presentation-shm", "-f"])
    try:
        time.sleep(seconds)
    finally:
        session.stop()
    values = [float(m.group(1)) for line in session.lines() for m in [re.search(r"c2p\s+(\d+) ms", line)] if m]
    values = values[1:]  # the first line measures from before the first frame
    if not values:
        return {}
    return {"commit_to_present_median_ms": statistics.median(values),
            "commit_to_present_p95_ms": percentile(values, 0.95)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vitrine", default=".build/release/vitrine")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--compositors", default="vitrine,weston,cage")
    arguments = parser.parse_args()
    names = arguments.compositors.split(",")
    results = {name: [] for name in names}
    for round_index in range(arguments.rounds):
        for name in names:
            row = measure_cold_startup(name, arguments.vitrine) if round_index == 0 else {}
            row.update(measure_idle(name, arguments.vitrine))
            row.update(measure_shm(name, arguments.vitrine, arguments.seconds))
            row.update(measure_presentation(name, arguments.vitrine, arguments.seconds / 2))
            results[name].append(row)
            print(f"round {round_index + 1} {name}: " + ", ".join(f"{k}={v:.2f}" for k, v in row.items()), flush=True)
    keys = ["startup_cold_ms", "startup_ms", "rss_idle_mib", "rss_client_mib", "cpu_per_frame_ms", "fps",
            "commit_to_callback_median_ms", "commit_to_callback_p95_ms",
            "commit_to_present_median_ms", "commit_to_present_p95_ms"]
    medians = {name: {key: statistics.median([r[key] for r in rows if key in r]) if any(key in r for r in rows) else None
                      for key in keys} for name, rows in results.items()}
    print("\nmedians of %d rounds (ratio = other / vitrine)" % arguments.rounds)
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for key in keys:
        cells = []
        base = medians.get("vitrine", {}).get(key)
        for name in names:
            value = medians[name][key]
            if value is None:
                cells.append("n/a")
            elif name != "vitrine" and base:
                cells.append(f"{value:.2f} ({value / base:.2f}×)")
            else:
                cells.append(f"{value:.2f}")
        print(f"| {key} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
