#!/usr/bin/env python3
"""What X11 support costs: an idle Vitrine with the X display open (no X client) against one
with --no-x11 (resident memory, descriptors, processes, CPU over 5 s), and the start-up of an X
app (xterm) against a Wayland one (foot) as the kiosk app of a board: Vitrine's own log lines
("Xwayland ... ready N ms after its start", "... drew its first frame N ms after its start").

    python3 benchmarks/x11_cost.py [--vitrine .build/debug/vitrine] [--rounds 3]
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time


def children(pid):
    """Every descendant process of pid, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid:
            found.append(int(entry))
    return found + [grandchild for child in found for grandchild in children(child)]


def idle(vitrine, extra, runtime):
    process = subprocess.Popen(
        [vitrine, "run", "--headless", "640x480", "--no-control-socket", *extra],
        env={**os.environ, "XDG_RUNTIME_DIR": runtime}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(4)
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu():
        with open(f"/proc/{process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before = cpu()
    time.sleep(5)
    used = cpu() - before
    with open(f"/proc/{process.pid}/status") as status:
        rss = int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))
    descriptors = len(os.listdir(f"/proc/{process.pid}/fd"))
    processes = len(children(process.pid))
    process.terminate()
    process.wait()
    return rss, descriptors, processes, used


def start_up(vitrine, command, runtime):
    board = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    quoted = ", ".join(f'"{part}"' for part in command)
    board.write(f'[[output]]\nconnector = "first-connected"\nmode = "640x480"\n\n[app]\ncommand = [{quoted}]\n')
    board.close()
    process = subprocess.Popen(
        [vitrine, "run", "--config", board.name, "--no-control-socket"],
        env={**os.environ, "XDG_RUNTIME_DIR": runtime}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ready, first = None, None
    deadline = time.monotonic() + 60
    for line in process.stderr:
        if match := re.search(r"Xwayland on :\d+ ready (\d+) ms", line):
            ready = int(match.group(1))
        if match := re.search(r"drew its first frame (\d+) ms after its start", line):
            first = int(match.group(1))
            break
        if time.monotonic() > deadline:
            break
    process.terminate()
    process.communicate()
    os.unlink(board.name)
    return ready, first


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vitrine", default=".build/debug/vitrine")
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    runtime = tempfile.mkdtemp(prefix="vitrine-x11-cost-")
    for label, extra in (("X11 on, no X client", []), ("--no-x11", ["--no-x11"])):
        rounds = [idle(arguments.vitrine, extra, runtime) for _ in range(arguments.rounds)]
        rss, descriptors, processes, cpu = (statistics.median(values) for values in zip(*rounds))
        print(f"idle, {label}: {rss / 1024:.1f} MiB resident, {descriptors:.0f} descriptors, "
              f"{processes:.0f} child processes, {cpu:.2f} s CPU in 5 s")
    for label, command in (("xterm (X11)", ["xterm", "-e", "sleep", "60"]), ("foot (Wayland)", ["foot", "sleep", "60"])):
        rounds = [start_up(arguments.vitrine, command, runtime) for _ in range(arguments.rounds)]
        firsts = [first for _, first in rounds if first is not None]
        readies = [ready for ready, _ in rounds if ready is not None]
        ready = f", Xwayland ready after {statistics.median(readies):.0f} ms" if readies else ""
        print(f"start-up, {label}: first frame {statistics.median(firsts) if firsts else 'never'} ms after the app's start{ready} "
              f"(rounds: {[first for _, first in rounds]})")


if __name__ == "__main__":
    main()
