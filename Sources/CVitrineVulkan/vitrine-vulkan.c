#include "vitrine-vulkan.h"

#include <dlfcn.h>

#define VITRINE_VULKAN_LOAD(lookup, handle, name)                                                   \
    if (!(commands->name = (PFN_##name)lookup(handle, #name))) return #name;

const char *vitrine_vulkan_load_global(struct vitrine_vulkan_global_commands *commands) {
    // RTLD_LOCAL: nothing else in the process resolves symbols against the loader.
    void *library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return dlerror();
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = (PFN_vkGetInstanceProcAddr)dlsym(library, "vkGetInstanceProcAddr");
    if (!getInstanceProcAddr) {
        dlclose(library);
        return "libvulkan.so.1 has no vkGetInstanceProcAddr";
    }
    commands->vkGetInstanceProcAddr = getInstanceProcAddr;
    // A loader that lacks one is of no use: it is closed again rather than kept mapped.
#define VITRINE_VULKAN_LOAD_GLOBAL(name)                                                            \
    if (!(commands->name = (PFN_##name)getInstanceProcAddr(NULL, #name))) {                         \
        dlclose(library);                                                                           \
        return "libvulkan.so.1 has no " #name;                                                      \
    }
    VITRINE_VULKAN_GLOBAL_COMMANDS(VITRINE_VULKAN_LOAD_GLOBAL)
    return NULL;
}

const char *vitrine_vulkan_load_instance(
    PFN_vkGetInstanceProcAddr getInstanceProcAddr, VkInstance instance, struct vitrine_vulkan_instance_commands *commands) {
#define VITRINE_VULKAN_LOAD_INSTANCE(name) VITRINE_VULKAN_LOAD(getInstanceProcAddr, instance, name)
    VITRINE_VULKAN_INSTANCE_COMMANDS(VITRINE_VULKAN_LOAD_INSTANCE)
    return NULL;
}

const char *vitrine_vulkan_load_device(
    PFN_vkGetDeviceProcAddr getDeviceProcAddr, VkDevice device, struct vitrine_vulkan_device_commands *commands) {
#define VITRINE_VULKAN_LOAD_DEVICE(name) VITRINE_VULKAN_LOAD(getDeviceProcAddr, device, name)
    VITRINE_VULKAN_DEVICE_COMMANDS(VITRINE_VULKAN_LOAD_DEVICE)
    return NULL;
}
