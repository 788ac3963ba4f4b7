internal import CVulkan
import FaultInjection
import Glibc
public import SystemCalls

/// The errors that the Vulkan layer throws. Every `VkResult` is translated here, so that no Vulkan
/// type reaches callers.
public enum VulkanError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A Vulkan call failed; the first value is the result code's name (`VK_ERROR_OUT_OF_DEVICE_MEMORY`),
    /// the second the function that returned it.
    case result(String, while: String)
    /// The device was lost (`VK_ERROR_DEVICE_LOST`, from the function named): nothing made on it
    /// works any more, and its renderers must be replaced by ones on a new device.
    case deviceLost(while: String)
    /// The Vulkan loader (libvulkan.so.1) could not be opened; the text says why.
    case loaderUnavailable(String)
    /// The loader or the driver returned no function for this core command.
    case missingCommand(String)
    /// No physical device can run the renderer; the text says what was missing.
    case noSuitableDevice(String)
    /// The chosen device or instance lacks a required extension or layer, named here.
    case missingExtension(String)
    /// The validation layer reported errors or warnings.
    case validation([String])
    /// An image larger than the device's `maxImageDimension2D`.
    case imageTooLarge(width: Int, height: Int, maximum: Int)
    /// A dma-buf a buffer cannot be bound to: it needs more memory, or another type, than the
    /// device's import gives.
    case dmabufUnusable(size: Int)
    /// Duplicating a descriptor failed with this errno.
    case descriptor(SystemCallError)

    public var description: String {
        switch self {
        case .result(let name, let function):
            return "\(function) failed with \(name)"
        case .deviceLost(let function):
            return "\(function) failed with VK_ERROR_DEVICE_LOST"
        case .loaderUnavailable(let reason):
            return "the Vulkan loader could not be loaded: \(reason)"
        case .missingCommand(let name):
            return "the Vulkan implementation has no \(name)"
        case .noSuitableDevice(let reason):
            return "no suitable Vulkan device: \(reason)"
        case .missingExtension(let name):
            return "the Vulkan implementation lacks \(name)"
        case .validation(let messages):
            return "Vulkan validation reported \(messages.count) message(s):\n" + messages.joined(separator: "\n")
        case .imageTooLarge(let width, let height, let maximum):
            return "image of \(width)×\(height) exceeds the device's limit of \(maximum) pixels a side"
        case .dmabufUnusable(let size):
            return "the device cannot read a buffer from the dma-buf's \(size) bytes"
        case .descriptor(let error):
            return "the dma-buf's descriptor could not be duplicated: \(error.errno)"
        }
    }
}

/// Makes `call` and throws the translation of any result other than `VK_SUCCESS`. Positive
/// non-success codes (`VK_TIMEOUT`, `VK_INCOMPLETE`, …) are thrown too: every call site here
/// expects plain success. `what` names the function, optionally followed by a space and details.
///
/// The renderer's one fault-injection point: a rule armed for the function (`FaultInjection`)
/// returns its result instead of making the call.
func check(_ call: @autoclosure () -> VkResult, _ what: @autoclosure () -> String) throws {
    let r: VkResult
    if FaultInjection.isArmed, let injected = injectedResult(for: what()) {
        r = injected
    } else {
        r = call()
    }
    guard r != VK_SUCCESS else { return }
    if r == VK_ERROR_DEVICE_LOST { throw VulkanError.deviceLost(while: what()) }
    throw VulkanError.result(name(of: r), while: what())
}

/// The result an armed rule gives the function `what` names now, if any.
private func injectedResult(for what: String) -> VkResult? {
    let function = String(what.prefix { $0 != " " })
    guard case .vulkan(let name) = FaultInjection.failure(of: function) else { return nil }
    return resultNames.first { $0.name == name }?.result ?? VK_ERROR_UNKNOWN
}

extension Renderer {
    /// The `VK_` results `plan` names that no Vulkan result has (to refuse such a plan at start).
    public static func unknownResults(in plan: FaultPlan) -> [String] {
        plan.rules.compactMap { rule in
            guard case .vulkan(let name) = rule.result, !resultNames.contains(where: { $0.name == name }) else { return nil }
            return name
        }
    }
}

