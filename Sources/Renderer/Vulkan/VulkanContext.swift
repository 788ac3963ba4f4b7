internal import CVulkan
import Glibc
import Synchronization

/// How the renderer sets up Vulkan.
public struct VulkanOptions: Sendable {
    /// A DRM render node such as `/dev/dri/renderD128`: the physical device whose render node
    /// (`VK_EXT_physical_device_drm`) has this file's device number is preferred, so that the
    /// renderer runs on the GPU that drives the display. Nil, or no match, takes the first device.
    public var preferredDRMRenderNode: String?
    /// Enables `VK_LAYER_KHRONOS_validation` and collects its errors and warnings.
    public var enableValidation: Bool

    public init(preferredDRMRenderNode: String? = nil, enableValidation: Bool = false) {
        self.preferredDRMRenderNode = preferredDRMRenderNode
        self.enableValidation = enableValidation
    }
}

/// The validation layer's errors and warnings, appended from whichever thread the layer reports on.
final class ValidationLog: Sendable {
    private let messages = Mutex<[String]>([])

    func append(_ message: String) {
        messages.withLock { $0.append(message) }
    }

    func take() -> [String] {
        messages.withLock { messages in
            defer { messages = [] }
            return messages
        }
    }
}

/// The messenger's callback. It is a C function, so the log arrives as the user-data pointer.
private let debugCallback: PFN_vkDebugUtilsMessengerCallbackEXT = { severity, _, data, userData in
    guard let userData, let data else { return VkBool32(VK_FALSE) }
    let log = Unmanaged<ValidationLog>.fromOpaque(userData).takeUnretainedValue()
    let level = severity == VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "ERROR" : "WARNING"
    log.append("[\(level)] " + (data.pointee.pMessage.map { String(cString: $0) } ?? "(no message)"))
    // VK_FALSE: the call that triggered the message proceeds, as the specification requires.
    return VkBool32(VK_FALSE)
}

/// One Vulkan instance, device and graphics queue, with the command pool every recording uses.
///
/// Everything the renderer creates holds its context strongly, so the device outlives them.
final class VulkanContext {
    let instance: VkInstance
    /// The instance's commands and the device's, from the loader opened on first use.
    let instanceCommands: VulkanInstanceCommands
    let commands: VulkanDeviceCommands
    let physicalDevice: VkPhysicalDevice
    let device: VkDevice
    let queueFamilyIndex: UInt32
    let queue: VkQueue
    let commandPool: VkCommandPool
    /// The physical device's name, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)`.
    let deviceName: String
    /// `vkGetMemoryFdPropertiesKHR`, with `VK_KHR_external_memory_fd` and
    /// `VK_EXT_external_memory_dma_buf` enabled: client dma-bufs can then be imported as memory.
    let getMemoryFdProperties: PFN_vkGetMemoryFdPropertiesKHR?
    /// How frames into displays' buffers tell the display they are done: an exported sync_file
    /// where the device can (then `getSemaphoreFd` is loaded), the waiter thread otherwise.
    let frameFenceSource: FrameFenceSource
    /// `vkGetSemaphoreFdKHR`, with `VK_KHR_external_semaphore_fd` enabled.
    let getSemaphoreFd: PFN_vkGetSemaphoreFdKHR?
    /// Whether `VK_EXT_image_drm_format_modifier` is enabled: images then take a dma-buf's
    /// modifier and plane layout as they are (lavapipe in Mesa 25.0 lacks it).
    let hasDrmFormatModifiers: Bool
    /// The queue family that dma-bufs are acquired from and released to around each use:
    /// `VK_QUEUE_FAMILY_FOREIGN_EXT` where the device has it (a client's buffer may come from any
    /// driver), `VK_QUEUE_FAMILY_EXTERNAL` otherwise.
    let externalQueueFamily: UInt32
    /// With `VK_EXT_external_memory_host` enabled, the alignment that host memory (its address and
    /// size) needs to become a buffer without a copy (`minImportedHostPointerAlignment`); nil
    /// without the extension.
    let hostPointerAlignment: Int?
    /// `vkGetMemoryHostPointerPropertiesEXT`, which the loader does not export; with the extension.
    let getMemoryHostPointerProperties: PFN_vkGetMemoryHostPointerPropertiesEXT?
    let limits: VkPhysicalDeviceLimits
    /// `vkCmdPushDescriptorSetKHR`, which the loader does not export because it belongs to an extension.
    let cmdPushDescriptorSet: PFN_vkCmdPushDescriptorSetKHR
    /// The call that found the device lost, once one did: everything on it refuses from then on,
    /// and what was made on it (a `VulkanLayer`'s drawables, dma-buf copies) is drawn as missing
    /// by renderers on the device that replaces it.
    private(set) var lostWhile: String?
    var isLost: Bool { lostWhile != nil }
    /// Tells the compositor's event loop when frames are done, from a thread of its own.
    private(set) lazy var completionWaiter = CompletionWaiter(device: device, commands: commands)
    /// How many `VkDeviceMemory` allocations are alive: devices allow only `maxMemoryAllocationCount`
    /// (often 4096), so this is the figure to watch for leaks.
    private(set) var liveMemoryAllocations = 0
    /// How many images (`GPUImage`) exist on the device now: for tests that prove imports are freed.
    var liveImages = 0

