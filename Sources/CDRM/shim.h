// libdrm's core and mode-setting interfaces (atomic commits, planes, properties, page-flip events).
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
