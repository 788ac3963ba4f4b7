#!/usr/bin/env python3
"""Writes Sources/vitrine/startup.order and startup.ld: the functions of the vitrine binary that
start-up and the kiosk's frames run, which the release link places together at the start of the
code.

The kernel maps a binary's code around each page that runs (fault-around, 64 KiB, or the page
cache's larger folios), so code that runs once at start-up, scattered over the 19 MiB of `.text`,
keeps most of it mapped: the idle compositor's resident memory. Laid out together, the same code
fills a few megabytes.

It runs a release build of vitrine under valgrind's callgrind (headless, as
benchmarks/compare_compositors.py runs it) and lists the functions executed in the binary:
  0. the functions every steady frame of the kiosk runs (fullscreen_shm, weston-simple-shm; CPU
     renderer): a few hundred kilobytes of code, run once every 16 ms with cold caches, placed
     together so that a frame touches as few pages (TLB entries) as it can;
  1. `--renderer cpu` from start to idle, without a client;
  2. `--renderer cpu` with fullscreen_shm (the kiosk's common frame) and with weston-simple-shm;
  3. `--renderer vulkan` from start to idle, and with fullscreen_shm.
In that order, each group's new names sorted (so that a new run changes few lines), into
startup.order, the linker's symbol ordering file. A name defined more than once in the binary
(local helpers such as `objectdestroyTm`) would name every copy for the linker, including copies
inside the standard library's or Foundation's code, which it would then move whole: those names go
into startup.ld instead, a linker script that places the sections of that name, which only
Vitrine's own objects have (Package.swift gives each of their functions a section of its own), at
the start of `.text`, with the functions the compiler emits without a symbol (sections `.text..L*`)
and the C start files' code.
Run it after large changes; names that no longer exist are ignored by the link, and code not
listed stays where the linker puts it, so a stale list costs memory, never correctness. SwiftPM
does not relink for the lists alone: delete .build/release/vitrine.
Usage: python3 benchmarks/startup_order.py [--vitrine .build/release/vitrine] [--output PATH] [--script PATH]
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import compare_compositors as bench

FRAMES = 30


def executed_functions(dump, binary):
    """The names of the functions of `binary` that a callgrind dump (written with
    --compress-strings=no) says ran."""
    names = set()
    current_object = None
    for line in open(dump):
        if line.startswith("ob="):
            current_object = line[3:].strip()
        elif line.startswith("fn=") and current_object == binary:
            name = re.sub(r"'\d+$", "", line[3:].strip())  # callgrind marks recursion levels
            if not name.startswith("0x"):
                names.add(name)
    return names


def profile(name, vitrine, app=None, client_env=None):
    """The functions of `vitrine` that run as compositor `name` starts and, with `app`, draws
    FRAMES of its frames; without one, until it has been idle a few seconds."""
    output = tempfile.mkdtemp(prefix="vitrine-order-")
    os.chmod(output, 0o777)
    dump = f"{output}/callgrind.out"
    wrapper = ["valgrind", "--tool=callgrind", "--dump-instr=no", "--trace-children=no", "--vgdb=no",
               "--compress-strings=no", "--demangle=no", f"--callgrind-out-file={dump}"]
    session = bench.Session(name, vitrine, app, client_env=client_env, size=bench.SMALL, wrapper=wrapper,
                            socket_timeout=300)
    try:
        if app:
            session.wait_first_frame(name, timeout=300)
            deadline = time.time() + 300
            while len(session.frames_done()) < FRAMES and time.time() < deadline:
                time.sleep(0.1)
        else:
            time.sleep(5)
    finally:
        session.stop(grace=120)
    names = executed_functions(dump, vitrine)
    shutil.rmtree(output, ignore_errors=True)
    print(f"{name} {' '.join(app or ['idle'])}: {len(names)} functions", flush=True)
    return names


def self_costs(dump, binary):
    """{name: instructions run in the function itself} for the functions of `binary` in a
    callgrind dump (written with --compress-strings=no and --dump-instr=no)."""
    costs = collections.Counter()
    current_object, function, skip_next = None, None, False
    for line in open(dump):
        if skip_next:  # the inclusive cost of the call named on the line before
            skip_next = False
        elif line.startswith("ob="):
            current_object = line[3:].strip()
        elif line.startswith("fn="):
            name = re.sub(r"'\d+$", "", line[3:].strip())
            function = name if current_object == binary and not name.startswith("0x") else None
        elif line.startswith("calls="):
            skip_next = True
        elif function and line[:1].isdigit() or function and line[:1] in "+-*":
            fields = line.split()
            if len(fields) >= 2:
                costs[function] += int(fields[1])
    return costs


def steady_frame_functions(vitrine, app, client_env):
    """The names of the functions of `vitrine` (CPU renderer) that run in the kiosk's steady frames:
    those whose own cost grows with the number of frames, between a run of FRAMES frames and one of
    five times as many (callgrind's counters are not zeroed mid-run through vgdb: it did not reach
    the unprivileged compositor on this machine)."""
    def costs(frames):
        output = tempfile.mkdtemp(prefix="vitrine-order-")
        os.chmod(output, 0o777)
        dump = f"{output}/callgrind.out"
        wrapper = ["valgrind", "--tool=callgrind", "--dump-instr=no", "--trace-children=no", "--vgdb=no",
                   "--compress-strings=no", "--demangle=no", f"--callgrind-out-file={dump}"]
        session = bench.Session("vitrine-cpu", vitrine, app, client_env=client_env, size=bench.SMALL, wrapper=wrapper,
                                socket_timeout=300)
        try:
            session.wait_first_frame("vitrine-cpu", timeout=300)
            deadline = time.time() + 600
            while len(session.frames_done()) < frames and time.time() < deadline:
                time.sleep(0.05)
        finally:
            session.stop(grace=120)
        result = self_costs(dump, vitrine)
        shutil.rmtree(output, ignore_errors=True)
        return result

    few, many = costs(FRAMES), costs(5 * FRAMES)
    # Grown more than twofold, or by ten instructions a frame (swift_retain and the like run at
    # start-up far more than in a frame); start-up code varies a little with hashing's seed.
    names = {name for name, cost in many.items() if cost > 2 * few.get(name, 0) or cost - few.get(name, 0) >= 40 * FRAMES}
    print(f"vitrine-cpu {' '.join(app)}, steady frames: {len(names)} functions", flush=True)
    return names


def defined_more_than_once(binary):
    counts = collections.Counter()
    for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            counts[fields[2]] += 1
    return {name for name, count in counts.items() if count > 1}


SCRIPT_HEAD = """/* Written by benchmarks/startup_order.py with startup.order: the code start-up and the kiosk's
   frames run that startup.order cannot name, placed at the start of .text, just before what
   startup.order lists (docs/benchmarks.md, "Start-up and idle memory of the device build"): the
   functions the Swift compiler emits without a symbol (outlined copies and releases, object
   destructors, key path accessors), the C start files' code, and the sections of local helpers
   whose name more than one object defines (startup.order would move every copy, some inside
   libraries' whole code). The rest of .text follows, ordered by startup.order. The section stays
   .text, where valgrind, which profiles start-up for these lists, looks for function names. */
