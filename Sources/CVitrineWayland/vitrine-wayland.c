#define _GNU_SOURCE 1
#include "vitrine-wayland.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

struct vitrine_listener {
    struct wl_listener listener;
    void *context;
    vitrine_listener_callback callback;
};

static void vitrine_listener_notify(struct wl_listener *listener, void *data) {
    struct vitrine_listener *self = wl_container_of(listener, self, listener);
    self->callback(self->context, data);
}

struct vitrine_listener *vitrine_listener_create(void *context, vitrine_listener_callback callback) {
    struct vitrine_listener *self = calloc(1, sizeof(*self));
    if (!self) return NULL;
    self->listener.notify = vitrine_listener_notify;
    wl_list_init(&self->listener.link);
    self->context = context;
    self->callback = callback;
    return self;
}

void vitrine_listener_destroy(struct vitrine_listener *listener) {
    if (!listener) return;
    wl_list_remove(&listener->listener.link);
    free(listener);
}

void vitrine_client_add_destroy_listener(struct wl_client *client, struct vitrine_listener *listener) {
    wl_client_add_destroy_listener(client, &listener->listener);
}

void vitrine_display_add_client_created_listener(struct wl_display *display,
                                                 struct vitrine_listener *listener) {
    wl_display_add_client_created_listener(display, &listener->listener);
}

void vitrine_resource_add_destroy_listener(struct wl_resource *resource, struct vitrine_listener *listener) {
    wl_resource_add_destroy_listener(resource, &listener->listener);
}

struct vitrine_object_limit {
    struct wl_listener created;
    struct wl_listener destroyed;
    uint32_t limit;
    uint32_t created_since_count;
};

static enum wl_iterator_result vitrine_count_resource(struct wl_resource *resource, void *count) {
    (void)resource;
    ++*(uint32_t *)count;
    return WL_ITERATOR_CONTINUE;
}

static void vitrine_object_limit_created(struct wl_listener *listener, void *data) {
    struct vitrine_object_limit *self = wl_container_of(listener, self, created);
    if (++self->created_since_count < 1024) return;
    self->created_since_count = 0;
    struct wl_client *client = wl_resource_get_client(data);
    uint32_t count = 0;
    wl_client_for_each_resource(client, vitrine_count_resource, &count);
    if (count > self->limit) wl_client_post_no_memory(client);
}

static void vitrine_object_limit_destroyed(struct wl_listener *listener, void *data) {
    (void)data;
    struct vitrine_object_limit *self = wl_container_of(listener, self, destroyed);
    wl_list_remove(&self->created.link);
    wl_list_remove(&self->destroyed.link);
    free(self);
}

int vitrine_client_limit_objects(struct wl_client *client, uint32_t limit) {
    struct vitrine_object_limit *self = calloc(1, sizeof(*self));
    if (!self) return -1;
    self->limit = limit;
    self->created.notify = vitrine_object_limit_created;
    self->destroyed.notify = vitrine_object_limit_destroyed;
    wl_client_add_resource_created_listener(client, &self->created);
    wl_client_add_destroy_listener(client, &self->destroyed);
    return 0;
}

static const char implementation_tag;

const void *vitrine_implementation_tag(void) {
    return &implementation_tag;
}

int vitrine_resource_is_own(struct wl_resource *resource) {
    // wl_resource_instance_of compares interfaces by name, so a probe with the resource's own
    // name leaves only the implementation to compare.
    struct wl_interface probe = { .name = wl_resource_get_class(resource) };
    return wl_resource_instance_of(resource, &probe, &implementation_tag);
}

void vitrine_resource_post_error(struct wl_resource *resource, uint32_t code, const char *message) {
    wl_resource_post_error(resource, code, "%s", message);
}

void vitrine_client_post_implementation_error(struct wl_client *client, const char *message) {
    wl_client_post_implementation_error(client, "%s", message);
}

static vitrine_log_callback log_callback;

