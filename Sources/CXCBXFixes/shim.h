#include <xcb/xfixes.h>

/// XFixes' extension data (its first event number); xcb_xfixes_id is a C global Swift cannot
/// take the address of.
static inline const xcb_query_extension_reply_t *vitrine_xcb_xfixes_extension(xcb_connection_t *connection) {
    return xcb_get_extension_data(connection, &xcb_xfixes_id);
}
