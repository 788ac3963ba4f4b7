internal import CVulkan

/// A buffer in host-visible, host-coherent memory, mapped for its whole life: what the CPU writes
/// is seen by the next submission, and what the GPU wrote is seen after waiting for it, without
/// flushes or invalidations.
final class GPUBuffer {
    let context: VulkanContext
    let handle: VkBuffer
    let size: Int
    let usage: VkBufferUsageFlags
    /// The mapped memory, `size` bytes.
    let contents: UnsafeMutableRawPointer
    private let memory: VkDeviceMemory

    /// `cached` asks for host-cached memory where the device has it coherent too, which makes CPU
    /// reads (readback) fast; CPU-written buffers do better uncached (write-combined).
    init(context: VulkanContext, size: Int, usage: VkBufferUsageFlags, cached: Bool = false) throws {
        precondition(size > 0, "a Vulkan buffer needs at least one byte")
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(size)
        info.usage = usage
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        try check(context.commands.vkCreateBuffer(context.device, &info, nil, &buffer), "vkCreateBuffer")
        var memory: VkDeviceMemory?
        var succeeded = false
        defer {
            if !succeeded {
                if let memory { context.freeMemory(memory) }
                context.commands.vkDestroyBuffer(context.device, buffer, nil)
            }
        }
        var requirements = VkMemoryRequirements()
        context.commands.vkGetBufferMemoryRequirements(context.device, buffer, &requirements)
        let hostVisible = VkMemoryPropertyFlags(
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue)
        memory = try context.allocateMemory(
            requirements, preferred: cached ? VkMemoryPropertyFlags(VK_MEMORY_PROPERTY_HOST_CACHED_BIT.rawValue) : 0,
            required: hostVisible)
        try check(context.commands.vkBindBufferMemory(context.device, buffer, memory, 0), "vkBindBufferMemory")
        var mapped: UnsafeMutableRawPointer?
        try check(context.commands.vkMapMemory(context.device, memory, 0, VkDeviceSize(VK_WHOLE_SIZE), 0, &mapped), "vkMapMemory")
        self.context = context
        handle = buffer!
        self.memory = memory!
        self.size = size
        self.usage = usage
        contents = mapped!
        succeeded = true
    }

    deinit {
        // Freeing mapped memory unmaps it implicitly.
        context.commands.vkDestroyBuffer(context.device, handle, nil)
        context.freeMemory(memory)
    }
}