static void vitrine_log_trampoline(const char *format, va_list arguments) {
    char line[1024];
    vsnprintf(line, sizeof(line), format, arguments);
    if (log_callback) log_callback(line);
}

void vitrine_set_server_log_handler(vitrine_log_callback callback) {
    log_callback = callback;
    wl_log_set_handler_server(vitrine_log_trampoline);
}

struct vitrine_shm_stride_check {
    struct wl_protocol_logger *logger;
    void *context;
    vitrine_shm_bytes_per_pixel bytes_per_pixel;
};

// Requests reach protocol loggers before they are dispatched, so the check runs before
// libwayland's own wl_shm_pool.create_buffer, which compares the stride with the width in pixels
// only (it does not know how wide a pixel is).
static void vitrine_shm_stride_logger(void *data, enum wl_protocol_logger_type type,
                                      const struct wl_protocol_logger_message *message) {
    struct vitrine_shm_stride_check *self = data;
    if (type != WL_PROTOCOL_LOGGER_REQUEST || message->arguments_count != 6) return;
    if (strcmp(message->message->name, "create_buffer") != 0) return;
    if (strcmp(wl_resource_get_class(message->resource), wl_shm_pool_interface.name) != 0) return;
    int32_t width = message->arguments[2].i, stride = message->arguments[4].i;
    uint32_t format = message->arguments[5].u;
    int bytes = self->bytes_per_pixel(self->context, format);
    if (bytes <= 0 || width <= 0) return;
    if ((int64_t)width * bytes > (int64_t)stride) {
        wl_resource_post_error(message->resource, WL_SHM_ERROR_INVALID_STRIDE,
                               "stride %d is less than %d pixels of %d bytes", stride, width, bytes);
    }
}

struct vitrine_shm_stride_check *vitrine_display_add_shm_stride_check(
    struct wl_display *display, void *context, vitrine_shm_bytes_per_pixel bytes_per_pixel) {
    struct vitrine_shm_stride_check *self = calloc(1, sizeof(*self));
    if (!self) return NULL;
    self->context = context;
    self->bytes_per_pixel = bytes_per_pixel;
    self->logger = wl_display_add_protocol_logger(display, vitrine_shm_stride_logger, self);
    if (!self->logger) {
        free(self);
        return NULL;
    }
    return self;
}

void vitrine_shm_stride_check_destroy(struct vitrine_shm_stride_check *check) {
    if (!check) return;
    wl_protocol_logger_destroy(check->logger);
    free(check);
}

static void vitrine_frame_callback_destroyed(struct wl_resource *resource) {
    wl_list_remove(wl_resource_get_link(resource));
}

struct wl_resource *vitrine_frame_callback_create(struct wl_client *client, uint32_t id, struct wl_list *list) {
    struct wl_resource *callback = wl_resource_create(client, &wl_callback_interface, 1, id);
    if (!callback) {
        wl_client_post_no_memory(client);
        return NULL;
    }
    // wl_callback has no requests: no table to dispatch through.
    wl_resource_set_implementation(callback, NULL, NULL, vitrine_frame_callback_destroyed);
    wl_list_insert(list->prev, wl_resource_get_link(callback));
    return callback;
}

void vitrine_frame_callbacks_done(struct wl_list *list, uint32_t data) {
    union wl_argument argument = {.u = data};
    struct wl_resource *callback, *next;
    wl_resource_for_each_safe(callback, next, list) {
        wl_resource_post_event_array(callback, WL_CALLBACK_DONE, &argument);
        wl_resource_destroy(callback);
    }
}

void vitrine_frame_callbacks_forget(struct wl_list *list) {
    struct wl_resource *callback, *next;
    wl_resource_for_each_safe(callback, next, list) {
        struct wl_list *link = wl_resource_get_link(callback);
        wl_list_remove(link);
        wl_list_init(link);
    }
}

long vitrine_copy_own_memory(void *target, const void *source, size_t count) {
    struct iovec local = {.iov_base = target, .iov_len = count};
    struct iovec remote = {.iov_base = (void *)source, .iov_len = count};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}
