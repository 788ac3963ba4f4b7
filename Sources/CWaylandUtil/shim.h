// The structures libwayland's server and client share (wl_interface, wl_message, wl_argument,
// wl_array, wl_fixed_t); header-only, so there is no library to link.
#include <wayland-util.h>
