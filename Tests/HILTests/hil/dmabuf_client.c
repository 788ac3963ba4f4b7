/*
 * A Wayland client whose window is a real dma-buf: a dumb buffer of the guest's DRM device,
 * exported with PRIME, written through the dma-buf's own mapping and shared through
 * zwp_linux_dmabuf_v1 (version 3). The left half is orange, the right half teal.
 *
 * Built by HILTests on the host (the guest runs the host's userland):
 *   dmabuf_client             a 256x256 ARGB8888 window
 *   dmabuf_client fullscreen  an XRGB8888 buffer of the configured size; on SIGUSR1 it attaches
 *                             a 256x256 one instead, and says when the first is released
 *   dmabuf_client fenced      the 256x256 window in a buffer of vgem, committed with a write fence
 *                             still pending (as a GPU client commits before its rendering is
 *                             done); on SIGUSR1 it signals the fence. vgem signals a fence itself
 *                             10 s after it was attached.
 * It prints "dmabuf-client: shown NAME" once the buffer is attached and committed ("committed
 * fenced" once the compositor has read that commit, and "fenced frame done N ms after the fence was
 * attached" when its frame callback comes), and runs until the compositor goes; on an
 * error it prints "dmabuf-client: failed: ..." and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include <xf86drm.h>
#include <drm.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

enum { SMALL = 256 };
#define ARGB8888 0x34325241u
#define XRGB8888 0x34325258u

/* vgem's fence ioctls (the kernel's uapi drm/vgem_drm.h, which Debian ships in no package). */
struct vgem_fence_attach {
    uint32_t handle;
    uint32_t flags;
    uint32_t out_fence;
    uint32_t pad;
};
struct vgem_fence_signal {
    uint32_t fence;
    uint32_t flags;
};
#define VGEM_FENCE_WRITE 0x1u
#define VGEM_IOCTL_FENCE_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct vgem_fence_attach)
#define VGEM_IOCTL_FENCE_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 0x2, struct vgem_fence_signal)

static struct wl_compositor *compositor;
static struct xdg_wm_base *wm_base;
static struct zwp_linux_dmabuf_v1 *dmabuf;
static int configured;
static int32_t configured_width, configured_height;

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

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height, struct wl_array *states) {
    configured_width = width;
    configured_height = height;
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel) {}

static const struct xdg_toplevel_listener toplevel_listener = {.configure = toplevel_configure, .close = toplevel_close};

static void buffer_release(void *data, struct wl_buffer *buffer) {
    printf("dmabuf-client: %s buffer released\n", (const char *)data);
}

static const struct wl_buffer_listener buffer_listener = {buffer_release};

/* A width x height dumb buffer exported as a dma-buf, filled through the dma-buf's mapping. */
static int make_dmabuf(int drm, uint32_t width, uint32_t height, uint32_t *pitch, uint32_t *handle) {
    struct drm_mode_create_dumb create = {.width = width, .height = height, .bpp = 32};
    if (drmIoctl(drm, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0) fail("DRM_IOCTL_MODE_CREATE_DUMB");
    int fd;
    if (drmPrimeHandleToFD(drm, create.handle, DRM_CLOEXEC | DRM_RDWR, &fd) != 0) fail("drmPrimeHandleToFD");
    uint32_t *pixels = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) fail("mmap the dma-buf");
    struct dma_buf_sync sync = {.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE};
    if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0) fail("DMA_BUF_IOCTL_SYNC start");
    for (uint32_t y = 0; y < height; y++) {
        for (uint32_t x = 0; x < width; x++) {
            pixels[y * (create.pitch / 4) + x] = x < width / 2 ? 0xFFFF8010u : 0xFF10A0A0u;
        }
    }
    sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
    if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0) fail("DMA_BUF_IOCTL_SYNC end");
    munmap(pixels, create.size);
    *pitch = create.pitch;
    *handle = create.handle;
    return fd;
}

/* A wl_buffer of a new width x height dma-buf in format; its GEM handle in handle. */
static struct wl_buffer *make_buffer(int drm, uint32_t width, uint32_t height, uint32_t format, const char *name,
                                     uint32_t *handle) {
    uint32_t pitch;
    int fd = make_dmabuf(drm, width, height, &pitch, handle);
    struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(dmabuf);
    zwp_linux_buffer_params_v1_add(params, fd, 0, 0, pitch, 0, 0);
    struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(params, width, height, format, 0);
    zwp_linux_buffer_params_v1_destroy(params);
    close(fd);
    wl_buffer_add_listener(buffer, &buffer_listener, (void *)name);
    printf("dmabuf-client: made %ux%u pitch %u\n", width, height, pitch);
    return buffer;
}

