// No VK_USE_PLATFORM_* define: Vitrine renders offscreen and to KMS, so no window-system types.
// No prototypes: the renderer calls the loader through the tables CVitrineVulkan fills from
// libvulkan.so.1 opened on first use, never through symbols the dynamic loader binds at start.
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
