// The WLCS integration's C face: the structs WLCS calls through, forwarding to Swift functions
// exported with @_cdecl (declared here; defined in the VitrineWLCS Swift target).
#ifndef VITRINE_WLCS_H
#define VITRINE_WLCS_H

#include <stddef.h>
#include <stdint.h>

typedef struct vitrine_wlcs_server vitrine_wlcs_server;

void *vitrine_wlcs_create(void);
void vitrine_wlcs_destroy(void *server);
void vitrine_wlcs_start(void *server);
void vitrine_wlcs_stop(void *server);
int vitrine_wlcs_create_client_socket(void *server);
void vitrine_wlcs_position_window(void *server, int client_fd, uint32_t surface_id, int x, int y);
void vitrine_wlcs_pointer_move(void *server, void *pointer, double x, double y, int relative);
void vitrine_wlcs_pointer_button(void *server, void *pointer, int button, int pressed);
void vitrine_wlcs_touch(void *server, void *touch, double x, double y, int phase);
void *vitrine_wlcs_make_device(void *server);
void vitrine_wlcs_destroy_device(void *server, void *device);

/// The names and versions Vitrine advertises, for WLCS to skip what it does not offer.
void vitrine_wlcs_set_extensions(const char *const *names, const uint32_t *versions, size_t count);

#endif
