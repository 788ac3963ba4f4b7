internal import CVulkan
import Glibc
import SystemCalls

/// A buffer over memory Vulkan did not allocate: host memory the caller owns (a dumb buffer's
/// mapping, which frames are copied into with no staging buffer and no CPU copy, kept mapped by
/// the caller for as long as the import lives) or a dma-buf (a client's, which copies read from;
/// a display's, which frames are copied into). When the buffer goes, it waits for the last
/// submission that used it, then releases the import.
final class ImportedBuffer {
    let context: VulkanContext
    let handle: VkBuffer
    let size: Int
    private let memory: VkDeviceMemory
    /// The last submission that used the memory.
    var lastUse: TimelinePoint?
    /// The sync_file of the last frame written into the memory, where the device exports them,
    /// until that frame's completion takes it.
    var renderFence: OwnedFileDescriptor?

    /// A buffer of `size` bytes for `usage` bound to memory that `importMemory` imports with
    /// `handleType` (as a type of `memoryTypeBits`, the types the import can be). Nil when the
    /// buffer needs more, or memory of another type, than the import gives.
    private init?(
        context: VulkanContext, size: Int, usage: VkBufferUsageFlagBits, handleType: VkExternalMemoryHandleTypeFlagBits,
        memoryTypeBits: UInt32, importMemory: (UInt32) throws -> VkDeviceMemory
    ) throws {
        var external = VkExternalMemoryBufferCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO
        external.handleTypes = VkExternalMemoryHandleTypeFlags(handleType.rawValue)
        var buffer: VkBuffer?
        try withUnsafePointer(to: &external) { external in
            var info = VkBufferCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
            info.pNext = UnsafeRawPointer(external)
            info.size = VkDeviceSize(size)
            info.usage = VkBufferUsageFlags(usage.rawValue)
            info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
            try check(context.commands.vkCreateBuffer(context.device, &info, nil, &buffer), "vkCreateBuffer (imported memory)")
        }
        var memory: VkDeviceMemory?
        defer {
            if memory == nil { context.commands.vkDestroyBuffer(context.device, buffer, nil) }
        }
        var requirements = VkMemoryRequirements()
        context.commands.vkGetBufferMemoryRequirements(context.device, buffer, &requirements)
        guard requirements.size <= VkDeviceSize(size),
            let type = try? context.memoryTypeIndex(bits: requirements.memoryTypeBits & memoryTypeBits, properties: 0)
        else { return nil }
        memory = try importMemory(type)
        guard context.commands.vkBindBufferMemory(context.device, buffer, memory, 0) == VK_SUCCESS else {
            context.freeMemory(memory!)
            memory = nil
            return nil
        }
        self.context = context
        handle = buffer!
        self.memory = memory!
        self.size = size
    }

    deinit {
        // Only a device that failed leaves the wait unfinished; the memory is released regardless.
        try? lastUse?.wait()
        context.commands.vkDestroyBuffer(context.device, handle, nil)
        context.freeMemory(memory)
    }

    /// Imports `size` bytes at `pointer` as a transfer destination (`VK_EXT_external_memory_host`),
    /// or returns nil when the device cannot: no extension, an address or size off the device's
    /// alignment, or no memory type that takes the pointer.
    static func hostMemory(context: VulkanContext, pointer: UnsafeMutableRawPointer, size: Int) throws -> ImportedBuffer? {
        let handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
        guard let alignment = context.hostPointerAlignment, let properties = context.getMemoryHostPointerProperties,
            size > 0, Int(bitPattern: pointer) % alignment == 0, size % alignment == 0
        else { return nil }
        var pointerProperties = VkMemoryHostPointerPropertiesEXT()
        pointerProperties.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT
        guard properties(context.device, handleType, pointer, &pointerProperties) == VK_SUCCESS else { return nil }
        return try ImportedBuffer(
            context: context, size: size, usage: VK_BUFFER_USAGE_TRANSFER_DST_BIT, handleType: handleType,
            memoryTypeBits: pointerProperties.memoryTypeBits
        ) { type in try context.importHostMemory(pointer, size: size, memoryTypeIndex: type) }
    }

    /// What an imported dma-buf is for: copies read from it (a client's buffer) or write into it
    /// (a display's buffer that frames are drawn into).
    enum Direction {
        case source, destination
    }

