#!/usr/bin/env python3
"""Runs Vitrine, weston and cage headless on the same clients in one run and compares them.

Compositors (headless, software rendering everywhere): vitrine-cpu and vitrine-vulkan (Vitrine
with `--renderer cpu`, pixman, and `--renderer vulkan`, lavapipe), weston-pixman and weston-gl
(weston 10 with desktop-shell and its pixman renderer, or its GL renderer on llvmpipe), cage
(wlroots' pixman renderer). For each of --rounds rounds it measures, per compositor:
  * idle: RSS 1.5 s after start, then over --idle-seconds the compositor's CPU time and its
    threads' wakeups (cage needs an app: it runs `sleep`, which is no Wayland client);
  * start → first presented frame at 1280x720: from spawning the compositor to the first
    frame callback (wl_surface.frame's wl_callback.done) that weston-simple-shm receives
    (WAYLAND_DEBUG timestamps, CLOCK_REALTIME), once with an empty cache (the first start after
    installing) and then in every round with what the earlier starts left in it; each
    compositor starts the client itself once it listens, as a kiosk starts its app (`vitrine
    run -- weston-simple-shm`, weston's [autolaunch], cage's command line);
  * weston-simple-shm (a 250x250 window redrawn every frame) at 1280x720: compositor CPU per
    frame, frames per second, commit → frame callback (median, p95), thread wakeups per frame,
    RSS with the client;
  * commit → presented from weston-presentation-shm -f (median, p95; cage has no
    wp_presentation);
  * fullscreen_shm (benchmarks/fullscreen_shm.c: a fullscreen wl_shm client redrawing its whole
    buffer every frame, the kiosk's common frame) at 1280x720 and 1920x1080: the same figures
    and RSS under that load (cage's headless output is fixed at 1280x720, so it runs only that
    size; a buffer that exactly fills the output, it passes through without composing).
CPU time is the sum of the compositor's threads' run time (/proc/PID/task/*/schedstat, ns);
a wakeup is a voluntary context switch (/proc/PID/task/*/status), each of which ends in one;
start-up also reports the CPU time spent until the first frame (/proc/PID/stat, 10 ms ticks),
which unlike the wall time hardly depends on the machine's load.
weston runs desktop-shell because its kiosk-shell shows nothing on the headless backend (no seat)
and fullscreen-shell offers no xdg_wm_base, which weston-presentation-shm needs.
The other measures start their clients once the compositor's socket takes connections (a
connect() succeeds: its file appears at bind(), before listen()).
It prints a table of medians over the rounds and the ratios to the first compositor listed.
Compositors and clients run as an unprivileged user when started as root (cage refuses root),
each compositor with a cache directory of its own (XDG_CACHE_HOME) that the user can write, where
the GPU driver keeps compiled shaders between starts: Mesa looks there, else in the passwd
entry's home (not $HOME), which for nobody does not exist; the systemd unit's user has its home
in its StateDirectory.

With --callgrind it instead runs each compositor under valgrind's callgrind with fullscreen_shm
at each size, and counts the instructions the compositor executes per fullscreen frame in steady
state (counters zeroed after a warm-up, dumped after --callgrind-frames frames): a figure that
does not depend on the machine's load. With --cache-sim as well, callgrind simulates the caches and
the table adds the first-level instruction and data cache read misses per frame: a frame runs
once every 16 ms, its code and data cold each time, so its CPU time follows the distinct cache
lines it touches at least as much as its instruction count.
Usage: python3 benchmarks/compare_compositors.py [--vitrine PATH] [--rounds N] [--seconds S]
       [--compositors a,b] [--measures startup,idle,...] [--build LABEL=PATH ...] [--callgrind]
Another build of Vitrine joins the same run as vitrine-cpu@LABEL (or vitrine-vulkan@LABEL) with
--build LABEL=PATH: builds of one source with different flags, compared with cage under one load.
"""
import argparse
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import processes

COMPOSITORS = ["vitrine-cpu", "vitrine-vulkan", "weston-pixman", "weston-gl", "cage"]
MEASURES = ["startup", "idle", "shm", "presentation", "fullscreen"]
SMALL, LARGE = (1280, 720), (1920, 1080)
CAGE_SIZE = SMALL  # cage 0.1.4's headless output
# libwayland 1.23 names the queue and writes interface#id; older versions interface@id.
LINE = re.compile(r"^\[\s*(\d+)\.(\d+)\]\s+(?:\{[^}]*\}\s+)?(->)?\s*([a-z_0-9]+)[@#](\d+)\.([a-z_0-9]+)\(")
HERE = os.path.dirname(os.path.abspath(__file__))
LOGS = f"/tmp/vitrine-bench-logs-{os.getpid()}"


