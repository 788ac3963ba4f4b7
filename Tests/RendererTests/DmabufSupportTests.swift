import Testing

internal import CVulkan

@testable import Renderer

@Suite("dma-buf import capability", .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment))
struct DmabufSupportTests {
    /// Mesa 22.3's lavapipe has VK_KHR_external_memory_fd (opaque fds) but none of the dma-buf
    /// extensions, so the compositor must not advertise zwp_linux_dmabuf_v1 on it.
    @Test func lavapipeReportsTheMissingExtensions() throws {
        try withValidatedContext { context in
            try #require(context.deviceName.contains("llvmpipe"), "this expectation is about lavapipe, not \(context.deviceName)")
            let support = try context.dmabufSupport()
            #expect(support == .unsupported(.missingExtensions([
                "VK_EXT_external_memory_dma_buf", "VK_EXT_image_drm_format_modifier", "VK_EXT_physical_device_drm",
            ])))
            #expect(support.description == "no dma-buf import: dma-buf import needs Vulkan extensions the device lacks: "
                + "VK_EXT_external_memory_dma_buf, VK_EXT_image_drm_format_modifier, VK_EXT_physical_device_drm")
            #expect(!context.supportsDmabufImport)
        }
        // The renderer reports the same to the compositor.
        #expect(try Renderer().dmabufSupport() == .unsupported(.missingExtensions([
            "VK_EXT_external_memory_dma_buf", "VK_EXT_image_drm_format_modifier", "VK_EXT_physical_device_drm",
        ])))
    }

    /// DRM codes name a little-endian word's channels from the high byte down, Vulkan formats name
    /// bytes in memory order: ARGB8888's bytes are B, G, R, A.
    @Test func sampledFormatsMapToTheVulkanFormatOfTheirByteOrder() {
        func fourcc(_ code: String) -> UInt32 {
            code.utf8.reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }
        #expect(DmabufSampledFormat.allCases.map(\.rawValue) == ["AR24", "XR24", "AB24", "XB24"].map(fourcc))
        #expect(DmabufSampledFormat.allCases.map(\.vulkanFormat) == [
            VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM,
        ])
    }
}
