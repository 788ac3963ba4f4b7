internal import CVulkan

/// Host memory the caller owns (a dumb buffer's mapping, say) as a transfer destination, through
/// `VK_EXT_external_memory_host`: the GPU copies into it with no staging buffer and no CPU copy.
/// `owner` keeps the memory mapped for the buffer's life; when the buffer goes, it waits for the
/// last frame that copied into it, then releases the import and the owner.
final class ImportedHostBuffer {
    let context: VulkanContext
    let handle: VkBuffer
    let size: Int
    private let memory: VkDeviceMemory
    private let owner: AnyObject?
    /// The last submission that copied into the memory.
    var lastUse: TimelinePoint?

    /// Imports `size` bytes at `pointer`, or returns nil when the device cannot: no extension,
    /// an address or size off the device's alignment, or no memory type that takes the pointer.
    init?(context: VulkanContext, pointer: UnsafeMutableRawPointer, size: Int, owner: AnyObject?) throws {
        let handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
        guard let alignment = context.hostPointerAlignment, let properties = context.getMemoryHostPointerProperties,
            size > 0, Int(bitPattern: pointer) % alignment == 0, size % alignment == 0
        else { return nil }
        var pointerProperties = VkMemoryHostPointerPropertiesEXT()
        pointerProperties.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT
        guard properties(context.device, handleType, pointer, &pointerProperties) == VK_SUCCESS else { return nil }

        var external = VkExternalMemoryBufferCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO
        external.handleTypes = VkExternalMemoryHandleTypeFlags(handleType.rawValue)
        var buffer: VkBuffer?
        try withUnsafePointer(to: &external) { external in
            var info = VkBufferCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
            info.pNext = UnsafeRawPointer(external)
            info.size = VkDeviceSize(size)
            info.usage = VkBufferUsageFlags(VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue)
            info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
            try check(vkCreateBuffer(context.device, &info, nil, &buffer), "vkCreateBuffer (host memory)")
        }
        var requirements = VkMemoryRequirements()
        vkGetBufferMemoryRequirements(context.device, buffer, &requirements)
        let bits = requirements.memoryTypeBits & pointerProperties.memoryTypeBits
        guard requirements.size <= VkDeviceSize(size),
            let type = try? context.memoryTypeIndex(bits: bits, properties: 0)
        else {
            vkDestroyBuffer(context.device, buffer, nil)
            return nil
        }
        guard let memory = try? context.importHostMemory(pointer, size: size, memoryTypeIndex: type) else {
            vkDestroyBuffer(context.device, buffer, nil)
            return nil
        }
        guard vkBindBufferMemory(context.device, buffer, memory, 0) == VK_SUCCESS else {
            vkDestroyBuffer(context.device, buffer, nil)
            context.freeMemory(memory)
            return nil
        }
        self.context = context
        handle = buffer!
        self.memory = memory
        self.size = size
        self.owner = owner
    }

    deinit {
        // Only a device that failed leaves the wait unfinished; the memory is released regardless.
        try? lastUse?.wait()
        vkDestroyBuffer(context.device, handle, nil)
        context.freeMemory(memory)
    }
}

extension VulkanContext {
    /// Memory of type `memoryTypeIndex` backed by the host allocation at `pointer`, counted with
    /// the other allocations (`freeMemory` releases it).
    func importHostMemory(_ pointer: UnsafeMutableRawPointer, size: Int, memoryTypeIndex: UInt32) throws -> VkDeviceMemory {
        var importInfo = VkImportMemoryHostPointerInfoEXT()
        importInfo.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT
        importInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
        importInfo.pHostPointer = pointer
        var memory: VkDeviceMemory?
        try withUnsafePointer(to: &importInfo) { importInfo in
            var info = VkMemoryAllocateInfo()
            info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
            info.pNext = UnsafeRawPointer(importInfo)
            info.allocationSize = VkDeviceSize(size)
            info.memoryTypeIndex = memoryTypeIndex
            try check(vkAllocateMemory(device, &info, nil, &memory), "vkAllocateMemory (host pointer)")
        }
        countAllocation()
        return memory!
    }
}
