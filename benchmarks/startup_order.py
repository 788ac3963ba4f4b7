#!/usr/bin/env python3
"""Writes Sources/vitrine/startup.order: the functions of the vitrine binary that start-up and the
kiosk's frames run, which the release link places together at the start of `.text`.

The kernel maps a binary's code around each page that runs (fault-around, 64 KiB), so code that
runs once at start-up, scattered over the 19 MiB of `.text`, keeps most of it mapped: the idle
compositor's resident memory. Laid out together, the same code fills a few megabytes.

It runs a release build of vitrine under valgrind's callgrind (headless, as
benchmarks/compare_compositors.py runs it) and lists the functions executed in the binary:
  1. `--renderer cpu` from start to idle, without a client;
  2. `--renderer cpu` with fullscreen_shm (the kiosk's common frame) and with weston-simple-shm;
  3. `--renderer vulkan` from start to idle, and with fullscreen_shm.
In that order, each group's new names sorted (so that a new run changes few lines). A name defined
more than once in the binary (local helpers such as `objectdestroyTm`) names every copy for the
linker: it is listed when all its copies lie in Vitrine's own Swift objects, where each function has
a section of its own (a few bytes moved per copy), and left out when a copy lies in a library built
without function sections (the standard library, Foundation, the packages), whose whole code the
linker would move.
Run it after large changes; names that no longer exist are ignored by the link, and code not
listed stays where the linker puts it, so a stale list costs memory, never correctness.
Usage: python3 benchmarks/startup_order.py [--vitrine .build/release/vitrine] [--output PATH]
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


def function_counts(*paths):
    """How many times each function name is defined in `paths` (a binary, or object files)."""
    counts = collections.Counter()
    for line in subprocess.run(["nm", "--defined-only", *paths], capture_output=True, text=True, check=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTwW":
            counts[fields[2]] += 1
    return counts


def own_swift_objects(build_directory):
    """The object files of Vitrine's own Swift targets (Sources/*), which Package.swift compiles
    with a section per function in release builds."""
    sources = os.path.normpath(os.path.join(bench.HERE, "..", "Sources"))
    return [os.path.join(build_directory, f"{target}.build", name)
            for target in sorted(os.listdir(sources)) if os.path.isdir(os.path.join(build_directory, f"{target}.build"))
            for name in sorted(os.listdir(os.path.join(build_directory, f"{target}.build"))) if name.endswith(".swift.o")]


def moved_with_other_code(binary, build_directory):
    """Names defined more than once in `binary` with a copy outside Vitrine's own Swift objects:
    listing one would move a library's whole code."""
    in_binary = function_counts(binary)
    in_own_objects = function_counts(*own_swift_objects(build_directory))
    return {name for name, count in in_binary.items() if count > 1 and in_own_objects[name] < count}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vitrine", default=".build/release/vitrine")
    parser.add_argument("--output", default=os.path.normpath(os.path.join(bench.HERE, "..", "Sources", "vitrine", "startup.order")))
    arguments = parser.parse_args()
    build_directory = os.path.dirname(os.path.realpath(arguments.vitrine))
    vitrine = bench.without_debug_info(os.path.abspath(arguments.vitrine))
    client = bench.build_fullscreen_client()
    fullscreen = [client, str(bench.SMALL[0]), str(bench.SMALL[1])]
    debug = {"WAYLAND_DEBUG": "client"}
    groups = [
        profile("vitrine-cpu", vitrine),
        profile("vitrine-cpu", vitrine, fullscreen, debug) | profile("vitrine-cpu", vitrine, ["weston-simple-shm"], debug),
        profile("vitrine-vulkan", vitrine) | profile("vitrine-vulkan", vitrine, fullscreen, debug),
    ]
    ambiguous = moved_with_other_code(vitrine, build_directory)
    listed, lines = set(), []
    for group in groups:
        new = sorted(group - listed - ambiguous)
        lines += new
        listed |= set(new)
    with open(arguments.output, "w") as order:
        order.write("\n".join(lines) + "\n")
    print(f"{len(lines)} functions written to {arguments.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
