/*
 * A Wayland client whose window is a real dma-buf: a dumb buffer of the guest's DRM device,
 * exported with PRIME, written through the dma-buf's own mapping and shared through
 * zwp_linux_dmabuf_v1 (version 3). The left half is orange, the right half teal (ARGB8888).
 *
 * Built by HILTests on the host (the guest runs the host's userland):
 *   dmabuf_client [DRM node]    (default /dev/dri/card0)
 * It prints "dmabuf-client: shown WxH pitch P" once the buffer is attached and committed, and
 * runs until the compositor goes; on an error it prints "dmabuf-client: failed: ..." and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

enum { WIDTH = 256, HEIGHT = 256 };
#define ARGB8888 0x34325241u

static struct wl_compositor *compositor;
static struct xdg_wm_base *wm_base;
static struct zwp_linux_dmabuf_v1 *dmabuf;
static int configured;

static void fail(const char *what) {
    printf("dmabuf-client: failed: %s (%s)\n", what, strerror(errno));
    exit(1);
}

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    if (strcmp(interface, wl_compositor_interface.name) == 0) {
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    } else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
    } else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3) {
        dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
    }
}

static void global_remove(void *data, struct wl_registry *registry, uint32_t name) {}

static const struct wl_registry_listener registry_listener = {global, global_remove};

static void ping(void *data, struct xdg_wm_base *base, uint32_t serial) {
    xdg_wm_base_pong(base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {ping};

static void surface_configure(void *data, struct xdg_surface *surface, uint32_t serial) {
    xdg_surface_ack_configure(surface, serial);
    configured = 1;
}

static const struct xdg_surface_listener xdg_surface_listener = {surface_configure};

/* A dumb buffer exported as a dma-buf, filled through the dma-buf's mapping. */
static int make_dmabuf(const char *node, uint32_t *pitch) {
    int drm = open(node, O_RDWR | O_CLOEXEC);
    if (drm < 0) fail("open the DRM node");
    struct drm_mode_create_dumb create = {.width = WIDTH, .height = HEIGHT, .bpp = 32};
    if (drmIoctl(drm, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0) fail("DRM_IOCTL_MODE_CREATE_DUMB");
    int fd;
    if (drmPrimeHandleToFD(drm, create.handle, DRM_CLOEXEC | DRM_RDWR, &fd) != 0) fail("drmPrimeHandleToFD");
    uint32_t *pixels = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) fail("mmap the dma-buf");
    struct dma_buf_sync sync = {.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE};
    if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0) fail("DMA_BUF_IOCTL_SYNC start");
    for (uint32_t y = 0; y < HEIGHT; y++) {
        for (uint32_t x = 0; x < WIDTH; x++) {
            pixels[y * (create.pitch / 4) + x] = x < WIDTH / 2 ? 0xFFFF8010u : 0xFF10A0A0u;
        }
    }
    sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
    if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0) fail("DMA_BUF_IOCTL_SYNC end");
    munmap(pixels, create.size);
    *pitch = create.pitch;
    return fd;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint32_t pitch;
    int fd = make_dmabuf(argc > 1 ? argv[1] : "/dev/dri/card0", &pitch);

    struct wl_display *display = wl_display_connect(NULL);
    if (!display) fail("wl_display_connect");
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !wm_base) fail("wl_compositor or xdg_wm_base missing");
    if (!dmabuf) {
        errno = 0;
        fail("zwp_linux_dmabuf_v1 (version 3 or later) is not advertised");
    }
    xdg_wm_base_add_listener(wm_base, &wm_base_listener, NULL);

    struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(dmabuf);
    zwp_linux_buffer_params_v1_add(params, fd, 0, 0, pitch, 0, 0);
    struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(params, WIDTH, HEIGHT, ARGB8888, 0);
    zwp_linux_buffer_params_v1_destroy(params);

    struct wl_surface *surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xdg_surface, &xdg_surface_listener, NULL);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
    xdg_toplevel_set_title(toplevel, "dmabuf-client");
    wl_surface_commit(surface);
    while (!configured) {
        if (wl_display_dispatch(display) < 0) fail("waiting for the first configure");
    }
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, WIDTH, HEIGHT);
    wl_surface_commit(surface);
    if (wl_display_roundtrip(display) < 0) fail("the commit of the dma-buf");
    printf("dmabuf-client: shown %dx%d pitch %u\n", WIDTH, HEIGHT, pitch);
    while (wl_display_dispatch(display) >= 0) {
    }
    printf("dmabuf-client: the compositor closed the connection\n");
    return 0;
}