    private let memoryProperties: VkPhysicalDeviceMemoryProperties
    private let messenger: Messenger?

    /// The debug messenger with the function that destroys it and the log its callback fills.
    private struct Messenger {
        let handle: VkDebugUtilsMessengerEXT
        let destroy: PFN_vkDestroyDebugUtilsMessengerEXT
        let log: ValidationLog
    }

    static let validationLayer = "VK_LAYER_KHRONOS_validation"
    static let hostMemoryExtension = "VK_EXT_external_memory_host"
    /// What importing a dma-buf's memory needs (`dmabufSupport()` reports what the device lacks).
    static let dmabufExtensions = ["VK_KHR_external_memory_fd", "VK_EXT_external_memory_dma_buf"]
    /// Images laid out by a DRM format modifier (tiled client buffers, sampled where they lie).
    static let modifierExtension = "VK_EXT_image_drm_format_modifier"
    /// The queue family of owners outside Vulkan (a client's GPU context, the display).
    static let foreignQueueExtension = "VK_EXT_queue_family_foreign"

    init(options: VulkanOptions) throws {
        let log = options.enableValidation ? ValidationLog() : nil
        let (instance, instanceCommands) = try Self.makeInstance(validationLog: log)
        // A throw below must not leak what was made above: deinit does not run for a partial init.
        var messenger: Messenger?
        var device: VkDevice?
        var commands: VulkanDeviceCommands?
        var commandPool: VkCommandPool?
        var succeeded = false
        defer {
            if !succeeded {
                if let commandPool, let commands { commands.vkDestroyCommandPool(device, commandPool, nil) }
                if let device {
                    // Found alone where the device's table could not be filled.
                    let destroy = commands?.vkDestroyDevice ?? instanceCommands.vkGetDeviceProcAddr(device, "vkDestroyDevice")
                        .flatMap { unsafeBitCast($0, to: PFN_vkDestroyDevice.self) }
                    destroy?(device, nil)
                }
                if let messenger { messenger.destroy(instance, messenger.handle, nil) }
                instanceCommands.vkDestroyInstance(instance, nil)
            }
        }
        if let log { messenger = try Self.makeMessenger(instance: instance, log: log) }

        let choice = try Self.choosePhysicalDevice(
            instance: instance, instanceCommands: instanceCommands, preferredDRMRenderNode: options.preferredDRMRenderNode)
        let dmabufExtensions = Self.dmabufExtensions.allSatisfy(choice.extensions.contains) ? Self.dmabufExtensions : []
        let hostMemoryExtension = choice.extensions.contains(Self.hostMemoryExtension) ? [Self.hostMemoryExtension] : []
        // Both only matter for dma-bufs; VK_KHR_image_format_list, which modifiers need, is core in 1.2.
        let dmabufImageExtensions = dmabufExtensions.isEmpty
            ? [] : [Self.modifierExtension, Self.foreignQueueExtension].filter(choice.extensions.contains)
        let fenceSource = FrameFenceSource.choose(
            hasSemaphoreFdExtension: choice.extensions.contains(Self.semaphoreFdExtension),
            semaphoreFeatures: Self.syncFileSemaphoreFeatures(of: choice.handle, instanceCommands: instanceCommands))
        let fenceExtensions = fenceSource == .exportedSyncFile ? [Self.semaphoreFdExtension] : []
        device = try Self.makeDevice(
            choice.handle, queueFamilyIndex: choice.queueFamilyIndex,
            extensions: ["VK_KHR_push_descriptor"] + dmabufExtensions + dmabufImageExtensions + hostMemoryExtension
                + fenceExtensions,
            instanceCommands: instanceCommands)
        commands = try VulkanLoader.deviceCommands(for: device!, with: instanceCommands)
        let deviceCommands = commands!

        var queue: VkQueue?
        deviceCommands.vkGetDeviceQueue(device, choice.queueFamilyIndex, 0, &queue)
        guard let queue else { throw VulkanError.noSuitableDevice("vkGetDeviceQueue returned no queue") }

        guard let pushDescriptor = instanceCommands.vkGetDeviceProcAddr(device, "vkCmdPushDescriptorSetKHR") else {
            throw VulkanError.missingExtension("VK_KHR_push_descriptor")
        }

        var poolInfo = VkCommandPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        poolInfo.flags = VkCommandPoolCreateFlags(VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT.rawValue)
        poolInfo.queueFamilyIndex = choice.queueFamilyIndex
        try check(deviceCommands.vkCreateCommandPool(device, &poolInfo, nil, &commandPool), "vkCreateCommandPool")

        var properties = VkPhysicalDeviceProperties()
        instanceCommands.vkGetPhysicalDeviceProperties(choice.handle, &properties)
        var memoryProperties = VkPhysicalDeviceMemoryProperties()
        instanceCommands.vkGetPhysicalDeviceMemoryProperties(choice.handle, &memoryProperties)

        self.instance = instance
        self.instanceCommands = instanceCommands
        self.commands = deviceCommands
        self.messenger = messenger
        physicalDevice = choice.handle
        self.device = device!
        queueFamilyIndex = choice.queueFamilyIndex
        self.queue = queue
        self.commandPool = commandPool!
        deviceName = string(fromCArray: properties.deviceName)
        getMemoryFdProperties = dmabufExtensions.isEmpty
            ? nil
            : instanceCommands.vkGetDeviceProcAddr(device, "vkGetMemoryFdPropertiesKHR").map {
                unsafeBitCast($0, to: PFN_vkGetMemoryFdPropertiesKHR.self)
            }
        if !hostMemoryExtension.isEmpty, let function = instanceCommands.vkGetDeviceProcAddr(device, "vkGetMemoryHostPointerPropertiesEXT") {
            getMemoryHostPointerProperties = unsafeBitCast(function, to: PFN_vkGetMemoryHostPointerPropertiesEXT.self)
            hostPointerAlignment = Self.hostPointerAlignment(of: choice.handle, instanceCommands: instanceCommands)
        } else {
            getMemoryHostPointerProperties = nil
            hostPointerAlignment = nil
        }
        getSemaphoreFd = fenceExtensions.isEmpty
            ? nil : instanceCommands.vkGetDeviceProcAddr(device, "vkGetSemaphoreFdKHR").map { unsafeBitCast($0, to: PFN_vkGetSemaphoreFdKHR.self) }
        frameFenceSource = getSemaphoreFd == nil ? .waiterThread : fenceSource
        hasDrmFormatModifiers = dmabufImageExtensions.contains(Self.modifierExtension)
        externalQueueFamily = dmabufImageExtensions.contains(Self.foreignQueueExtension)
            ? VK_QUEUE_FAMILY_FOREIGN_EXT : VK_QUEUE_FAMILY_EXTERNAL
        limits = properties.limits
        self.memoryProperties = memoryProperties
        cmdPushDescriptorSet = unsafeBitCast(pushDescriptor, to: PFN_vkCmdPushDescriptorSetKHR.self)
        succeeded = true
    }

