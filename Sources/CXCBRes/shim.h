#include <xcb/res.h>
