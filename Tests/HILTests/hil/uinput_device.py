#!/usr/bin/env python3
"""A device made with the kernel's uinput, for the QEMU guest: what hil/uinput_touch.py and
hil/uinput_wheel.py share. The device is made with the setup ioctls it is given (event bits, axes),
and `node` names its /dev/input/event* node.
"""

import fcntl
import os
import struct
import sys
import time

# linux/uinput.h and linux/input-event-codes.h
UI_SET_EVBIT = 0x40045564
UI_SET_KEYBIT = 0x40045565
UI_SET_RELBIT = 0x40045566
UI_SET_ABSBIT = 0x40045567
UI_SET_PROPBIT = 0x4004556E
UI_DEV_SETUP = 0x405C5503
UI_ABS_SETUP = 0x401C5504
UI_DEV_CREATE = 0x5501
UI_DEV_DESTROY = 0x5502
UI_GET_SYSNAME_64 = 0x8040552C
EV_SYN, EV_KEY, EV_REL, EV_ABS = 0, 1, 2, 3
SYN_REPORT = 0
BUS_VIRTUAL = 0x06


class UinputDevice:
    def __init__(self, name, product, setup):
        """`setup`: (request, argument) pairs for ioctl, e.g. (UI_SET_EVBIT, EV_KEY)."""
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        for request, argument in setup:
            fcntl.ioctl(self.fd, request, argument)
        # struct uinput_setup: struct input_id {bustype, vendor, product, version}; char name[80]; __u32 ff_effects_max
        fcntl.ioctl(self.fd, UI_DEV_SETUP, struct.pack("=4H80sI", BUS_VIRTUAL, 0x1D6B, product, 1, name, 0))
        fcntl.ioctl(self.fd, UI_DEV_CREATE)
        sysname = bytearray(64)
        fcntl.ioctl(self.fd, UI_GET_SYSNAME_64, sysname)
        folder = "/sys/devices/virtual/input/" + sysname.split(b"\0")[0].decode()
        deadline = time.monotonic() + 10
        self.node = None
        while self.node is None and time.monotonic() < deadline:
            events = [name for name in os.listdir(folder) if name.startswith("event")] if os.path.isdir(folder) else []
            if events:
                self.node = "/dev/input/" + events[0]
            else:
                time.sleep(0.05)
        if self.node is None:
            raise RuntimeError(f"uinput made {folder} but no event node appeared")

    def emit(self, kind, code, value):
        now = time.time()
        os.write(self.fd, struct.pack("=qqHHi", int(now), int((now % 1) * 1e6), kind, code, value))

    def close(self):
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


def serve(device, fifo, commands):
    """Prints the device's node, then runs each line of FIFO (reopened when a writer closes it)
    as `commands[verb](*words)` until "quit"."""
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    print(device.node, flush=True)
    try:
        while True:
            with open(fifo) as lines:
                for line in lines:
                    words = line.split()
                    if not words:
                        continue
                    if words[0] == "quit":
                        return 0
                    if words[0] in commands:
                        commands[words[0]](*words[1:])
                    else:
                        print(f"unknown command: {line.strip()}", file=sys.stderr, flush=True)
    finally:
        device.close()