    deinit {
        // Teardown is the one place that may wait for the whole device.
        _ = commands.vkDeviceWaitIdle(device)
        commands.vkDestroyCommandPool(device, commandPool, nil)
        commands.vkDestroyDevice(device, nil)
        if let messenger { messenger.destroy(instance, messenger.handle, nil) }
        instanceCommands.vkDestroyInstance(instance, nil)
    }

    /// Where validation messages collect (nil without validation); it outlives the context for
    /// whoever holds it, so messages about the context's own teardown can be read too.
    var validationLog: ValidationLog? { messenger?.log }

    /// The validation messages collected since the last call (always empty without validation).
    func takeValidationMessages() -> [String] {
        validationLog?.take() ?? []
    }

    /// Throws `VulkanError.validation` with the messages collected since the last call, if any.
    func checkValidation() throws {
        let messages = takeValidationMessages()
        guard messages.isEmpty else { throw VulkanError.validation(messages) }
    }

    /// Runs `body` on the device: refused at once when the device was lost, and the device marked
    /// lost when `body` finds it so. A lost device stays lost whatever later calls would return,
    /// and contents made on it are drawn as missing by renderers on the device that replaces it.
    func onDevice<Result>(_ body: () throws -> Result) throws -> Result {
        if let lostWhile { throw VulkanError.deviceLost(while: lostWhile) }
        do {
            return try body()
        } catch VulkanError.deviceLost(let function) {
            lostWhile = function
            throw VulkanError.deviceLost(while: function)
        }
    }

