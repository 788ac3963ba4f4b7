/// Which renderer draws the compositor's outputs.
public enum RendererKind: String, Sendable, Equatable {
    /// Vulkan (`Renderer`), every output on one device: client dma-bufs are imported and
    /// `VulkanLayer`s can be made.
    case vulkan
    /// The CPU renderer (`CPURenderer`, pixman): no Vulkan at all, so no dma-buf import
    /// (zwp_linux_dmabuf_v1 is not advertised; clients use wl_shm) and no `VulkanLayer`.
    case cpu
}