static struct timespec fence_attached;

/* The compositor presented the fenced commit: how long after the fence was attached (vgem's own
 * timeout would signal it after 10000 ms). */
static void fenced_frame_done(void *data, struct wl_callback *callback, uint32_t time) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long elapsed = (now.tv_sec - fence_attached.tv_sec) * 1000 + (now.tv_nsec - fence_attached.tv_nsec) / 1000000;
    printf("dmabuf-client: fenced frame done %ld ms after the fence was attached\n", elapsed);
    wl_callback_destroy(callback);
}

static const struct wl_callback_listener fenced_frame_listener = {fenced_frame_done};

static void show(struct wl_surface *surface, struct wl_buffer *buffer, const char *name) {
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, INT32_MAX, INT32_MAX);
    wl_surface_commit(surface);
    printf("dmabuf-client: shown %s\n", name);
}

/* The card of the DRM driver named name, or -1. */
static int open_driver(const char *name) {
    for (int index = 0; index < 16; index++) {
        char path[32];
        snprintf(path, sizeof path, "/dev/dri/card%d", index);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) continue;
        drmVersionPtr version = drmGetVersion(fd);
        int found = version && strcmp(version->name, name) == 0;
        drmFreeVersion(version);
        if (found) return fd;
        close(fd);
    }
    return -1;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int fullscreen = argc > 1 && strcmp(argv[1], "fullscreen") == 0;
    int fenced = argc > 1 && strcmp(argv[1], "fenced") == 0;
    int drm = fenced ? open_driver("vgem") : open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
    if (drm < 0) fail(fenced ? "no vgem card in /dev/dri" : "open /dev/dri/card0");
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGUSR1);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int shrink = signalfd(-1, &signals, SFD_CLOEXEC);
    if (shrink < 0) fail("signalfd");

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

    struct wl_surface *surface = wl_compositor_create_surface(compositor);
    struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(wm_base, surface);
    xdg_surface_add_listener(xdg_surface, &xdg_surface_listener, NULL);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
    xdg_toplevel_add_listener(toplevel, &toplevel_listener, NULL);
    xdg_toplevel_set_title(toplevel, "dmabuf-client");
    wl_surface_commit(surface);
    while (!configured) {
        if (wl_display_dispatch(display) < 0) fail("waiting for the first configure");
    }
    if (fullscreen && (configured_width <= 0 || configured_height <= 0)) {
        errno = 0;
        fail("the configure has no size");
    }
    uint32_t handle;
    struct wl_buffer *first = fullscreen
        ? make_buffer(drm, configured_width, configured_height, XRGB8888, "fullscreen", &handle)
        : make_buffer(drm, SMALL, SMALL, ARGB8888, fenced ? "fenced" : "small", &handle);
    struct vgem_fence_attach fence = {.handle = handle, .flags = VGEM_FENCE_WRITE};
    if (fenced) {
        if (drmIoctl(drm, VGEM_IOCTL_FENCE_ATTACH, &fence) != 0) fail("VGEM_IOCTL_FENCE_ATTACH");
        clock_gettime(CLOCK_MONOTONIC, &fence_attached);
        wl_callback_add_listener(wl_surface_frame(surface), &fenced_frame_listener, NULL);
    }
    show(surface, first, fullscreen ? "fullscreen" : fenced ? "fenced" : "small");
    if (wl_display_roundtrip(display) < 0) fail("the commit of the dma-buf");
    if (fenced) printf("dmabuf-client: committed fenced\n");

    struct pollfd fds[2] = {{wl_display_get_fd(display), POLLIN, 0}, {shrink, POLLIN, 0}};
    for (;;) {
        if (wl_display_flush(display) < 0 && errno != EAGAIN) break;
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            fail("poll");
        }
        if (fds[1].revents & POLLIN) {
            struct signalfd_siginfo info;
            if (read(shrink, &info, sizeof info) != sizeof info) fail("reading the signal");
            if (fenced) {
                struct vgem_fence_signal signal = {.fence = fence.out_fence};
                if (drmIoctl(drm, VGEM_IOCTL_FENCE_SIGNAL, &signal) != 0) fail("VGEM_IOCTL_FENCE_SIGNAL");
                printf("dmabuf-client: fence signalled\n");
            } else {
                show(surface, make_buffer(drm, SMALL, SMALL, ARGB8888, "small", &handle), "small");
            }
        }
        if ((fds[0].revents & POLLIN) && wl_display_dispatch(display) < 0) break;
        if (fds[0].revents & (POLLHUP | POLLERR)) break;
    }
    printf("dmabuf-client: the compositor closed the connection\n");
    return 0;
}