    /// A primary command buffer from the context's pool; its owner frees it.
    func makeCommandBuffer() throws -> VkCommandBuffer {
        var info = VkCommandBufferAllocateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        info.commandPool = commandPool
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        info.commandBufferCount = 1
        var commandBuffer: VkCommandBuffer?
        try check(commands.vkAllocateCommandBuffers(device, &info, &commandBuffer), "vkAllocateCommandBuffers")
        return commandBuffer!
    }

    /// The first memory type allowed by `bits` (a `VkMemoryRequirements.memoryTypeBits`) that has
    /// all of `properties`.
    func memoryTypeIndex(bits: UInt32, properties: VkMemoryPropertyFlags) throws -> UInt32 {
        let types = withUnsafeBytes(of: memoryProperties.memoryTypes) { Array($0.bindMemory(to: VkMemoryType.self)) }
        for index in 0..<Int(memoryProperties.memoryTypeCount)
        where bits & (1 << index) != 0 && types[index].propertyFlags & properties == properties {
            return UInt32(index)
        }
        throw VulkanError.noSuitableDevice(
            "no memory type among bits 0x\(String(bits, radix: 16)) has properties 0x\(String(properties, radix: 16))")
    }

    /// Allocates memory for `requirements`, of a type with `preferred` properties when one exists and
    /// otherwise of one with `required` properties.
    func allocateMemory(
        _ requirements: VkMemoryRequirements, preferred: VkMemoryPropertyFlags = 0, required: VkMemoryPropertyFlags
    ) throws -> VkDeviceMemory {
        let type =
            try (try? memoryTypeIndex(bits: requirements.memoryTypeBits, properties: preferred | required))
            ?? memoryTypeIndex(bits: requirements.memoryTypeBits, properties: required)
        var info = VkMemoryAllocateInfo()
        info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        info.allocationSize = requirements.size
        info.memoryTypeIndex = type
        var memory: VkDeviceMemory?
        try check(commands.vkAllocateMemory(device, &info, nil, &memory), "vkAllocateMemory")
        liveMemoryAllocations += 1
        return memory!
    }

    /// Counts memory allocated elsewhere than `allocateMemory` (an import), which `freeMemory` frees.
    func countAllocation() {
        liveMemoryAllocations += 1
    }

    func freeMemory(_ memory: VkDeviceMemory) {
        commands.vkFreeMemory(device, memory, nil)
        liveMemoryAllocations -= 1
    }

    /// How many physical devices the loader finds (0 when no driver is installed), for callers that
    /// must tell "no Vulkan here" apart from a failure.
    static func physicalDeviceCount() -> Int {
        guard let (instance, instanceCommands) = try? makeInstance(validationLog: nil) else { return 0 }
        defer { instanceCommands.vkDestroyInstance(instance, nil) }
        let devices: [VkPhysicalDevice?] =
            (try? enumerate("vkEnumeratePhysicalDevices") {
                instanceCommands.vkEnumeratePhysicalDevices(instance, $0, $1)
            }) ?? []
        return devices.count
    }

    // MARK: - Creation steps

    /// The messenger settings: errors and warnings of every type, into `log`.
    private static func messengerInfo(log: ValidationLog) -> VkDebugUtilsMessengerCreateInfoEXT {
        var info = VkDebugUtilsMessengerCreateInfoEXT()
        info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
        info.messageSeverity = VkDebugUtilsMessageSeverityFlagsEXT(
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue
                | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT.rawValue)
        info.messageType = VkDebugUtilsMessageTypeFlagsEXT(
            VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT.rawValue
                | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT.rawValue
                | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT.rawValue)
        info.pfnUserCallback = debugCallback
        // Unretained: the context keeps the log alive for as long as the messenger exists.
        info.pUserData = Unmanaged.passUnretained(log).toOpaque()
        return info
    }

