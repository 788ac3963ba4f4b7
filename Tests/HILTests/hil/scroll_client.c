/*
 * A Wayland client that reports the scroll events it receives: it binds wl_seat at version 9
 * (axis_value120 and axis_relative_direction), shows a grey window of the size it is configured
 * to, and prints one line per wl_pointer event:
 *
 *   scroll-client: shown WxH
 *   scroll-client: enter X Y
 *   scroll-client: axis_source SOURCE
 *   scroll-client: axis_value120 AXIS VALUE120
 *   scroll-client: axis_relative_direction AXIS DIRECTION
 *   scroll-client: axis AXIS VALUE        (VALUE with two decimals)
 *   scroll-client: axis_stop AXIS
 *   scroll-client: frame
 *
 * Built by HILTests on the host (the guest runs the host's userland); it runs until the
 * compositor goes. On an error it prints "scroll-client: failed: ..." and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_seat *seat;
static struct wl_pointer *pointer;
static struct wl_surface *surface;
static int configured_width, configured_height;

static void fail(const char *message) {
    printf("scroll-client: failed: %s\n", message);
    exit(1);
}

static void pointer_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s, wl_fixed_t x, wl_fixed_t y) {
    printf("scroll-client: enter %.0f %.0f\n", wl_fixed_to_double(x), wl_fixed_to_double(y));
}
static void pointer_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s) {}
static void pointer_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y) {}
static void pointer_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t button, uint32_t state) {}
static void pointer_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t value) {
    printf("scroll-client: axis %u %.2f\n", axis, wl_fixed_to_double(value));
}
static void pointer_frame(void *data, struct wl_pointer *p) {
    printf("scroll-client: frame\n");
}
static void pointer_axis_source(void *data, struct wl_pointer *p, uint32_t source) {
    printf("scroll-client: axis_source %u\n", source);
}
static void pointer_axis_stop(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis) {
    printf("scroll-client: axis_stop %u\n", axis);
}
static void pointer_axis_discrete(void *data, struct wl_pointer *p, uint32_t axis, int32_t discrete) {
    /* Not sent to version 8 and later. */
    printf("scroll-client: axis_discrete %u %d\n", axis, discrete);
}
static void pointer_axis_value120(void *data, struct wl_pointer *p, uint32_t axis, int32_t value120) {
    printf("scroll-client: axis_value120 %u %d\n", axis, value120);
}
static void pointer_axis_relative_direction(void *data, struct wl_pointer *p, uint32_t axis, uint32_t direction) {
    printf("scroll-client: axis_relative_direction %u %u\n", axis, direction);
}
static const struct wl_pointer_listener pointer_listener = {
    pointer_enter, pointer_leave, pointer_motion, pointer_button, pointer_axis, pointer_frame,
    pointer_axis_source, pointer_axis_stop, pointer_axis_discrete, pointer_axis_value120,
    pointer_axis_relative_direction,
};

static void seat_capabilities(void *data, struct wl_seat *s, uint32_t capabilities) {
    if ((capabilities & WL_SEAT_CAPABILITY_POINTER) && !pointer) {
        pointer = wl_seat_get_pointer(s);
        wl_pointer_add_listener(pointer, &pointer_listener, NULL);
    }
}
static void seat_name(void *data, struct wl_seat *s, const char *name) {}
static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial) {
    xdg_wm_base_pong(base, serial);
}
static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    if (strcmp(interface, wl_compositor_interface.name) == 0) {
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    } else if (strcmp(interface, wl_shm_interface.name) == 0) {
        shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    } else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
        xdg_wm_base_add_listener(wm_base, &wm_base_listener, NULL);
    } else if (strcmp(interface, wl_seat_interface.name) == 0) {
        if (version < 9) fail("wl_seat is older than version 9");
        seat = wl_registry_bind(registry, name, &wl_seat_interface, 9);
        wl_seat_add_listener(seat, &seat_listener, NULL);
    }
}
static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {}
static const struct wl_registry_listener registry_listener = { registry_global, registry_global_remove };

/* A grey XRGB8888 buffer of width x height in shared memory. */
static struct wl_buffer *grey_buffer(int width, int height) {
    int stride = width * 4, size = stride * height;
    int fd = memfd_create("scroll-client", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) < 0) fail("no shared memory");
    void *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) fail("mmap failed");
    memset(pixels, 0x80, size);
    munmap(pixels, size);
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_XRGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return buffer;
}

static void surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial) {
    static int shown;
    xdg_surface_ack_configure(xdg_surface, serial);
    if (shown) return;
    int width = configured_width > 0 ? configured_width : 256, height = configured_height > 0 ? configured_height : 256;
    wl_surface_attach(surface, grey_buffer(width, height), 0, 0);
    wl_surface_damage(surface, 0, 0, width, height);
    wl_surface_commit(surface);
    shown = 1;
    printf("scroll-client: shown %dx%d\n", width, height);
}
static const struct xdg_surface_listener surface_listener = { surface_configure };

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height, struct wl_array *states) {
    configured_width = width;
    configured_height = height;
}
static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {}
static const struct xdg_toplevel_listener toplevel_listener = { toplevel_configure, toplevel_close };

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) fail("no Wayland display");
    wl_registry_add_listener(wl_display_get_registry(display), &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !wm_base || !seat) fail("a global is missing");
    surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xdg_surface, &surface_listener, NULL);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
    xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
    xdg_toplevel_set_title(toplevel, "scroll-client");
    wl_surface_commit(surface);
    while (wl_display_dispatch(display) != -1) {}
    return 0;
}