def now_debug_ms():
    # WAYLAND_DEBUG prints CLOCK_REALTIME microseconds truncated to 32 bits, as milliseconds.
    micros = (time.time_ns() // 1000) & 0xFFFFFFFF
    return micros / 1000.0


def unprivileged():
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def runtime_dir():
    path = f"/tmp/vitrine-bench-runtime-{os.getpid()}"  # one per run: runs side by side keep apart
    shutil.rmtree(path, ignore_errors=True)
    os.mkdir(path, 0o700)
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    return path


def compositor_cache(name, fresh=False):
    """The compositor's XDG_CACHE_HOME, kept across its starts (emptied when `fresh`)."""
    path = f"/tmp/vitrine-bench-cache-{os.getpid()}-{name}"
    if fresh:
        shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path, 0o700, exist_ok=True)
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    return path


def build_fullscreen_client():
    """Builds benchmarks/fullscreen_shm.c into a directory every user can read; returns its path."""
    directory = tempfile.mkdtemp(prefix="vitrine-bench-client-")
    os.chmod(directory, 0o755)
    protocol = "/usr/share/wayland-protocols/stable/xdg-shell/xdg-shell.xml"
    subprocess.run(["wayland-scanner", "client-header", protocol, f"{directory}/xdg-shell-client-protocol.h"],
                   check=True)
    subprocess.run(["wayland-scanner", "private-code", protocol, f"{directory}/xdg-shell-protocol.c"], check=True)
    binary = f"{directory}/fullscreen_shm"
    subprocess.run(["cc", "-O2", "-I", directory, "-o", binary, f"{HERE}/fullscreen_shm.c",
                    f"{directory}/xdg-shell-protocol.c", "-lwayland-client"], check=True)
    return binary


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def process_cpu_seconds(pid):
    """utime + stime of the process, its ended threads included (10 ms ticks)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_counters(pid):
    """{thread id: (CPU seconds, wakeups)} of the process's threads: run time from schedstat
    (ns), wakeups as voluntary context switches (a thread that blocks is woken once for each)."""
    counters = {}
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            cpu_ns = int(open(f"{task}/schedstat").read().split()[0])
            wakeups = next(int(line.split()[1]) for line in open(f"{task}/status")
                           if line.startswith("voluntary_ctxt_switches:"))
            counters[os.path.basename(task)] = (cpu_ns / 1e9, wakeups)
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended meanwhile
    return counters


def thread_deltas(before, after):
    """(CPU seconds, wakeups) of the threads alive at the end since `before` (threads started
    meanwhile count in full; one that ended meanwhile is missed, which the figure then
    underestimates by its last moments)."""
    cpu, wakeups = 0.0, 0
    for tid, (end_cpu, end_wakeups) in after.items():
        start_cpu, start_wakeups = before.get(tid, (0.0, 0))
        cpu += end_cpu - start_cpu
        wakeups += end_wakeups - start_wakeups
    return cpu, wakeups


def weston_autolaunch(app):
    """A weston.ini whose [autolaunch] starts `app` (a path, no arguments: weston 10 takes none)."""
    directory = tempfile.mkdtemp(prefix="vitrine-bench-weston-")
    os.chmod(directory, 0o755)
    path = f"{directory}/weston.ini"
    with open(path, "w") as ini:
        ini.write(f"[autolaunch]\npath={shutil.which(app[0])}\n")
    os.chmod(path, 0o644)
    return path


def compositor_command(name, vitrine, socket, app, size, board=None, launches_app=False):
    """The compositor's command line and environment; with `launches_app` (always for cage) the
    compositor starts `app` itself once it listens, as a kiosk does."""
    width, height = size
    if name.startswith("vitrine-"):
        renderer = name.removeprefix("vitrine-").split("@")[0]
        board_arguments = ["--config", board] if board else []
        app_arguments = ["--", *app] if launches_app else []
        return [vitrine, "run", "--renderer", renderer, "--headless", f"{width}x{height}@60", "--socket", socket,
                *board_arguments, *app_arguments], {}
    if name.startswith("weston-"):
        renderer = "--use-pixman" if name == "weston-pixman" else "--use-gl"
        config_arguments = [f"--config={weston_autolaunch(app)}"] if launches_app else []
        return ["weston", "--backend=headless-backend.so", "--shell=desktop-shell.so", renderer,
                f"--width={width}", f"--height={height}", f"--socket={socket}", "--idle-time=0", *config_arguments], {}
    # cage names its own socket and always runs an app; its headless output is 1280x720.
    env = {"WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_HEADLESS_OUTPUTS": "1",
           "WLR_LIBINPUT_NO_DEVICES": "1"}
    return ["cage", "--"] + app, env


class Session:
    """A compositor with a client: started by the compositor itself (always for cage, and for the
    others with `launches_app`: its output, with the compositor's, goes to the client log), or
    by this script once the compositor's socket takes connections."""

    def __init__(self, name, vitrine, app, client_env=None, size=SMALL, wrapper=(), socket_timeout=60, board=None,
                 launches_app=False):
        self.runtime = runtime_dir()
        self.socket = "bench-0"
        env = dict(os.environ, XDG_RUNTIME_DIR=self.runtime, XDG_CACHE_HOME=compositor_cache(name))
        env.pop("WAYLAND_DISPLAY", None)
        launches_app = app is not None and (launches_app or name == "cage")
        command, extra = compositor_command(name, vitrine, self.socket, app, size, board, launches_app)
        env.update(extra)
        if launches_app:
            env.update(client_env or {})
        self.log = open(f"{self.runtime}/client.log", "w+") if app else None
        # The compositor's own log, kept after the run (the runtime directory is not) to say why
        # a start failed.
        os.makedirs(LOGS, exist_ok=True)
        with open(f"{LOGS}/{name}.log", "w") as compositor_log:
            self.start_ms = now_debug_ms()
            self.compositor = subprocess.Popen(
                unprivileged() + list(wrapper) + command, env=env, stdout=compositor_log,
                stderr=self.log if launches_app else compositor_log)
        self.client = None
        if name != "cage":
            listening = processes.wait_until_listening(
                f"{self.runtime}/{self.socket}", socket_timeout, alive=lambda: self.compositor.poll() is None)
            if not listening:
                self.stop()
                raise RuntimeError(f"{name} did not open its socket (its log: {LOGS}/{name}.log)")
            if app and not launches_app:
                client_env = dict(env, WAYLAND_DISPLAY=self.socket, **(client_env or {}))
                self.client = subprocess.Popen(unprivileged() + app, env=client_env, stdout=self.log,
                                               stderr=self.log)

    def stop(self, grace=5):
        for process in (self.client, self.compositor):
            if process:
                processes.stop(process, grace=grace)
        if self.log:
            self.log.close()

    def lines(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.log.name) as text:
            return text.read().splitlines()

    def frames_done(self):
        return [stamp for stamp, kind in callback_events(self.lines()) if kind == "done"]

    def wait_first_frame(self, name, timeout=30):
        """Time from the compositor's start to the client's first frame callback (ms), and the
        compositor's CPU time until it was seen (ms, within 10 ms of polling), in 10 ms ticks
        and as the sum of its live threads' run time (ns, finer): the wall time grows with the
        machine's load, the CPU time hardly."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            time.sleep(0.01)
            done = self.frames_done()
            if done:
                threads, _ = thread_deltas({}, thread_counters(self.compositor.pid))
                return done[0] - self.start_ms, process_cpu_seconds(self.compositor.pid) * 1000, threads * 1000
        self.stop()
        raise RuntimeError(f"{name}: the client got no frame callback")


FRAME_CALLBACK = re.compile(r"new id wl_callback[@#](\d+)\)")


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


def measure_startup(name, vitrine, cold=False):
    """Start → the first frame callback of weston-simple-shm; `cold` with an empty cache."""
    compositor_cache(name, fresh=cold)
    session = Session(name, vitrine, ["weston-simple-shm"], client_env={"WAYLAND_DEBUG": "client"}, launches_app=True)
    try:
        wall, cpu, thread_cpu = session.wait_first_frame(name)
        prefix = "startup_cold" if cold else "startup"
        return {f"{prefix}_ms": wall, f"{prefix}_cpu_ms": cpu, f"{prefix}_thread_cpu_ms": thread_cpu}
    finally:
        session.stop()


def measure_load(name, vitrine, app, seconds, size, prefix, warmup=0.0):
    """A client redrawing every frame: the compositor's CPU, wakeups and RSS per presented frame."""
    session = Session(name, vitrine, app, client_env={"WAYLAND_DEBUG": "client"}, size=size)
    try:
        session.wait_first_frame(name)
        time.sleep(warmup)
        before = thread_counters(session.compositor.pid)
        window_start = now_debug_ms()
        time.sleep(seconds)
        cpu, wakeups = thread_deltas(before, thread_counters(session.compositor.pid))
        window_end = now_debug_ms()
        rss = rss_kib(session.compositor.pid)
        events = callback_events(session.lines())
        frames = sum(1 for stamp, kind in events if kind == "done" and window_start <= stamp <= window_end)
        latencies, pending = [], None
        for stamp, kind in events:
            if kind == "commit":
                pending = stamp
            elif pending is not None:
                latencies.append(stamp - pending)
                pending = None
        if not frames or not latencies:
            raise RuntimeError(f"{name}: {app[0]} showed no frame in the window; its log ends: "
                               + " / ".join(session.lines()[-3:]))
        row = {
            "cpu_per_frame_ms": cpu * 1000 / frames,
            "fps": frames / seconds,
            "wakeups_per_frame": wakeups / frames,
            "commit_to_callback_median_ms": statistics.median(latencies),
            "commit_to_callback_p95_ms": percentile(latencies, 0.95),
            "rss_load_mib": rss / 1024,
        }
        return {f"{prefix}_{key}": value for key, value in row.items()}
    finally:
        session.stop()


def measure_idle(name, vitrine, seconds):
    session = Session(name, vitrine, ["sleep", str(int(seconds) + 30)] if name == "cage" else None)
    try:
        time.sleep(1.5)
        rss = rss_kib(session.compositor.pid)
        before = thread_counters(session.compositor.pid)
        time.sleep(seconds)
        cpu, wakeups = thread_deltas(before, thread_counters(session.compositor.pid))
        return {"rss_idle_mib": rss / 1024, "idle_wakeups_per_s": wakeups / seconds,
                "idle_cpu_ms_per_10s": cpu * 1000 * 10 / seconds}
    finally:
        session.stop()


PRESENTATION_CLIENT = ["/usr/bin/stdbuf", "-oL", "/usr/bin/weston-presentation-shm", "-f"]


def presentation_board():
    """A board configuration whose app is weston-presentation-shm, seen with xdg_wm_base 4: weston
    10's client binds whatever version is offered and libwayland aborts it on version 6's
    wm_capabilities event (board-configs/FORMAT.md, [[compatibility]]). Vitrine forwards the
    app's lines to its log."""
    directory = tempfile.mkdtemp(prefix="vitrine-bench-board-")
    os.chmod(directory, 0o755)
    path = f"{directory}/presentation.toml"
    with open(path, "w") as board:
        board.write('[[output]]\nconnector = "first-connected"\n\n'
                    f"[app]\ncommand = {json.dumps(PRESENTATION_CLIENT)}\n\n"
                    f'[[compatibility]]\nexecutable = "{PRESENTATION_CLIENT[2]}"\nxdg-shell = 4\n')
    os.chmod(path, 0o644)
    return path


def measure_presentation(name, vitrine, seconds):
    if name == "cage":
        return {}
    if name.startswith("vitrine-"):
        session = Session(name, vitrine, None, board=presentation_board())
    else:
        session = Session(name, vitrine, PRESENTATION_CLIENT)
    try:
        time.sleep(seconds)
    finally:
        session.stop()
    lines = open(f"{LOGS}/{name}.log").read().splitlines() if name.startswith("vitrine-") else session.lines()
    values = [float(m.group(1)) for line in lines for m in [re.search(r"c2p\s+(\d+) ms", line)] if m]
    values = values[1:]  # the first line measures from before the first frame
    if not values:
        return {}
    return {"commit_to_present_median_ms": statistics.median(values),
            "commit_to_present_p95_ms": percentile(values, 0.95)}


def fullscreen_sizes(name):
    return [CAGE_SIZE] if name == "cage" else [SMALL, LARGE]


def size_prefix(size):
    return f"fs{size[1]}"


ALLOCATORS = ("malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc")


def callgrind_allocations(dump):
    """Calls to the C allocator recorded in a callgrind dump (whoever called it): callgrind
    names a function once in full, `(id) name`, and by its `(id)` afterwards."""
    names, callee, count = {}, None, 0
    for line in open(dump, errors="replace"):
        match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
        if match:
            if match.group(2):
                names[match.group(1)] = match.group(2)
            if line.startswith("cfn="):
                callee = names.get(match.group(1))
        elif line.startswith("calls=") and callee in ALLOCATORS:
            count += int(line[6:].split()[0])
    return count


def callgrind_total(name, vitrine, app, size, frames, timeout, keep, label, cache_sim=False):
    """(events, allocations, frames): what the compositor executed under callgrind, start to exit
    (a dictionary of callgrind's event totals: Ir, and with `cache_sim` I1mr, D1mr...), when it
    is stopped once `app` has seen `frames` frame callbacks, and how many the client had seen by
    then. The dump is left in `keep` (a directory) when given."""
    output = tempfile.mkdtemp(prefix=f"vitrine-bench-callgrind-{name}-")
    os.chmod(output, 0o777)
    wrapper = ["valgrind", "--tool=callgrind", "--dump-instr=no", "--trace-children=no", "--vgdb=no",
               f"--cache-sim={'yes' if cache_sim else 'no'}", f"--callgrind-out-file={output}/callgrind.out"]
    session = Session(name, vitrine, app, client_env={"WAYLAND_DEBUG": "client"},
                      size=size, wrapper=wrapper, socket_timeout=timeout)
    try:
        session.wait_first_frame(name, timeout=timeout)
        deadline = time.time() + timeout
        while len(session.frames_done()) < frames and time.time() < deadline:
            time.sleep(0.05)
        seen = len(session.frames_done())
    finally:
        # cage aborts on SIGTERM: it ends, and writes its dump, when its app ends.
        if name == "cage":
            subprocess.run(["pkill", "-P", str(session.compositor.pid)], check=False)
            try:
                session.compositor.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        # Under valgrind a Vulkan device takes long to tear down; killed, it writes no dump.
        session.stop(grace=120)
    dump = f"{output}/callgrind.out"
    lines = open(dump).read().splitlines()
    events = next(line.split()[1:] for line in lines if line.startswith("events:"))
    counts = next(line.split()[1:] for line in lines if line.startswith(("summary:", "totals:")))
    totals = dict(zip(events, map(int, counts)))
    allocations = callgrind_allocations(dump)
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(dump, f"{keep}/callgrind.{name}.{label}.{seen}-frames")
    shutil.rmtree(output, ignore_errors=True)
    return totals, allocations, seen


def callgrind_per_frame(name, vitrine, app, size, frames, timeout, keep, label, cache_sim=False):
    """(events, allocations) the compositor executes per frame of `app` in steady state (events
    as callgrind_total's): two runs, stopped after 10 and after 10 + `frames` frames, so that
    start-up and shutdown cancel out."""
    short, short_allocations, short_frames = callgrind_total(name, vitrine, app, size, 10, timeout, keep, label,
                                                             cache_sim)
    long, long_allocations, long_frames = callgrind_total(name, vitrine, app, size, 10 + frames, timeout, keep, label,
                                                          cache_sim)
    frames = max(1, long_frames - short_frames)
    events = {event: (long[event] - short[event]) / frames for event in long}
    return events, (long_allocations - short_allocations) / frames


def without_debug_info(binary):
    """A copy of `binary` without its debug sections (symbols stay): valgrind 3.19 gives up on
    the DWARF 5 that the Swift toolchain writes."""
    directory = tempfile.mkdtemp(prefix="vitrine-bench-stripped-")
    os.chmod(directory, 0o755)
    copy = f"{directory}/{os.path.basename(binary)}"
    subprocess.run(["objcopy", "--strip-debug", binary, copy], check=True)
    os.chmod(copy, 0o755)
    return copy


def run_callgrind(names, vitrine, frames, timeout, keep, cache_sim=False):
    """Instructions and allocations per frame of weston-simple-shm (at 1280x720) and of
    fullscreen_shm at each size, per compositor; with `cache_sim` the simulated first-level
    instruction and data cache read misses too."""
    client = build_fullscreen_client()
    vitrine = without_debug_info(vitrine)
    workloads = [("simple-shm", ["weston-simple-shm"], SMALL)]
    workloads += [(f"{w}x{h}", [client, str(w), str(h)], (w, h)) for w, h in (SMALL, LARGE)]
    print("instructions (allocations" + ("; I1 and D1 read misses" if cache_sim else "") + ") per frame")
    print("| compositor | " + " | ".join(label for label, _, _ in workloads) + " |")
    print("|---|" + "---|" * len(workloads))
    for name in names:
        cells = []
        for label, app, size in workloads:
            if app[0] == client and size not in fullscreen_sizes(name):
                cells.append("n/a")
                continue
            events, allocations = callgrind_per_frame(name, vitrine, app, size, frames, timeout, keep, label,
                                                      cache_sim)
            misses = f"; I1 {events['I1mr']:,.0f}, D1 {events['D1mr']:,.0f}" if cache_sim else ""
            cells.append(f"{events['Ir'] / 1e6:.3f} M ({allocations:.1f}{misses})")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def attempt(measure, *arguments, **options):
    """`measure` run again once when it fails (a client that lost its first frame, say): a run of
    several minutes is not lost to one bad start."""
    try:
        return measure(*arguments, **options)
    except RuntimeError as error:
        print(f"again after: {error}", flush=True)
        return measure(*arguments, **options)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vitrine", default=".build/release/vitrine")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--idle-seconds", type=float, default=5)
    parser.add_argument("--compositors", default=",".join(COMPOSITORS),
                        help="also vitrine-cpu@LABEL or vitrine-vulkan@LABEL, with the binary of --build LABEL=PATH")
    parser.add_argument("--build", action="append", default=[], metavar="LABEL=PATH",
                        help="another Vitrine binary to compare in the same run (repeatable)")
    parser.add_argument("--measures", default=",".join(MEASURES),
                        help="which of " + ", ".join(MEASURES) + " to run")
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--callgrind-frames", type=int, default=20)
    parser.add_argument("--callgrind-timeout", type=float, default=300)
    parser.add_argument("--callgrind-keep", help="a directory to keep the callgrind dumps in")
    parser.add_argument("--cache-sim", action="store_true",
                        help="with --callgrind: simulate the caches and report first-level read misses per frame")
    arguments = parser.parse_args()
    names = arguments.compositors.split(",")
    if arguments.callgrind:
        run_callgrind(names, arguments.vitrine, arguments.callgrind_frames, arguments.callgrind_timeout,
                      arguments.callgrind_keep, arguments.cache_sim)
        return 0
    builds = dict(build.split("=", 1) for build in arguments.build)
    measures = arguments.measures.split(",")
    client = build_fullscreen_client()
    results = {name: [] for name in names}
    for round_index in range(arguments.rounds):
        for name in names:
            vitrine = builds[name.split("@")[1]] if "@" in name else arguments.vitrine
            row = {}
            if "startup" in measures:
                if round_index == 0:
                    row.update(attempt(measure_startup, name, vitrine, cold=True))
                row.update(attempt(measure_startup, name, vitrine))
            if "idle" in measures:
                row.update(measure_idle(name, vitrine, arguments.idle_seconds))
            if "shm" in measures:
                row.update(attempt(measure_load, name, vitrine, ["weston-simple-shm"], arguments.seconds, SMALL, "shm"))
            if "presentation" in measures:
                row.update(measure_presentation(name, vitrine, arguments.seconds / 2))
            for size in fullscreen_sizes(name) if "fullscreen" in measures else []:
                row.update(attempt(measure_load, name, vitrine, [client, str(size[0]), str(size[1])],
                                   arguments.seconds, size, size_prefix(size), warmup=1.0))
            results[name].append(row)
            print(f"round {round_index + 1} {name}: " + ", ".join(f"{k}={v:.2f}" for k, v in row.items()), flush=True)
    keys = []
    for row in (r for rows in results.values() for r in rows):
        keys += [key for key in row if key not in keys]
    medians = {name: {key: statistics.median([r[key] for r in rows if key in r]) if any(key in r for r in rows) else None
                      for key in keys} for name, rows in results.items()}
    print("\nmedians of %d rounds (ratio = other / %s)" % (arguments.rounds, names[0]))
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for key in keys:
        cells = []
        base = medians[names[0]][key]
        for name in names:
            value = medians[name][key]
            if value is None:
                cells.append("n/a")
            elif name != names[0] and base:
                cells.append(f"{value:.2f} ({value / base:.2f}×)")
            else:
                cells.append(f"{value:.2f}")
        print(f"| {key} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