    /// An instance for Vulkan 1.3 without window-system extensions; with a log, the validation layer
    /// and debug utils are enabled, and the messenger settings ride along in `pNext` so that
    /// messages about instance creation and destruction are caught too.
    private static func makeInstance(validationLog log: ValidationLog?) throws -> (VkInstance, VulkanInstanceCommands) {
        let global = try VulkanLoader.globalCommands()
        var layers: [String] = []
        var extensions: [String] = []
        if log != nil {
            let available: [VkLayerProperties] = try enumerate("vkEnumerateInstanceLayerProperties") {
                global.vkEnumerateInstanceLayerProperties($0, $1)
            }
            guard available.contains(where: { string(fromCArray: $0.layerName) == validationLayer }) else {
                throw VulkanError.missingExtension(validationLayer)
            }
            let availableExtensions: [VkExtensionProperties] = try enumerate("vkEnumerateInstanceExtensionProperties") {
                global.vkEnumerateInstanceExtensionProperties(nil, $0, $1)
            }
            guard availableExtensions.contains(where: { string(fromCArray: $0.extensionName) == "VK_EXT_debug_utils" })
            else {
                throw VulkanError.missingExtension("VK_EXT_debug_utils")
            }
            layers = [validationLayer]
            extensions = ["VK_EXT_debug_utils"]
        }
        return try withCallArena { arena in
            var application = VkApplicationInfo()
            application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO
            application.pApplicationName = arena.cString("Vitrine")
            application.pEngineName = arena.cString("Vitrine")
            application.apiVersion = vulkanAPIVersion1_3
            var info = VkInstanceCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
            info.pNext = log.map { UnsafeRawPointer(arena.pointer(to: messengerInfo(log: $0))) }
            info.pApplicationInfo = UnsafePointer(arena.pointer(to: application))
            info.enabledLayerCount = UInt32(layers.count)
            info.ppEnabledLayerNames = arena.cStrings(layers)
            info.enabledExtensionCount = UInt32(extensions.count)
            info.ppEnabledExtensionNames = arena.cStrings(extensions)
            var instance: VkInstance?
            let result = global.vkCreateInstance(&info, nil, &instance)
            if result == VK_ERROR_INCOMPATIBLE_DRIVER {
                throw VulkanError.noSuitableDevice("the Vulkan loader found no driver" + loaderDriverSettings())
            }
            try check(result, "vkCreateInstance")
            do {
                return (instance!, try VulkanLoader.instanceCommands(for: instance!))
            } catch {
                // Found alone where the instance's table could not be filled.
                global.vkGetInstanceProcAddr(instance, "vkDestroyInstance")
                    .flatMap { unsafeBitCast($0, to: PFN_vkDestroyInstance.self) }?(instance, nil)
                throw error
            }
        }
    }

    /// The loader's variables that choose which drivers it loads, as they are set (the likeliest
    /// reason it found none besides no driver being installed), or a hint at the package.
    private static func loaderDriverSettings() -> String {
        let names = ["VK_LOADER_DRIVERS_SELECT", "VK_LOADER_DRIVERS_DISABLE", "VK_DRIVER_FILES", "VK_ICD_FILENAMES"]
        let set = names.compactMap { name in getenv(name).map { "\(name)=\(String(cString: $0))" } }
        return set.isEmpty ? " (is a driver installed? mesa-vulkan-drivers has lavapipe)" : " with \(set.joined(separator: ", "))"
    }

    private static func makeMessenger(instance: VkInstance, log: ValidationLog) throws -> Messenger {
        let getInstanceProcAddr = try VulkanLoader.globalCommands().vkGetInstanceProcAddr
        guard let create = getInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"),
            let destroy = getInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT")
        else { throw VulkanError.missingExtension("VK_EXT_debug_utils") }
        let createMessenger = unsafeBitCast(create, to: PFN_vkCreateDebugUtilsMessengerEXT.self)
        var info = messengerInfo(log: log)
        var handle: VkDebugUtilsMessengerEXT?
        try check(createMessenger(instance, &info, nil, &handle), "vkCreateDebugUtilsMessengerEXT")
        return Messenger(
            handle: handle!, destroy: unsafeBitCast(destroy, to: PFN_vkDestroyDebugUtilsMessengerEXT.self), log: log)
    }