    /// Imports the `size` bytes of the dma-buf behind `fileDescriptor` as a transfer source or
    /// destination (`VK_EXT_external_memory_dma_buf`). The import takes a duplicate of the
    /// descriptor (Vulkan owns it once the import succeeds), so the caller's stays the caller's.
    static func dmabuf(context: VulkanContext, fileDescriptor: Int32, size: Int, usage: Direction = .source) throws -> ImportedBuffer {
        guard let getProperties = context.getMemoryFdProperties else {
            throw VulkanError.missingExtension("VK_EXT_external_memory_dma_buf")
        }
        let handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
        var fdProperties = VkMemoryFdPropertiesKHR()
        fdProperties.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR
        try check(getProperties(context.device, handleType, fileDescriptor, &fdProperties), "vkGetMemoryFdPropertiesKHR")
        let imported = try ImportedBuffer(
            context: context, size: size, usage: usage == .source ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            handleType: handleType, memoryTypeBits: fdProperties.memoryTypeBits
        ) { type in try context.importDmabufMemory(fileDescriptor, size: size, memoryTypeIndex: type) }
        guard let imported else { throw VulkanError.dmabufUnusable(size: size) }
        return imported
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
        return try allocateImported(&importInfo, size: size, memoryTypeIndex: memoryTypeIndex, what: "host pointer")
    }

    /// Memory of type `memoryTypeIndex` holding the dma-buf behind a duplicate of `fileDescriptor`,
    /// counted with the other allocations (`freeMemory` releases it); a dedicated allocation of
    /// `dedicatedTo` where given (an image whose format needs one).
    func importDmabufMemory(
        _ fileDescriptor: Int32, size: Int, memoryTypeIndex: UInt32, dedicatedTo image: VkImage? = nil
    ) throws -> VkDeviceMemory {
        let fd = fcntl(fileDescriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw VulkanError.descriptor(.current("fcntl(F_DUPFD_CLOEXEC)")) }
        let duplicate = OwnedFileDescriptor(rawValue: fd)
        var dedicated = VkMemoryDedicatedAllocateInfo()
        dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO
        dedicated.image = image
        var importInfo = VkImportMemoryFdInfoKHR()
        importInfo.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR
        importInfo.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
        importInfo.fd = duplicate.rawValue
        do {
            let memory = try withUnsafePointer(to: &dedicated) { dedicated in
                importInfo.pNext = image == nil ? nil : UnsafeRawPointer(dedicated)
                return try allocateImported(&importInfo, size: size, memoryTypeIndex: memoryTypeIndex, what: "dma-buf")
            }
            // The memory owns the descriptor from now on.
            _ = duplicate.take()
            return memory
        } catch {
            releaseAfterFailedImport(duplicate, of: fileDescriptor)
            throw error
        }
    }

    /// `vkAllocateMemory` of `size` bytes of type `memoryTypeIndex` with `importInfo` (a
    /// `VkImportMemory…Info` structure) chained, counted with the other allocations.
    private func allocateImported<Info>(
        _ importInfo: inout Info, size: Int, memoryTypeIndex: UInt32, what: String
    ) throws -> VkDeviceMemory {
        var memory: VkDeviceMemory?
        try withUnsafePointer(to: &importInfo) { importInfo in
            var info = VkMemoryAllocateInfo()
            info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
            info.pNext = UnsafeRawPointer(importInfo)
            info.allocationSize = VkDeviceSize(size)
            info.memoryTypeIndex = memoryTypeIndex
            try check(commands.vkAllocateMemory(device, &info, nil, &memory), "vkAllocateMemory (\(what))")
        }
        countAllocation()
        return memory!
    }
}

/// Closes the duplicate a failed dma-buf import was given, unless the driver already has. The
/// specification leaves it with the caller, but lavapipe (Mesa 25.0) closes it on failure, and
/// by then its number may name another descriptor of this process (another test's socket, another
/// client's connection), which must stay open. So the duplicate is closed only while it still
/// names the caller's file; imports run on one thread, so no other descriptor of that file can
/// take the number meanwhile.
func releaseAfterFailedImport(_ duplicate: OwnedFileDescriptor, of original: Int32) {
    var imported = stat()
    var caller = stat()
    guard fstat(duplicate.rawValue, &imported) == 0, fstat(original, &caller) == 0,
        imported.st_dev == caller.st_dev, imported.st_ino == caller.st_ino
    else {
        // The driver closed it: the number is no longer this import's to close.
        _ = duplicate.take()
        return
    }
    duplicate.close()
}
