import Buffers
import Foundation
import LayerKit
import Testing

internal import CVulkan

@testable import Renderer

/// How a frame drawn into a display's buffer tells the display it is done, and how client
/// dma-bufs are read, as Mesa 25.0's lavapipe offers them.
@MainActor
@Suite(.enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct FrameFenceSourceTests {
    /// lavapipe has no VK_KHR_external_semaphore_fd and exports no SYNC_FD payload, so frames
    /// reach the display through the waiter thread's eventfd, and a frame the GPU writes into a
    /// buffer's memory carries no fence.
    @Test func lavapipeTakesTheWaiterThread() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let context = renderer.context
        try #require(context.deviceName.contains("llvmpipe"), "this expectation is about lavapipe, not \(context.deviceName)")
        #expect(VulkanContext.syncFileSemaphoreFeatures(of: context.physicalDevice, instanceCommands: context.instanceCommands) == 0)
        #expect(context.frameFenceSource == .waiterThread)
        #expect(context.getSemaphoreFd == nil)

        let buffer = try #require(HostMemoryBuffer(width: 64, height: 64, format: .argb8888))
        let root = makeRoot(64, 64)
        let completion = try renderer.render(try commit(root), into: buffer, scale: 1, clearColor: .clear)
        #expect(renderer.importsMemory(of: buffer))
        #expect(completion.takeAcquireFence() == nil)
        try completion.finish()
        #expect(renderer.takeValidationMessages() == [])
    }

    /// The sync_file export is chosen exactly where the extension is there and a binary
    /// semaphore's SYNC_FD payload is exportable.
    @Test func theExportIsChosenWhereTheDeviceExportsSyncFiles() {
        let exportable = VkExternalSemaphoreFeatureFlags(VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT.rawValue)
        let importable = VkExternalSemaphoreFeatureFlags(VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT.rawValue)
        #expect(FrameFenceSource.choose(hasSemaphoreFdExtension: true, semaphoreFeatures: exportable | importable) == .exportedSyncFile)
        #expect(FrameFenceSource.choose(hasSemaphoreFdExtension: true, semaphoreFeatures: exportable) == .exportedSyncFile)
        #expect(FrameFenceSource.choose(hasSemaphoreFdExtension: true, semaphoreFeatures: importable) == .waiterThread)
        #expect(FrameFenceSource.choose(hasSemaphoreFdExtension: false, semaphoreFeatures: exportable) == .waiterThread)
        #expect(FrameFenceSource.choose(hasSemaphoreFdExtension: true, semaphoreFeatures: 0) == .waiterThread)
    }

    /// lavapipe lacks VK_EXT_image_drm_format_modifier but has VK_EXT_queue_family_foreign: a
    /// linear dma-buf is read in place through a linear image (where the stride fits), a tiled
    /// one not at all, and images are acquired from the foreign queue family.
    @Test func lavapipeReadsLinearBuffersInPlaceThroughLinearImages() throws {
        let context = try Renderer().context
        try #require(context.deviceName.contains("llvmpipe"), "this expectation is about lavapipe, not \(context.deviceName)")
        #expect(!context.hasDrmFormatModifiers)
        #expect(context.externalQueueFamily == VK_QUEUE_FAMILY_FOREIGN_EXT)
        let sampled = DmabufImport.sampledUsage
        #expect(context.inPlaceTiling(format: VK_FORMAT_B8G8R8A8_UNORM, modifier: FormatModifier.linear, usage: sampled) == .linear)
        #expect(context.inPlaceTiling(format: VK_FORMAT_R8G8B8A8_UNORM, modifier: FormatModifier.linear, usage: sampled) == .linear)
        #expect(context.inPlaceTiling(format: VK_FORMAT_B8G8R8A8_UNORM, modifier: 0x0100_0000_0000_0001, usage: sampled) == nil)
        #expect(context.drmFormatModifiers(of: VK_FORMAT_B8G8R8A8_UNORM, usage: sampled) == [])
        #expect(context.importableModifiers(of: .argb8888) == [FormatModifier.linear])
    }

    /// Without VK_EXT_image_drm_format_modifier lavapipe renders into linear dma-bufs only: it
    /// reports no tiled layout for displays to allocate, and refuses a buffer with a modifier as
    /// unwritable, writing nothing into it (the display's buffers then stay linear; see
    /// `SwapchainLayout`).
    @Test func lavapipeRendersIntoLinearDmabufsOnly() throws {
        let renderer = try Renderer()
        try #require(renderer.deviceName.contains("llvmpipe"), "this expectation is about lavapipe, not \(renderer.deviceName)")
        #expect(renderer.renderTargetFormats == [])
        let tiled = try DmabufFile(width: 64, height: 64, stride: 256, filledWith: 0xAB, modifier: 0x0100_0000_0000_0002)
        let error = #expect(throws: UnwritableBuffer.self) {
            try renderer.render(try commit(makeRoot(64, 64)), into: tiled, scale: 1, clearColor: .clear)
        }
        #expect(
            error?.reason
                == "the Vulkan implementation lacks VK_EXT_image_drm_format_modifier for XR24 (0x34325258) modifier 0x100000000000002")
        #expect(Set(tiled.contents) == [0xAB])
    }
}
