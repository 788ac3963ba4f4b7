// libinput: keyboards, pointers, touchscreens, touchpads and tablets from evdev, with udev or a path list.
#include <libinput.h>
