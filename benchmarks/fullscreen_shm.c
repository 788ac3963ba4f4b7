/* A fullscreen wl_shm client that redraws its whole buffer every frame: the kiosk's most common
 * frame (an animated web page, a video). compare_compositors.py builds it with wayland-scanner and
 * cc. Usage: fullscreen_shm WIDTH HEIGHT
 *
 * It asks for fullscreen, then draws WIDTH×HEIGHT XRGB8888 frames (opaque, every pixel changes
 * from one frame to the next), damages the whole buffer and commits the next one as soon as the
 * frame callback of the last arrives. Three buffers, so a compositor that holds one while it
 * reads never makes the client wait. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"

enum { BUFFER_COUNT = 3 };

struct frame_buffer {
    struct wl_buffer *buffer;
    uint32_t *pixels;
    int busy;
};

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct xdg_wm_base *wm_base;
static struct wl_surface *surface;
static struct frame_buffer buffers[BUFFER_COUNT];
static int width, height, configured, running = 1;
static uint32_t frame_number;

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                            uint32_t version) {
    (void)data;
    (void)version;
    if (strcmp(interface, wl_compositor_interface.name) == 0)
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (strcmp(interface, wl_shm_interface.name) == 0)
        shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data;
    (void)registry;
    (void)name;
}

static const struct wl_registry_listener registry_listener = {registry_global, registry_global_remove};

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial) {
    (void)data;
    xdg_wm_base_pong(base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {wm_base_ping};

static void buffer_release(void *data, struct wl_buffer *buffer) {
    (void)buffer;
    ((struct frame_buffer *)data)->busy = 0;
}

static const struct wl_buffer_listener buffer_listener = {buffer_release};

static void xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial) {
    (void)data;
    xdg_surface_ack_configure(xdg_surface, serial);
    configured = 1;
}

static const struct xdg_surface_listener xdg_surface_listener = {xdg_surface_configure};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t w, int32_t h,
                               struct wl_array *states) {
    (void)data;
    (void)toplevel;
    (void)w;
    (void)h;
    (void)states;
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {
    (void)data;
    (void)toplevel;
    running = 0;
}

static const struct xdg_toplevel_listener toplevel_listener = {
    .configure = toplevel_configure, .close = toplevel_close};

static void draw(void);

static void frame_done(void *data, struct wl_callback *callback, uint32_t time) {
    (void)data;
    (void)time;
    wl_callback_destroy(callback);
    draw();
}

static const struct wl_callback_listener frame_listener = {frame_done};

static void draw(void) {
    struct frame_buffer *target = NULL;
    for (int i = 0; i < BUFFER_COUNT && !target; i++)
        if (!buffers[i].busy)
            target = &buffers[i];
    if (!target) {
        fprintf(stderr, "fullscreen_shm: all buffers held by the compositor\n");
        exit(1);
    }
    /* Every pixel changes every frame: a gradient that moves by one step a frame. */
    uint32_t step = frame_number++;
    for (int y = 0; y < height; y++) {
        uint32_t *row = target->pixels + (size_t)y * width;
        uint32_t base = (uint32_t)(y + step) & 0xff;
        for (int x = 0; x < width; x++)
            row[x] = 0xff000000u | base << 16 | ((uint32_t)(x + step) & 0xff) << 8 | (step & 0xff);
    }
    wl_surface_attach(surface, target->buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, width, height);
    wl_callback_add_listener(wl_surface_frame(surface), &frame_listener, NULL);
    wl_surface_commit(surface);
    target->busy = 1;
}

int main(int argc, char **argv) {
    if (argc != 3 || (width = atoi(argv[1])) <= 0 || (height = atoi(argv[2])) <= 0) {
        fprintf(stderr, "usage: fullscreen_shm WIDTH HEIGHT\n");
        return 2;
    }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) {
        fprintf(stderr, "fullscreen_shm: no Wayland display\n");
        return 1;
    }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !wm_base) {
        fprintf(stderr, "fullscreen_shm: wl_compositor, wl_shm or xdg_wm_base missing\n");
        return 1;
    }
    xdg_wm_base_add_listener(wm_base, &wm_base_listener, NULL);

    size_t stride = (size_t)width * 4, size = stride * height;
    int fd = memfd_create("fullscreen_shm", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)(size * BUFFER_COUNT)) < 0) {
        perror("fullscreen_shm: memfd");
        return 1;
    }
    uint8_t *memory = mmap(NULL, size * BUFFER_COUNT, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
        perror("fullscreen_shm: mmap");
        return 1;
    }
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)(size * BUFFER_COUNT));
    for (int i = 0; i < BUFFER_COUNT; i++) {
        buffers[i].pixels = (uint32_t *)(memory + size * i);
        buffers[i].buffer = wl_shm_pool_create_buffer(pool, (int32_t)(size * i), width, height, (int32_t)stride,
                                                      WL_SHM_FORMAT_XRGB8888);
        wl_buffer_add_listener(buffers[i].buffer, &buffer_listener, &buffers[i]);
    }
    wl_shm_pool_destroy(pool);
    close(fd);

    surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xdg_surface, &xdg_surface_listener, NULL);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
    xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
    xdg_toplevel_set_title(toplevel, "fullscreen_shm");
    xdg_toplevel_set_fullscreen(toplevel, NULL);
    wl_surface_commit(surface);
    while (!configured && wl_display_dispatch(display) != -1) {
    }
    draw();
    while (running && wl_display_dispatch(display) != -1) {
    }
    return 0;
}