    /// A physical device with what the renderer needs of it.
    private struct PhysicalDeviceChoice {
        let handle: VkPhysicalDevice
        let queueFamilyIndex: UInt32
        let extensions: Set<String>
    }

    /// The device whose DRM render node matches `preferredDRMRenderNode` when there is one, and
    /// otherwise the first device, in enumeration order, that can run the renderer.
    private static func choosePhysicalDevice(
        instance: VkInstance, instanceCommands: VulkanInstanceCommands, preferredDRMRenderNode: String?
    ) throws
        -> PhysicalDeviceChoice
    {
        let devices: [VkPhysicalDevice?] = try enumerate("vkEnumeratePhysicalDevices") {
            instanceCommands.vkEnumeratePhysicalDevices(instance, $0, $1)
        }
        guard !devices.isEmpty else {
            throw VulkanError.noSuitableDevice("the Vulkan loader found no physical device" + loaderDriverSettings())
        }
        var candidates = devices.compactMap { $0 }
        if let node = preferredDRMRenderNode, let number = renderNodeNumber(path: node),
            let match = candidates.firstIndex(where: { renderNode(of: $0, instanceCommands: instanceCommands) == number })
        {
            candidates.insert(candidates.remove(at: match), at: 0)
        }
        var firstProblem: Error?
        for candidate in candidates {
            do {
                return try suitability(of: candidate, instanceCommands: instanceCommands)
            } catch {
                firstProblem = firstProblem ?? error
            }
        }
        throw firstProblem!
    }

    /// `minImportedHostPointerAlignment` of a device with `VK_EXT_external_memory_host`.
    private static func hostPointerAlignment(of device: VkPhysicalDevice, instanceCommands: VulkanInstanceCommands) -> Int {
        var host = VkPhysicalDeviceExternalMemoryHostPropertiesEXT()
        host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT
        return withUnsafeMutablePointer(to: &host) { host in
            var properties = VkPhysicalDeviceProperties2()
            properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(host)
            instanceCommands.vkGetPhysicalDeviceProperties2(device, &properties)
            return Int(host.pointee.minImportedHostPointerAlignment)
        }
    }

    /// A device file's major and minor numbers.
    private struct DeviceNumber: Equatable {
        let major: Int64
        let minor: Int64
    }

    /// The major and minor numbers of the device file at `path`, or nil when it is not one.
    private static func renderNodeNumber(path: String) -> DeviceNumber? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFCHR else { return nil }
        // glibc's major()/minor() are macros Swift cannot import; this is their definition.
        let device = UInt64(status.st_rdev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
        let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
        return DeviceNumber(major: Int64(major), minor: Int64(minor))
    }

    /// The render node a device reports through `VK_EXT_physical_device_drm`, if it has one.
    private static func renderNode(of device: VkPhysicalDevice, instanceCommands: VulkanInstanceCommands) -> DeviceNumber? {
        guard let extensions = try? deviceExtensions(device, instanceCommands: instanceCommands), extensions.contains("VK_EXT_physical_device_drm") else {
            return nil
        }
        var drm = VkPhysicalDeviceDrmPropertiesEXT()
        drm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRM_PROPERTIES_EXT
        return withUnsafeMutablePointer(to: &drm) { drm in
            var properties = VkPhysicalDeviceProperties2()
            properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
            properties.pNext = UnsafeMutableRawPointer(drm)
            instanceCommands.vkGetPhysicalDeviceProperties2(device, &properties)
            guard drm.pointee.hasRender == VkBool32(VK_TRUE) else { return nil }
            return DeviceNumber(major: drm.pointee.renderMajor, minor: drm.pointee.renderMinor)
        }
    }

    private static func deviceExtensions(_ device: VkPhysicalDevice, instanceCommands: VulkanInstanceCommands) throws -> Set<String> {
        let properties: [VkExtensionProperties] = try enumerate("vkEnumerateDeviceExtensionProperties") {
            instanceCommands.vkEnumerateDeviceExtensionProperties(device, nil, $0, $1)
        }
        return Set(properties.map { string(fromCArray: $0.extensionName) })
    }

