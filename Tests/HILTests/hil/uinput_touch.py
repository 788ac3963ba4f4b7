#!/usr/bin/env python3
"""A multi-touch touchscreen made with the kernel's uinput, for the QEMU guest (QEMU has no
touchscreen device of its own). It prints the event node it created, then reads commands from
a FIFO, one per line, and exits on "quit":

    down SLOT X Y     a finger touches at X, Y (fractions of the panel, 0..1)
    move SLOT X Y
    up SLOT

Each command ends with a SYN_REPORT, like a real controller's frame.
"""

import struct
import sys

from uinput_device import EV_ABS, EV_KEY, EV_SYN, SYN_REPORT, UI_ABS_SETUP, UI_SET_ABSBIT, UI_SET_EVBIT, UI_SET_KEYBIT, \
    UI_SET_PROPBIT, UinputDevice, serve

BTN_TOUCH = 0x14A
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
INPUT_PROP_DIRECT = 0x01
# A 4096-step panel, 16 units per millimetre (a 256 × 256 mm screen), ten fingers.
MAXIMUM = 4095
RESOLUTION = 16
SLOTS = 10


def absinfo(code, maximum, resolution=RESOLUTION):
    # struct uinput_abs_setup: __u16 code; struct input_absinfo {value, minimum, maximum, fuzz, flat, resolution}
    return struct.pack("=H2x6i", code, 0, 0, maximum, 0, 0, resolution)


class Touchscreen(UinputDevice):
    def __init__(self):
        axes = (ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID)
        super().__init__(b"Vitrine HIL touchscreen", 0x0104, [
            (UI_SET_EVBIT, EV_KEY), (UI_SET_KEYBIT, BTN_TOUCH), (UI_SET_EVBIT, EV_ABS),
            *[(UI_SET_ABSBIT, code) for code in axes],
            (UI_SET_PROPBIT, INPUT_PROP_DIRECT),
            *[(UI_ABS_SETUP, absinfo(code, MAXIMUM)) for code in (ABS_X, ABS_Y, ABS_MT_POSITION_X, ABS_MT_POSITION_Y)],
            (UI_ABS_SETUP, absinfo(ABS_MT_SLOT, SLOTS - 1, 0)),
            (UI_ABS_SETUP, absinfo(ABS_MT_TRACKING_ID, 65535, 0)),
        ])
        self.tracking_id = 0

    def position(self, x, y):
        self.emit(EV_ABS, ABS_MT_POSITION_X, round(x * MAXIMUM))
        self.emit(EV_ABS, ABS_MT_POSITION_Y, round(y * MAXIMUM))
        self.emit(EV_ABS, ABS_X, round(x * MAXIMUM))
        self.emit(EV_ABS, ABS_Y, round(y * MAXIMUM))

    def down(self, slot, x, y):
        self.emit(EV_ABS, ABS_MT_SLOT, int(slot))
        self.tracking_id += 1
        self.emit(EV_ABS, ABS_MT_TRACKING_ID, self.tracking_id)
        self.position(float(x), float(y))
        self.emit(EV_KEY, BTN_TOUCH, 1)
        self.emit(EV_SYN, SYN_REPORT, 0)

    def move(self, slot, x, y):
        self.emit(EV_ABS, ABS_MT_SLOT, int(slot))
        self.position(float(x), float(y))
        self.emit(EV_SYN, SYN_REPORT, 0)

    def up(self, slot):
        self.emit(EV_ABS, ABS_MT_SLOT, int(slot))
        self.emit(EV_ABS, ABS_MT_TRACKING_ID, -1)
        self.emit(EV_KEY, BTN_TOUCH, 0)
        self.emit(EV_SYN, SYN_REPORT, 0)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    screen = Touchscreen()
    return serve(screen, sys.argv[1], {"down": screen.down, "move": screen.move, "up": screen.up})


if __name__ == "__main__":
    sys.exit(main())
