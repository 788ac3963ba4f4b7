internal import CVulkan
import Glibc

/// A client's dma-buf as a transfer source: its memory imported through
/// `VK_EXT_external_memory_dma_buf` and bound to a buffer that copies read rows from.
///
/// The import takes a duplicate of the descriptor (Vulkan owns it once the import succeeds), so
/// the caller's stays the caller's.
final class ImportedDmabuf {
    let context: VulkanContext
    let handle: VkBuffer
    let size: Int
    private let memory: VkDeviceMemory
    /// The last submission that read the memory.
    var lastUse: TimelinePoint?

    /// Imports the `size` bytes behind `fileDescriptor`.
    init(context: VulkanContext, fileDescriptor: Int32, size: Int) throws {
        guard let getProperties = context.getMemoryFdProperties else {
            throw VulkanError.missingExtension("VK_EXT_external_memory_dma_buf")
        }
        let handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
        var fdProperties = VkMemoryFdPropertiesKHR()
        fdProperties.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR
        try check(getProperties(context.device, handleType, fileDescriptor, &fdProperties), "vkGetMemoryFdPropertiesKHR")

        var external = VkExternalMemoryBufferCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO
        external.handleTypes = VkExternalMemoryHandleTypeFlags(handleType.rawValue)
        var buffer: VkBuffer?
        try withUnsafePointer(to: &external) { external in
            var info = VkBufferCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
            info.pNext = UnsafeRawPointer(external)
            info.size = VkDeviceSize(size)
            info.usage = VkBufferUsageFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue)
            info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
            try check(vkCreateBuffer(context.device, &info, nil, &buffer), "vkCreateBuffer (dma-buf)")
        }
        var memory: VkDeviceMemory?
        defer {
            if memory == nil { vkDestroyBuffer(context.device, buffer, nil) }
        }
        var requirements = VkMemoryRequirements()
        vkGetBufferMemoryRequirements(context.device, buffer, &requirements)
        guard requirements.size <= VkDeviceSize(size) else {
            throw VulkanError.dmabufTooSmall(size: size, needed: Int(requirements.size))
        }
        let type = try context.memoryTypeIndex(bits: requirements.memoryTypeBits & fdProperties.memoryTypeBits, properties: 0)
        memory = try context.importDmabufMemory(fileDescriptor, size: size, memoryTypeIndex: type)
        do {
            try check(vkBindBufferMemory(context.device, buffer, memory, 0), "vkBindBufferMemory (dma-buf)")
        } catch {
            context.freeMemory(memory!)
            memory = nil
            throw error
        }
        self.context = context
        handle = buffer!
        self.memory = memory!
        self.size = size
    }

    deinit {
        // Only a device that failed leaves the wait unfinished; the memory is released regardless.
        try? lastUse?.wait()
        vkDestroyBuffer(context.device, handle, nil)
        context.freeMemory(memory)
    }
}

extension VulkanContext {
    /// Memory of type `memoryTypeIndex` holding the dma-buf behind a duplicate of `fileDescriptor`,
    /// counted with the other allocations (`freeMemory` releases it).
    func importDmabufMemory(_ fileDescriptor: Int32, size: Int, memoryTypeIndex: UInt32) throws -> VkDeviceMemory {
        let duplicate = fcntl(fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw VulkanError.descriptor(errno: errno) }
        var importInfo = VkImportMemoryFdInfoKHR()
        importInfo.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR
        importInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
        importInfo.fd = duplicate
        var memory: VkDeviceMemory?
        do {
            try withUnsafePointer(to: &importInfo) { importInfo in
                var info = VkMemoryAllocateInfo()
                info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
                info.pNext = UnsafeRawPointer(importInfo)
                info.allocationSize = VkDeviceSize(size)
                info.memoryTypeIndex = memoryTypeIndex
                try check(vkAllocateMemory(device, &info, nil, &memory), "vkAllocateMemory (dma-buf)")
            }
        } catch {
            // A failed import leaves the descriptor with the caller, here the duplicate.
            close(duplicate)
            throw error
        }
        countAllocation()
        return memory!
    }
}