/// The specification's name of a result code, or its number for codes newer than these headers.
private func name(of r: VkResult) -> String {
    resultNames.first { $0.result == r }?.name ?? "VkResult(\(r.rawValue))"
}

/// The result codes these headers define, with their specification names.
private let resultNames: [(result: VkResult, name: String)] = [
    (VK_NOT_READY, "VK_NOT_READY"),
    (VK_TIMEOUT, "VK_TIMEOUT"),
    (VK_EVENT_SET, "VK_EVENT_SET"),
    (VK_EVENT_RESET, "VK_EVENT_RESET"),
    (VK_INCOMPLETE, "VK_INCOMPLETE"),
    (VK_ERROR_OUT_OF_HOST_MEMORY, "VK_ERROR_OUT_OF_HOST_MEMORY"),
    (VK_ERROR_OUT_OF_DEVICE_MEMORY, "VK_ERROR_OUT_OF_DEVICE_MEMORY"),
    (VK_ERROR_INITIALIZATION_FAILED, "VK_ERROR_INITIALIZATION_FAILED"),
    (VK_ERROR_DEVICE_LOST, "VK_ERROR_DEVICE_LOST"),
    (VK_ERROR_MEMORY_MAP_FAILED, "VK_ERROR_MEMORY_MAP_FAILED"),
    (VK_ERROR_LAYER_NOT_PRESENT, "VK_ERROR_LAYER_NOT_PRESENT"),
    (VK_ERROR_EXTENSION_NOT_PRESENT, "VK_ERROR_EXTENSION_NOT_PRESENT"),
    (VK_ERROR_FEATURE_NOT_PRESENT, "VK_ERROR_FEATURE_NOT_PRESENT"),
    (VK_ERROR_INCOMPATIBLE_DRIVER, "VK_ERROR_INCOMPATIBLE_DRIVER"),
    (VK_ERROR_TOO_MANY_OBJECTS, "VK_ERROR_TOO_MANY_OBJECTS"),
    (VK_ERROR_FORMAT_NOT_SUPPORTED, "VK_ERROR_FORMAT_NOT_SUPPORTED"),
    (VK_ERROR_FRAGMENTED_POOL, "VK_ERROR_FRAGMENTED_POOL"),
    (VK_ERROR_UNKNOWN, "VK_ERROR_UNKNOWN"),
    (VK_ERROR_OUT_OF_POOL_MEMORY, "VK_ERROR_OUT_OF_POOL_MEMORY"),
    (VK_ERROR_INVALID_EXTERNAL_HANDLE, "VK_ERROR_INVALID_EXTERNAL_HANDLE"),
    (VK_ERROR_FRAGMENTATION, "VK_ERROR_FRAGMENTATION"),
    (VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS, "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS"),
    (VK_PIPELINE_COMPILE_REQUIRED, "VK_PIPELINE_COMPILE_REQUIRED"),
    (VK_ERROR_SURFACE_LOST_KHR, "VK_ERROR_SURFACE_LOST_KHR"),
    (VK_ERROR_NATIVE_WINDOW_IN_USE_KHR, "VK_ERROR_NATIVE_WINDOW_IN_USE_KHR"),
    (VK_SUBOPTIMAL_KHR, "VK_SUBOPTIMAL_KHR"),
    (VK_ERROR_OUT_OF_DATE_KHR, "VK_ERROR_OUT_OF_DATE_KHR"),
    (VK_ERROR_INCOMPATIBLE_DISPLAY_KHR, "VK_ERROR_INCOMPATIBLE_DISPLAY_KHR"),
    (VK_ERROR_VALIDATION_FAILED_EXT, "VK_ERROR_VALIDATION_FAILED_EXT"),
    (VK_ERROR_INVALID_SHADER_NV, "VK_ERROR_INVALID_SHADER_NV"),
    (VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT, "VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT"),
    (VK_ERROR_NOT_PERMITTED_KHR, "VK_ERROR_NOT_PERMITTED_KHR"),
    (VK_ERROR_COMPRESSION_EXHAUSTED_EXT, "VK_ERROR_COMPRESSION_EXHAUSTED_EXT"),
]
