#!/usr/bin/env python3
"""A multi-touch touchscreen made with the kernel's uinput, for the QEMU guest (QEMU has no
touchscreen device of its own). It prints the event node it created, then reads commands from
a FIFO, one per line, and exits on "quit":

    down SLOT X Y     a finger touches at X, Y (fractions of the panel, 0..1)
    move SLOT X Y
    up SLOT

Each command ends with a SYN_REPORT, like a real controller's frame.
"""

import fcntl
import os
import struct
import sys
import time

# linux/uinput.h and linux/input-event-codes.h
UI_SET_EVBIT = 0x40045564
UI_SET_KEYBIT = 0x40045565
UI_SET_ABSBIT = 0x40045567
UI_SET_PROPBIT = 0x4004556E
UI_DEV_SETUP = 0x405C5503
UI_ABS_SETUP = 0x401C5504
UI_DEV_CREATE = 0x5501
UI_DEV_DESTROY = 0x5502
UI_GET_SYSNAME_64 = 0x8040552C
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT = 0
BTN_TOUCH = 0x14A
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
INPUT_PROP_DIRECT = 0x01
BUS_VIRTUAL = 0x06
# A 4096-step panel, 16 units per millimetre (a 256 × 256 mm screen), ten fingers.
MAXIMUM = 4095
RESOLUTION = 16
SLOTS = 10


def absinfo(code, maximum, resolution=RESOLUTION):
    # struct uinput_abs_setup: __u16 code; struct input_absinfo {value, minimum, maximum, fuzz, flat, resolution}
    return struct.pack("=H2x6i", code, 0, 0, maximum, 0, 0, resolution)


class Touchscreen:
    def __init__(self):
        self.fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
        fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_KEY)
        fcntl.ioctl(self.fd, UI_SET_KEYBIT, BTN_TOUCH)
        fcntl.ioctl(self.fd, UI_SET_EVBIT, EV_ABS)
        for code in (ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID):
            fcntl.ioctl(self.fd, UI_SET_ABSBIT, code)
        fcntl.ioctl(self.fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT)
        for code in (ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y):
            fcntl.ioctl(self.fd, UI_ABS_SETUP, absinfo(code, MAXIMUM))
        fcntl.ioctl(self.fd, UI_ABS_SETUP, absinfo(ABS_MT_SLOT, SLOTS - 1, 0))
        fcntl.ioctl(self.fd, UI_ABS_SETUP, absinfo(ABS_MT_TRACKING_ID, 65535, 0))
        # struct uinput_setup: struct input_id {bustype, vendor, product, version}; char name[80]; __u32 ff_effects_max
        name = b"Vitrine HIL touchscreen"
        fcntl.ioctl(self.fd, UI_DEV_SETUP, struct.pack("=4H80sI", BUS_VIRTUAL, 0x1D6B, 0x0104, 1, name, 0))
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
        self.tracking_id = 0

    def emit(self, kind, code, value):
        now = time.time()
        os.write(self.fd, struct.pack("=qqHHi", int(now), int((now % 1) * 1e6), kind, code, value))

    def position(self, x, y):
        self.emit(EV_ABS, ABS_MT_POSITION_X, round(x * MAXIMUM))
        self.emit(EV_ABS, ABS_MT_POSITION_Y, round(y * MAXIMUM))
        self.emit(EV_ABS, ABS_X, round(x * MAXIMUM))
        self.emit(EV_ABS, ABS_Y, round(y * MAXIMUM))

    def down(self, slot, x, y):
        self.emit(EV_ABS, ABS_MT_SLOT, slot)
        self.tracking_id += 1
        self.emit(EV_ABS, ABS_MT_TRACKING_ID, self.tracking_id)
        self.position(x, y)
        self.emit(EV_KEY, BTN_TOUCH, 1)
        self.emit(EV_SYN, SYN_REPORT, 0)

    def move(self, slot, x, y):
        self.emit(EV_ABS, ABS_MT_SLOT, slot)
        self.position(x, y)
        self.emit(EV_SYN, SYN_REPORT, 0)

    def up(self, slot):
        self.emit(EV_ABS, ABS_MT_SLOT, slot)
        self.emit(EV_ABS, ABS_MT_TRACKING_ID, -1)
        self.emit(EV_KEY, BTN_TOUCH, 0)
        self.emit(EV_SYN, SYN_REPORT, 0)

    def close(self):
        fcntl.ioctl(self.fd, UI_DEV_DESTROY)
        os.close(self.fd)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    fifo = sys.argv[1]
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    screen = Touchscreen()
    print(screen.node, flush=True)
    try:
        while True:
            with open(fifo) as commands:
                for line in commands:
                    words = line.split()
                    if not words:
                        continue
                    if words[0] == "quit":
                        return 0
                    if words[0] == "down":
                        screen.down(int(words[1]), float(words[2]), float(words[3]))
                    elif words[0] == "move":
                        screen.move(int(words[1]), float(words[2]), float(words[3]))
                    elif words[0] == "up":
                        screen.up(int(words[1]))
                    else:
                        print(f"unknown command: {line.strip()}", file=sys.stderr, flush=True)
    finally:
        screen.close()


if __name__ == "__main__":
    sys.exit(main())
