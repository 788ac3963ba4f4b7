// libudev: the device database libinput's seat mode enumerates and watches for hotplug.
#include <libudev.h>
