#include "vitrine-wlcs.h"

#include <stdlib.h>
#include <string.h>
#include <wayland-client-core.h>
#include <wlcs/display_server.h>
#include <wlcs/pointer.h>
#include <wlcs/touch.h>

struct vitrine_wlcs_server {
    WlcsDisplayServer base;
    void *swift;
};

struct vitrine_wlcs_pointer {
    WlcsPointer base;
    struct vitrine_wlcs_server *server;
    void *device;
};

struct vitrine_wlcs_touch {
    WlcsTouch base;
    struct vitrine_wlcs_server *server;
    void *device;
};

static WlcsExtensionDescriptor extensions[32];
static WlcsIntegrationDescriptor descriptor = {
    .version = WLCS_INTEGRATION_DESCRIPTOR_VERSION, .num_extensions = 0, .supported_extensions = extensions};

void vitrine_wlcs_set_extensions(const char *const *names, const uint32_t *versions, size_t count) {
    if (count > sizeof(extensions) / sizeof(extensions[0])) count = sizeof(extensions) / sizeof(extensions[0]);
    for (size_t i = 0; i < count; i++) {
        extensions[i].name = strdup(names[i]);
        extensions[i].version = versions[i];
    }
    descriptor.num_extensions = count;
}

static struct vitrine_wlcs_server *server_of(WlcsDisplayServer *server) {
    return (struct vitrine_wlcs_server *)server;
}

static void start(WlcsDisplayServer *server) { vitrine_wlcs_start(server_of(server)->swift); }
static void stop(WlcsDisplayServer *server) { vitrine_wlcs_stop(server_of(server)->swift); }

static int create_client_socket(WlcsDisplayServer *server) {
    return vitrine_wlcs_create_client_socket(server_of(server)->swift);
}

static void position_window_absolute(WlcsDisplayServer *server, struct wl_display *client,
                                     struct wl_surface *surface, int x, int y) {
    // The client's connection is one of the sockets create_client_socket handed out; the
    // surface is known to the server by the same object id.
    vitrine_wlcs_position_window(server_of(server)->swift, wl_display_get_fd(client),
                                 wl_proxy_get_id((struct wl_proxy *)surface), x, y);
}

static void pointer_move_absolute(WlcsPointer *pointer, wl_fixed_t x, wl_fixed_t y) {
    struct vitrine_wlcs_pointer *self = (struct vitrine_wlcs_pointer *)pointer;
    vitrine_wlcs_pointer_move(self->server->swift, self->device, wl_fixed_to_double(x), wl_fixed_to_double(y), 0);
}

static void pointer_move_relative(WlcsPointer *pointer, wl_fixed_t dx, wl_fixed_t dy) {
    struct vitrine_wlcs_pointer *self = (struct vitrine_wlcs_pointer *)pointer;
    vitrine_wlcs_pointer_move(self->server->swift, self->device, wl_fixed_to_double(dx), wl_fixed_to_double(dy), 1);
}

static void pointer_button_up(WlcsPointer *pointer, int button) {
    struct vitrine_wlcs_pointer *self = (struct vitrine_wlcs_pointer *)pointer;
    vitrine_wlcs_pointer_button(self->server->swift, self->device, button, 0);
}

static void pointer_button_down(WlcsPointer *pointer, int button) {
    struct vitrine_wlcs_pointer *self = (struct vitrine_wlcs_pointer *)pointer;
    vitrine_wlcs_pointer_button(self->server->swift, self->device, button, 1);
}

static void pointer_destroy(WlcsPointer *pointer) {
    struct vitrine_wlcs_pointer *self = (struct vitrine_wlcs_pointer *)pointer;
    vitrine_wlcs_destroy_device(self->server->swift, self->device);
    free(self);
}

static WlcsPointer *create_pointer(WlcsDisplayServer *server) {
    struct vitrine_wlcs_pointer *self = calloc(1, sizeof(*self));
    self->base.version = WLCS_POINTER_VERSION;
    self->base.move_absolute = pointer_move_absolute;
    self->base.move_relative = pointer_move_relative;
    self->base.button_up = pointer_button_up;
    self->base.button_down = pointer_button_down;
    self->base.destroy = pointer_destroy;
    self->server = server_of(server);
    self->device = vitrine_wlcs_make_device(self->server->swift);
    return &self->base;
}

// WlcsTouch declares its coordinates as wl_fixed_t, but WLCS's wlcs::Touch::down_at and move_to
// pass whole compositor pixels through unconverted (unlike the pointer, which converts with
// wl_fixed_from_int), so they are read as integers here.
static void touch_down(WlcsTouch *touch, wl_fixed_t x, wl_fixed_t y) {
    struct vitrine_wlcs_touch *self = (struct vitrine_wlcs_touch *)touch;
    vitrine_wlcs_touch(self->server->swift, self->device, (double)x, (double)y, 0);
}

static void touch_move(WlcsTouch *touch, wl_fixed_t x, wl_fixed_t y) {
    struct vitrine_wlcs_touch *self = (struct vitrine_wlcs_touch *)touch;
    vitrine_wlcs_touch(self->server->swift, self->device, (double)x, (double)y, 1);
}

static void touch_up(WlcsTouch *touch) {
    struct vitrine_wlcs_touch *self = (struct vitrine_wlcs_touch *)touch;
    vitrine_wlcs_touch(self->server->swift, self->device, 0, 0, 2);
}

static void touch_destroy(WlcsTouch *touch) {
    struct vitrine_wlcs_touch *self = (struct vitrine_wlcs_touch *)touch;
    vitrine_wlcs_destroy_device(self->server->swift, self->device);
    free(self);
}

static WlcsTouch *create_touch(WlcsDisplayServer *server) {
    struct vitrine_wlcs_touch *self = calloc(1, sizeof(*self));
    self->base.version = WLCS_TOUCH_VERSION;
    self->base.touch_down = touch_down;
    self->base.touch_move = touch_move;
    self->base.touch_up = touch_up;
    self->base.destroy = touch_destroy;
    self->server = server_of(server);
    self->device = vitrine_wlcs_make_device(self->server->swift);
    return &self->base;
}

static const WlcsIntegrationDescriptor *get_descriptor(const WlcsDisplayServer *server) {
    (void)server;
    return &descriptor;
}

static WlcsDisplayServer *create_server(int argc, const char **argv) {
    (void)argc;
    (void)argv;
    struct vitrine_wlcs_server *self = calloc(1, sizeof(*self));
    self->base.version = 3;
    self->base.start = start;
    self->base.stop = stop;
    self->base.create_client_socket = create_client_socket;
    self->base.position_window_absolute = position_window_absolute;
    self->base.create_pointer = create_pointer;
    self->base.create_touch = create_touch;
    self->base.get_descriptor = get_descriptor;
    self->swift = vitrine_wlcs_create();
    return &self->base;
}

static void destroy_server(WlcsDisplayServer *server) {
    vitrine_wlcs_destroy(server_of(server)->swift);
    free(server);
}

__attribute__((visibility("default"))) const WlcsServerIntegration wlcs_server_integration = {
    .version = WLCS_SERVER_INTEGRATION_VERSION,
    .create_server = create_server,
    .destroy_server = destroy_server,
};
