#define WL_HIDE_DEPRECATED 1
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
