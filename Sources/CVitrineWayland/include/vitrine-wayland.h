// Helpers for what Swift cannot express against libwayland-server: variadic error posting,
// wl_listener's container_of, and the va_list log handler. The protocols' interface tables are
// WaylandProtocols', built from the XML at build time.
#ifndef VITRINE_WAYLAND_H
#define VITRINE_WAYLAND_H

#ifndef WL_HIDE_DEPRECATED
#define WL_HIDE_DEPRECATED 1
#endif

#include <wayland-server-core.h>
#include <wayland-server-protocol.h>

/// A wl_listener that calls back with a context pointer instead of relying on container_of.
struct vitrine_listener;

typedef void (*vitrine_listener_callback)(void *context, void *data);

struct vitrine_listener *vitrine_listener_create(void *context, vitrine_listener_callback callback);
/// Removes the listener from its signal (if added) and frees it.
void vitrine_listener_destroy(struct vitrine_listener *listener);
void vitrine_client_add_destroy_listener(struct wl_client *client, struct vitrine_listener *listener);
void vitrine_display_add_client_created_listener(struct wl_display *display,
                                                 struct vitrine_listener *listener);

void vitrine_resource_add_destroy_listener(struct wl_resource *resource, struct vitrine_listener *listener);

/// Disconnects `client` with wl_display.error no_memory once it holds more than `limit` objects
/// (its live resources are counted every 1024 creations, so the cost per creation stays constant).
/// Freed with the client.
int vitrine_client_limit_objects(struct wl_client *client, uint32_t limit);

/// The implementation pointer of every resource Vitrine dispatches itself, so that a resource
/// handed in by a client can be told apart from libwayland's own (wl_shm's pools and buffers).
const void *vitrine_implementation_tag(void);
/// Whether `resource` is dispatched by Vitrine (created with `vitrine_implementation_tag`).
int vitrine_resource_is_own(struct wl_resource *resource);

void vitrine_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message);
void vitrine_client_post_implementation_error(struct wl_client *client, const char *message);

/// Bytes per pixel of a wl_shm format (a DRM fourcc, or wl_shm's 0 and 1); 0 for one not served.
typedef int (*vitrine_shm_bytes_per_pixel)(void *context, uint32_t format);
struct vitrine_shm_stride_check;
/// Makes wl_shm_pool.create_buffer post wl_shm.error.invalid_stride when a row of `width` pixels
/// does not fit in `stride` bytes (libwayland's wl_shm only checks stride >= width).
struct vitrine_shm_stride_check *vitrine_display_add_shm_stride_check(
    struct wl_display *display, void *context, vitrine_shm_bytes_per_pixel bytes_per_pixel);
void vitrine_shm_stride_check_destroy(struct vitrine_shm_stride_check *check);

/// Frame callbacks: wl_callback resources without an object of Vitrine's, kept in order on lists
/// through each resource's own link (wl_resource_get_link), as weston and wlroots keep them. A
/// callback leaves its list when it is destroyed (sent done, or its client gone).
/// Creates callback `id` of `client` at the end of `list`; NULL (no_memory posted) when it cannot.
struct wl_resource *vitrine_frame_callback_create(struct wl_client *client, uint32_t id, struct wl_list *list);
/// Sends every callback on `list` done with `data` and destroys it, first to last.
void vitrine_frame_callbacks_done(struct wl_list *list, uint32_t data);
/// Takes every callback off `list`, unanswered (each lives on until its client goes).
void vitrine_frame_callbacks_forget(struct wl_list *list);

/// Copies `count` bytes of this process's memory from `source` to `target` through the kernel,
/// which reports a page it cannot read (past the end of a truncated file) instead of raising
/// SIGBUS: the bytes copied before such a page, or -1 when it is the first.
long vitrine_copy_own_memory(void *target, const void *source, size_t count);

typedef void (*vitrine_log_callback)(const char *message);
/// Routes libwayland-server's own log lines (already formatted) to `callback`.
void vitrine_set_server_log_handler(vitrine_log_callback callback);

#endif
