internal import CVitrineVulkan
internal import CVulkan

/// The commands that need no instance, with the loader's `vkGetInstanceProcAddr`.
typealias VulkanGlobalCommands = vitrine_vulkan_global_commands
/// The commands of one instance and its physical devices.
typealias VulkanInstanceCommands = vitrine_vulkan_instance_commands
/// The commands of one device, from its driver (`vkGetDeviceProcAddr`).
typealias VulkanDeviceCommands = vitrine_vulkan_device_commands

/// The Vulkan loader, libvulkan.so.1, opened the first time a Vulkan renderer is made (or
/// `renderer = "auto"` asks whether it can be) and then kept: nothing links against it, so a
/// process that draws with the CPU renderer never maps it.
enum VulkanLoader {
    /// The global commands, or why the loader could not be opened; opened once per process.
    private static let global = Result { try fill(VulkanError.loaderUnavailable, vitrine_vulkan_load_global) }

    /// The global commands; throws `VulkanError.loaderUnavailable` where the loader cannot be opened.
    static func globalCommands() throws -> VulkanGlobalCommands {
        try global.get()
    }

    /// The commands of `instance`, made with `globalCommands()`.
    static func instanceCommands(for instance: VkInstance) throws -> VulkanInstanceCommands {
        let getInstanceProcAddr = try globalCommands().vkGetInstanceProcAddr
        return try fill(VulkanError.missingCommand) { vitrine_vulkan_load_instance(getInstanceProcAddr, instance, $0) }
    }

    /// The commands of `device`, made with `instance`'s commands.
    static func deviceCommands(for device: VkDevice, with instance: VulkanInstanceCommands) throws -> VulkanDeviceCommands {
        try fill(VulkanError.missingCommand) { vitrine_vulkan_load_device(instance.vkGetDeviceProcAddr, device, $0) }
    }

    /// The table `load` fills, or `failure` of the text it returns instead. The tables' fields
    /// cannot be null, so Swift cannot make an empty one: it is filled in memory of its own and
    /// moved out whole.
    private static func fill<Commands>(
        _ failure: (String) -> VulkanError, _ load: (UnsafeMutablePointer<Commands>) -> UnsafePointer<CChar>?
    ) throws -> Commands {
        let table = UnsafeMutablePointer<Commands>.allocate(capacity: 1)
        defer { table.deallocate() }
        if let text = load(table) { throw failure(String(cString: text)) }
        return table.move()
    }
}

extension Renderer {
    /// Why the Vulkan loader (libvulkan.so.1) cannot be used, or nil when it can. The first call
    /// opens it, which maps it into the process for good: `renderer = "auto"` asks only once it
    /// has found a hardware Vulkan device.
    public static var vulkanLoaderProblem: String? {
        guard case .failure(let error) = Result(catching: VulkanLoader.globalCommands) else { return nil }
        return "\(error)"
    }
}
