import Buffers
import Testing

internal import CVulkan

@testable import Renderer

@Suite("dma-buf import capability", .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment))
struct DmabufSupportTests {
    /// Mesa 25's lavapipe imports dma-buf memory (it maps it) but names no DRM render node: the
    /// four sampled formats, linear, on a device without a node.
    @Test func lavapipeImportsTheLinearSampledFormats() throws {
        let linear = [PixelFormat.argb8888, .xrgb8888, .abgr8888, .xbgr8888].map { DmabufFormat($0, modifier: FormatModifier.linear) }
        try withValidatedContext { context in
            try #require(context.deviceName.contains("llvmpipe"), "this expectation is about lavapipe, not \(context.deviceName)")
            let support = try context.dmabufSupport()
            #expect(support == .supported(renderNode: nil, formats: linear))
            #expect(support.description == "dma-buf import on a device without a render node: 4 format/modifier pair(s)")
            #expect(context.getMemoryFdProperties != nil)
        }
        // The renderer reports the same to the compositor.
        #expect(try Renderer().dmabufSupport() == .supported(renderNode: nil, formats: linear))
    }

    /// A device without the extensions is named with what it lacks.
    @Test func aMissingExtensionIsNamed() {
        #expect(DmabufSupport.unsupported(.missingExtensions(["VK_EXT_external_memory_dma_buf"])).description
            == "no dma-buf import: dma-buf import needs Vulkan extensions the device lacks: VK_EXT_external_memory_dma_buf")
    }

    /// DRM codes name a little-endian word's channels from the high byte down, Vulkan formats name
    /// bytes in memory order: ARGB8888's bytes are B, G, R, A.
    @Test func sampledFormatsMapToTheVulkanFormatOfTheirByteOrder() {
        #expect(PixelFormat.sampledFromDmabufs.map(\.fourcc) == ["AR24", "XR24", "AB24", "XB24"])
        #expect(PixelFormat.sampledFromDmabufs.map(\.vulkanFormat) == [
            VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM,
        ])
    }
}
