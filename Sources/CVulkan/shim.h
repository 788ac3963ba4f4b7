// No VK_USE_PLATFORM_* define: Vitrine renders offscreen and to KMS, so no window-system types.
#include <vulkan/vulkan.h>
