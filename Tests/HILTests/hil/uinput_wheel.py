#!/usr/bin/env python3
"""A mouse with a high-resolution wheel and tilt wheel made with the kernel's uinput, for the
QEMU guest (QEMU's virtio tablet has only a vertical, whole-detent wheel). It prints the event
node it created, then reads commands from a FIFO, one per line, and exits on "quit":

    wheel V120        turns the wheel by V120 / 120 detents, up when positive
    hwheel V120       tilts it by V120 / 120 detents, right when positive

As the kernel's HID driver reports such a wheel: REL_WHEEL_HI_RES (REL_HWHEEL_HI_RES) carries
V120, and REL_WHEEL (REL_HWHEEL) the whole detents it completes; each command ends with a
SYN_REPORT.
"""

import sys

from uinput_device import EV_KEY, EV_REL, EV_SYN, SYN_REPORT, UI_SET_EVBIT, UI_SET_KEYBIT, UI_SET_RELBIT, UinputDevice, serve

BTN_LEFT, BTN_RIGHT, BTN_MIDDLE = 0x110, 0x111, 0x112
REL_X, REL_Y, REL_HWHEEL, REL_WHEEL, REL_WHEEL_HI_RES, REL_HWHEEL_HI_RES = 0x00, 0x01, 0x06, 0x08, 0x0B, 0x0C


class WheelMouse(UinputDevice):
    def __init__(self):
        super().__init__(b"Vitrine HIL wheel mouse", 0x0105, [
            (UI_SET_EVBIT, EV_KEY), *[(UI_SET_KEYBIT, button) for button in (BTN_LEFT, BTN_RIGHT, BTN_MIDDLE)],
            (UI_SET_EVBIT, EV_REL),
            *[(UI_SET_RELBIT, code) for code in (REL_X, REL_Y, REL_HWHEEL, REL_WHEEL, REL_WHEEL_HI_RES, REL_HWHEEL_HI_RES)],
        ])
        self.remainders = {REL_WHEEL: 0, REL_HWHEEL: 0}

    def turn(self, code, high_resolution_code, v120):
        self.emit(EV_REL, high_resolution_code, v120)
        total = self.remainders[code] + v120
        detents = int(total / 120)
        self.remainders[code] = total - detents * 120
        if detents:
            self.emit(EV_REL, code, detents)
        self.emit(EV_SYN, SYN_REPORT, 0)

    def wheel(self, v120):
        self.turn(REL_WHEEL, REL_WHEEL_HI_RES, int(v120))

    def hwheel(self, v120):
        self.turn(REL_HWHEEL, REL_HWHEEL_HI_RES, int(v120))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    mouse = WheelMouse()
    return serve(mouse, sys.argv[1], {"wheel": mouse.wheel, "hwheel": mouse.hwheel})


if __name__ == "__main__":
    sys.exit(main())
