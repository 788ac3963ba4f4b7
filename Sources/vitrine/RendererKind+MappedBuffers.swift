import Compositor

extension RendererKind {
    /// Why a KMS output of this renderer draws into dumb buffers whatever GBM can do
    /// (`KMSOutputConfiguration.mappedBuffersReason`); nil for the Vulkan renderer.
    var mappedBuffersReason: String? {
        switch self {
        case .vulkan: nil
        case .cpu: "the CPU renderer writes through a mapping"
        }
    }
}