SECTIONS {
  .text : {
    *(.text..L*)
    *crt1.o(.text)
    *crtbegin*.o(.text)
"""

SCRIPT_TAIL = """  }
} INSERT BEFORE .init;
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vitrine", default=".build/release/vitrine")
    parser.add_argument("--output", default=os.path.normpath(os.path.join(bench.HERE, "..", "Sources", "vitrine", "startup.order")))
    parser.add_argument("--script", default=os.path.normpath(os.path.join(bench.HERE, "..", "Sources", "vitrine", "startup.ld")))
    arguments = parser.parse_args()
    vitrine = bench.without_debug_info(os.path.abspath(arguments.vitrine))
    client = bench.build_fullscreen_client()
    fullscreen = [client, str(bench.SMALL[0]), str(bench.SMALL[1])]
    debug = {"WAYLAND_DEBUG": "client"}
    groups = [
        steady_frame_functions(vitrine, fullscreen, debug) | steady_frame_functions(vitrine, ["weston-simple-shm"], debug),
        profile("vitrine-cpu", vitrine),
        profile("vitrine-cpu", vitrine, fullscreen, debug) | profile("vitrine-cpu", vitrine, ["weston-simple-shm"], debug),
        profile("vitrine-vulkan", vitrine) | profile("vitrine-vulkan", vitrine, fullscreen, debug),
    ]
    ambiguous = defined_more_than_once(vitrine)
    listed, lines, helpers = set(), [], []
    for group in groups:
        new = sorted(group - listed - ambiguous)
        lines += new
        helpers += sorted(name for name in group & ambiguous - set(helpers) if re.fullmatch(r"[^\s\"]+", name))
        listed |= set(new)
    with open(arguments.output, "w") as order:
        order.write("\n".join(lines) + "\n")
    with open(arguments.script, "w") as script:
        script.write(SCRIPT_HEAD + "".join(f'    *(".text.{name}")\n' for name in helpers) + SCRIPT_TAIL)
    print(f"{len(lines)} functions written to {arguments.output}, {len(helpers)} local helpers to {arguments.script}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