    /// Checks that `device` offers Vulkan 1.3 with dynamic rendering, synchronization2 and timeline
    /// semaphores, push descriptors, and a graphics queue.
    private static func suitability(of device: VkPhysicalDevice, instanceCommands: VulkanInstanceCommands) throws -> PhysicalDeviceChoice {
        var properties = VkPhysicalDeviceProperties()
        instanceCommands.vkGetPhysicalDeviceProperties(device, &properties)
        let name = string(fromCArray: properties.deviceName)
        guard properties.apiVersion >= vulkanAPIVersion1_3 else {
            throw VulkanError.noSuitableDevice(
                "\(name) supports Vulkan \(properties.apiVersion >> 22).\((properties.apiVersion >> 12) & 0x3ff), not 1.3"
            )
        }
        let extensions = try deviceExtensions(device, instanceCommands: instanceCommands)
        guard extensions.contains("VK_KHR_push_descriptor") else {
            throw VulkanError.missingExtension("VK_KHR_push_descriptor")
        }
        var features13 = VkPhysicalDeviceVulkan13Features()
        features13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES
        var features12 = VkPhysicalDeviceVulkan12Features()
        features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
        withUnsafeMutablePointer(to: &features13) { features13 in
            features12.pNext = UnsafeMutableRawPointer(features13)
            withUnsafeMutablePointer(to: &features12) { features12 in
                var features = VkPhysicalDeviceFeatures2()
                features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
                features.pNext = UnsafeMutableRawPointer(features12)
                instanceCommands.vkGetPhysicalDeviceFeatures2(device, &features)
            }
        }
        let truth = VkBool32(VK_TRUE)
        guard features13.dynamicRendering == truth, features13.synchronization2 == truth,
            features12.timelineSemaphore == truth
        else {
            throw VulkanError.noSuitableDevice("\(name) lacks dynamicRendering, synchronization2 or timelineSemaphore")
        }
        let families: [VkQueueFamilyProperties] = try enumerate("vkGetPhysicalDeviceQueueFamilyProperties") {
            instanceCommands.vkGetPhysicalDeviceQueueFamilyProperties(device, $0, $1)
            return VK_SUCCESS
        }
        guard
            let family = families.firstIndex(where: {
                $0.queueFlags & VkQueueFlags(VK_QUEUE_GRAPHICS_BIT.rawValue) != 0
            })
        else {
            throw VulkanError.noSuitableDevice("\(name) has no graphics queue")
        }
        return PhysicalDeviceChoice(handle: device, queueFamilyIndex: UInt32(family), extensions: extensions)
    }

    /// A device with one graphics queue, the 1.2/1.3 features the renderer uses, and `extensions`.
    private static func makeDevice(
        _ physicalDevice: VkPhysicalDevice, queueFamilyIndex: UInt32, extensions: [String], instanceCommands: VulkanInstanceCommands
    ) throws -> VkDevice
    {
        return try withCallArena { arena in
            var features13 = VkPhysicalDeviceVulkan13Features()
            features13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES
            features13.dynamicRendering = VkBool32(VK_TRUE)
            features13.synchronization2 = VkBool32(VK_TRUE)
            var features12 = VkPhysicalDeviceVulkan12Features()
            features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES
            features12.pNext = UnsafeMutableRawPointer(arena.pointer(to: features13))
            features12.timelineSemaphore = VkBool32(VK_TRUE)
            var features = VkPhysicalDeviceFeatures2()
            features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2
            features.pNext = UnsafeMutableRawPointer(arena.pointer(to: features12))

            var queueInfo = VkDeviceQueueCreateInfo()
            queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
            queueInfo.queueFamilyIndex = queueFamilyIndex
            queueInfo.queueCount = 1
            queueInfo.pQueuePriorities = UnsafePointer(arena.pointer(to: Float(1)))

            var info = VkDeviceCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
            info.pNext = UnsafeRawPointer(arena.pointer(to: features))
            info.queueCreateInfoCount = 1
            info.pQueueCreateInfos = UnsafePointer(arena.pointer(to: queueInfo))
            info.enabledExtensionCount = UInt32(extensions.count)
            info.ppEnabledExtensionNames = arena.cStrings(extensions)
            var device: VkDevice?
            try check(instanceCommands.vkCreateDevice(physicalDevice, &info, nil, &device), "vkCreateDevice")
            return device!
        }
    }
}
