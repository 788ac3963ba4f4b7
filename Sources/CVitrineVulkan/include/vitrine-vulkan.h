// The Vulkan commands the renderer calls, as tables of the headers' own PFN_ types, filled from
// libvulkan.so.1 opened on first use: a process that draws with the CPU renderer never maps the
// loader. Instance commands come through vkGetInstanceProcAddr and device commands through
// vkGetDeviceProcAddr, which gives the driver's own functions without the loader's trampolines.
#ifndef VITRINE_VULKAN_H
#define VITRINE_VULKAN_H

// CVulkan's header (no prototypes), included as itself so that the Vulkan types stay CVulkan's.
#include "../../CVulkan/shim.h"

#define VITRINE_VULKAN_GLOBAL_COMMANDS(X)                                                           \
    X(vkCreateInstance) X(vkEnumerateInstanceExtensionProperties) X(vkEnumerateInstanceLayerProperties)

#define VITRINE_VULKAN_INSTANCE_COMMANDS(X)                                                         \
    X(vkCreateDevice) X(vkDestroyInstance) X(vkEnumerateDeviceExtensionProperties)                  \
    X(vkEnumeratePhysicalDevices) X(vkGetDeviceProcAddr)                                            \
    X(vkGetPhysicalDeviceExternalBufferProperties) X(vkGetPhysicalDeviceExternalSemaphoreProperties) \
    X(vkGetPhysicalDeviceFeatures2) X(vkGetPhysicalDeviceFormatProperties)                          \
    X(vkGetPhysicalDeviceFormatProperties2) X(vkGetPhysicalDeviceImageFormatProperties2)            \
    X(vkGetPhysicalDeviceMemoryProperties) X(vkGetPhysicalDeviceProperties)                         \
    X(vkGetPhysicalDeviceProperties2) X(vkGetPhysicalDeviceQueueFamilyProperties)

#define VITRINE_VULKAN_DEVICE_COMMANDS(X)                                                           \
    X(vkAllocateCommandBuffers) X(vkAllocateMemory) X(vkBeginCommandBuffer) X(vkBindBufferMemory)   \
    X(vkBindImageMemory) X(vkCmdBeginRendering) X(vkCmdBindPipeline) X(vkCmdCopyBufferToImage)      \
    X(vkCmdCopyImage) X(vkCmdCopyImageToBuffer) X(vkCmdDraw) X(vkCmdEndRendering)                   \
    X(vkCmdPipelineBarrier2) X(vkCmdPushConstants) X(vkCmdSetScissor) X(vkCmdSetViewport)           \
    X(vkCreateBuffer) X(vkCreateCommandPool) X(vkCreateDescriptorSetLayout)                         \
    X(vkCreateGraphicsPipelines) X(vkCreateImage) X(vkCreateImageView) X(vkCreatePipelineCache)     \
    X(vkCreatePipelineLayout) X(vkCreateSampler) X(vkCreateSemaphore) X(vkCreateShaderModule)       \
    X(vkDestroyBuffer) X(vkDestroyCommandPool) X(vkDestroyDescriptorSetLayout) X(vkDestroyDevice)   \
    X(vkDestroyImage) X(vkDestroyImageView) X(vkDestroyPipeline) X(vkDestroyPipelineCache)          \
    X(vkDestroyPipelineLayout) X(vkDestroySampler) X(vkDestroySemaphore) X(vkDestroyShaderModule)   \
    X(vkDeviceWaitIdle) X(vkEndCommandBuffer) X(vkFreeCommandBuffers) X(vkFreeMemory)               \
    X(vkGetBufferMemoryRequirements) X(vkGetDeviceQueue) X(vkGetImageMemoryRequirements)            \
    X(vkGetImageSubresourceLayout) X(vkGetSemaphoreCounterValue) X(vkMapMemory)                     \
    X(vkQueueSubmit2) X(vkQueueWaitIdle) X(vkResetCommandBuffer) X(vkSignalSemaphore)               \
    X(vkWaitSemaphores)

#define VITRINE_VULKAN_FIELD(name) PFN_##name _Nonnull name;

/// The loader's entry point and the commands that need no instance.
struct vitrine_vulkan_global_commands {
    PFN_vkGetInstanceProcAddr _Nonnull vkGetInstanceProcAddr;
    VITRINE_VULKAN_GLOBAL_COMMANDS(VITRINE_VULKAN_FIELD)
};

/// The commands of one instance and its physical devices.
struct vitrine_vulkan_instance_commands {
    VITRINE_VULKAN_INSTANCE_COMMANDS(VITRINE_VULKAN_FIELD)
};

/// The commands of one device, its queues and command buffers.
struct vitrine_vulkan_device_commands {
    VITRINE_VULKAN_DEVICE_COMMANDS(VITRINE_VULKAN_FIELD)
};

#undef VITRINE_VULKAN_FIELD

/// Opens libvulkan.so.1 (once per process; it stays open) and fills `commands`. Returns NULL, or
/// what failed (the dynamic loader's message, or the command the loader lacks).
const char *_Nullable vitrine_vulkan_load_global(struct vitrine_vulkan_global_commands *_Nonnull commands);

/// Fills `commands` for `instance`. Returns NULL, or the name of the first command not found.
const char *_Nullable vitrine_vulkan_load_instance(
    PFN_vkGetInstanceProcAddr _Nonnull getInstanceProcAddr, VkInstance _Nonnull instance,
    struct vitrine_vulkan_instance_commands *_Nonnull commands);

/// Fills `commands` for `device`. Returns NULL, or the name of the first command not found.
const char *_Nullable vitrine_vulkan_load_device(
    PFN_vkGetDeviceProcAddr _Nonnull getDeviceProcAddr, VkDevice _Nonnull device,
    struct vitrine_vulkan_device_commands *_Nonnull commands);

#endif
