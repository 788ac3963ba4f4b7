internal import CVulkan
import Dispatch

/// A timeline semaphore whose value counts finished submissions: submission `n` signals `n`, so
/// waiting for one frame is waiting for one value, and a later value implies every earlier one.
final class TimelineSemaphore {
    let context: VulkanContext
    let handle: VkSemaphore
    /// The value the most recent successful submission signals (0 before any).
    private(set) var lastSubmittedValue: UInt64 = 0
    /// Waits for this semaphore on other threads (`CompletionWaiter`), which must end before it goes.
    let hostWaits = DispatchGroup()
    /// Whether a submission of another timeline waited on this one (a frame sampling a drawable).
    private(set) var isWaitedOnByQueue = false

    init(context: VulkanContext) throws {
        var type = VkSemaphoreTypeCreateInfo()
        type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE
        type.initialValue = 0
        var semaphore: VkSemaphore?
        try withUnsafePointer(to: &type) { type in
            var info = VkSemaphoreCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
            info.pNext = UnsafeRawPointer(type)
            try check(context.commands.vkCreateSemaphore(context.device, &info, nil, &semaphore), "vkCreateSemaphore")
        }
        self.context = context
        handle = semaphore!
    }

    deinit {
        // Destroying a semaphore that a pending submission signals or waits on, or that a thread
        // waits on, is invalid; this waits for this timeline's own submissions and their waiters.
        try? wait(for: lastSubmittedValue)
        // A submission that waited on it can be seen done (its own timeline reached) before the
        // queue has let go of its wait: lavapipe's submit thread releases the waits after it
        // signals, and a semaphore destroyed in between is written after it is freed. Only an
        // idle queue has let go of every submission (the queue is the renderer's thread's, as this is).
        if isWaitedOnByQueue { _ = context.commands.vkQueueWaitIdle(context.queue) }
        hostWaits.wait()
        context.commands.vkDestroySemaphore(context.device, handle, nil)
    }

    /// The value the next submission should signal.
    var nextValue: UInt64 { lastSubmittedValue + 1 }

    /// Records that a submission accepted by the queue waits on the semaphore.
    func didSubmitWait() {
        isWaitedOnByQueue = true
    }

    /// Records that a submission signalling `nextValue` was accepted by the queue.
    func didSubmitNextValue() -> TimelinePoint {
        lastSubmittedValue += 1
        return TimelinePoint(timeline: self, value: lastSubmittedValue)
    }

    /// The value the GPU has reached: every submission up to it is done.
    func reachedValue() throws -> UInt64 {
        var value: UInt64 = 0
        try check(context.commands.vkGetSemaphoreCounterValue(context.device, handle, &value), "vkGetSemaphoreCounterValue")
        return value
    }

    /// Blocks until the semaphore reaches `value`.
    func wait(for value: UInt64) throws {
        guard value > 0 else { return }
        var value = value
        var semaphore: VkSemaphore? = handle
        var info = VkSemaphoreWaitInfo()
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO
        info.semaphoreCount = 1
        try withUnsafePointer(to: &semaphore) { semaphore in
            try withUnsafePointer(to: &value) { value in
                info.pSemaphores = semaphore
                info.pValues = value
                try check(context.commands.vkWaitSemaphores(context.device, &info, UInt64.max), "vkWaitSemaphores")
            }
        }
    }
}

/// One submission: done once its timeline reaches its value.
struct TimelinePoint {
    let timeline: TimelineSemaphore
    let value: UInt64

    func wait() throws {
        try timeline.wait(for: value)
    }
}

extension VulkanDeviceCommands {
    /// Records one `vkCmdPipelineBarrier2` with the given barriers.
    func pipelineBarrier(
        _ commandBuffer: VkCommandBuffer, images: [VkImageMemoryBarrier2] = [], buffers: [VkBufferMemoryBarrier2] = []
    ) {
        images.withUnsafeBufferPointer { images in
            buffers.withUnsafeBufferPointer { buffers in
                var dependency = VkDependencyInfo()
                dependency.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO
                dependency.imageMemoryBarrierCount = UInt32(images.count)
                dependency.pImageMemoryBarriers = images.baseAddress
                dependency.bufferMemoryBarrierCount = UInt32(buffers.count)
                dependency.pBufferMemoryBarriers = buffers.baseAddress
                vkCmdPipelineBarrier2(commandBuffer, &dependency)
            }
        }
    }
}

/// A barrier over the whole of `buffer`, for `pipelineBarrier`.
func bufferBarrier(
    _ buffer: GPUBuffer, from source: (stage: VkPipelineStageFlags2, access: VkAccessFlags2),
    to destination: (stage: VkPipelineStageFlags2, access: VkAccessFlags2)
) -> VkBufferMemoryBarrier2 {
    bufferBarrier(buffer.handle, from: source, to: destination)
}

/// A barrier over the whole of the buffer `handle`, for `pipelineBarrier`.
func bufferBarrier(
    _ handle: VkBuffer, from source: (stage: VkPipelineStageFlags2, access: VkAccessFlags2),
    to destination: (stage: VkPipelineStageFlags2, access: VkAccessFlags2)
) -> VkBufferMemoryBarrier2 {
    var barrier = VkBufferMemoryBarrier2()
    barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2
    barrier.srcStageMask = source.stage
    barrier.srcAccessMask = source.access
    barrier.dstStageMask = destination.stage
    barrier.dstAccessMask = destination.access
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED
    barrier.buffer = handle
    barrier.offset = 0
    barrier.size = VkDeviceSize(VK_WHOLE_SIZE)
    return barrier
}
