#include <xcb/composite.h>
