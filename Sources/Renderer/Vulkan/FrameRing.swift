internal import CVulkan
import SystemCalls

/// Per-frame resources for a few frames in flight, reused round-robin.
///
/// A slot is reused only once the frame that last used it has finished, which is all that is ever
/// waited for: one timeline value, never the whole device.
final class FrameRing {
    /// One frame's command buffer, instance storage and the objects its commands use.
    final class Slot {
        let commandBuffer: VkCommandBuffer
        /// The frame's instance data, bound as storage buffer 0; replaced by a larger one as needed.
        private(set) var storage: GPUBuffer
        /// The timeline value of the slot's last submission; its resources are free once reached.
        fileprivate(set) var submittedValue: UInt64 = 0
        /// Objects the submitted commands use (textures, staging buffers, targets), released once
        /// a later frame is submitted after this one finished, or when the slot is next acquired.
        fileprivate var keptAlive: [AnyObject] = []

        fileprivate init(commandBuffer: VkCommandBuffer, storage: GPUBuffer) {
            self.commandBuffer = commandBuffer
            self.storage = storage
        }

        /// Copies `bytes` to the start of the storage buffer, growing it (to the next power of two)
        /// when they do not fit. Only valid between `acquire()` and `submit`, while the GPU is not
        /// reading the buffer.
        func upload(_ bytes: UnsafeRawBufferPointer) throws {
            if bytes.count > storage.size {
                var size = storage.size
                while size < bytes.count { size *= 2 }
                storage = try GPUBuffer(context: storage.context, size: size, usage: storage.usage)
            }
            if let source = bytes.baseAddress, !bytes.isEmpty {
                storage.contents.copyMemory(from: source, byteCount: bytes.count)
            }
        }
    }

    let context: VulkanContext
    let timeline: TimelineSemaphore
    /// What frames into displays' buffers export their completion through, where the device can
    /// (`FrameFenceSource.exportedSyncFile`); dropped after an export that failed.
    private var syncFile: SyncFileSemaphore?
    private let slots: [Slot]
    private var nextSlot = 0

    /// The first storage size: room for a few hundred layers' instance data before any growth.
    static let initialStorageSize = 64 * 1024

    init(context: VulkanContext, count: Int = 2) throws {
        precondition((1...8).contains(count), "a ring of \(count) frames")
        self.context = context
        timeline = try TimelineSemaphore(context: context)
        syncFile = try SyncFileSemaphore(context: context)
        var info = VkCommandBufferAllocateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        info.commandPool = context.commandPool
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        info.commandBufferCount = UInt32(count)
        var commandBuffers = [VkCommandBuffer?](repeating: nil, count: count)
        try check(context.commands.vkAllocateCommandBuffers(context.device, &info, &commandBuffers), "vkAllocateCommandBuffers")
        do {
            slots = try commandBuffers.map { commandBuffer in
                Slot(
                    commandBuffer: commandBuffer!,
                    storage: try GPUBuffer(
                        context: context, size: Self.initialStorageSize,
                        usage: VkBufferUsageFlags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue)))
            }
        } catch {
            context.commands.vkFreeCommandBuffers(context.device, context.commandPool, UInt32(count), commandBuffers)
            throw error
        }
    }

    deinit {
        // Teardown: the last submission finishing means every slot's has (one queue, in order).
        try? timeline.wait(for: timeline.lastSubmittedValue)
        var commandBuffers: [VkCommandBuffer?] = slots.map(\.commandBuffer)
        context.commands.vkFreeCommandBuffers(context.device, context.commandPool, UInt32(commandBuffers.count), &commandBuffers)
    }

    /// The next slot, once the frame that last used it has finished; its command buffer is reset
    /// and what that frame kept alive is released.
    func acquire() throws -> Slot {
        let slot = slots[nextSlot]
        try timeline.wait(for: slot.submittedValue)
        slot.keptAlive = []
        try check(context.commands.vkResetCommandBuffer(slot.commandBuffer, 0), "vkResetCommandBuffer")
        nextSlot = (nextSlot + 1) % slots.count
        return slot
    }

    /// Submits the slot's recorded command buffer, signalling the timeline's next value, and keeps
    /// `objects` alive until that value is reached; its fragment shaders first wait for `waits`.
    /// Returns the point to wait for.
    func submit(_ slot: Slot, keepingAlive objects: [AnyObject], waitingFor waits: [TimelinePoint] = []) throws
        -> TimelinePoint
    {
        try submit(slot, keepingAlive: objects, waitingFor: waits, alsoSignalling: nil)
    }

    /// Submits as `submit(_:keepingAlive:waitingFor:)` does and, where the device exports
    /// sync_files, also returns the frame's completion as one, for the display to wait on
    /// (`OutputState.acquireFence`); nil where it cannot (the waiter thread tells of it then).
    func submitExportingFence(_ slot: Slot, keepingAlive objects: [AnyObject], waitingFor waits: [TimelinePoint] = [])
        throws -> (point: TimelinePoint, fence: OwnedFileDescriptor?)
    {
        guard let syncFile else { return (try submit(slot, keepingAlive: objects, waitingFor: waits), nil) }
        let point = try submit(slot, keepingAlive: objects, waitingFor: waits, alsoSignalling: syncFile.handle)
        do {
            return (point, try syncFile.exportPendingSignal())
        } catch {
            // A signal no export took leaves the semaphore signalled, and a binary semaphore cannot
            // be signalled again: later frames go without, and it goes once this frame is done.
            slot.keptAlive.append(syncFile)
            self.syncFile = nil
            return (point, nil)
        }
    }

    private func submit(
        _ slot: Slot, keepingAlive objects: [AnyObject], waitingFor waits: [TimelinePoint], alsoSignalling binary: VkSemaphore?
    ) throws -> TimelinePoint {
        let point = try submitCommands(slot.commandBuffer, on: context, signalling: timeline, waitingFor: waits, alsoSignalling: binary)
        slot.submittedValue = point.value
        slot.keptAlive = objects
        // What finished frames kept alive goes now, not when their slot comes round again: an
        // output with nothing new to show draws no next frame, and the buffers of a client that
        // left (its dma-bufs' descriptors) would stay with the compositor meanwhile.
        try releaseFinishedFrames(except: slot)
        return point
    }
}

extension FrameRing {
    /// Lets go of what the frames the GPU has finished kept alive (but `slot`'s).
    func releaseFinishedFrames(except slot: Slot? = nil) throws {
        let reached = try timeline.reachedValue()
        for other in slots where other !== slot && other.submittedValue <= reached { other.keptAlive = [] }
    }
}

/// Submits `commandBuffer` to the context's queue, signalling `timeline`'s next value once it is
/// done (and the binary semaphore `binary`, where given), its fragment shaders first waiting for
/// `waits`. Returns the point to wait for.
func submitCommands(
    _ commandBuffer: VkCommandBuffer, on context: VulkanContext, signalling timeline: TimelineSemaphore,
    waitingFor waits: [TimelinePoint] = [], alsoSignalling binary: VkSemaphore? = nil
) throws -> TimelinePoint {
    var commandBufferInfo = VkCommandBufferSubmitInfo()
    commandBufferInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO
    commandBufferInfo.commandBuffer = commandBuffer
    var signal = VkSemaphoreSubmitInfo()
    signal.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO
    signal.semaphore = timeline.handle
    signal.value = timeline.nextValue
    signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT
    var signals = [signal]
    if let binary {
        var binarySignal = VkSemaphoreSubmitInfo()
        binarySignal.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO
        binarySignal.semaphore = binary
        binarySignal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT
        signals.append(binarySignal)
    }
    let waitInfos = waits.map { point in
        var wait = VkSemaphoreSubmitInfo()
        wait.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO
        wait.semaphore = point.timeline.handle
        wait.value = point.value
        wait.stageMask = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT
        return wait
    }
    try withUnsafePointer(to: &commandBufferInfo) { commandBufferInfo in
        try signals.withUnsafeBufferPointer { signals in
            try waitInfos.withUnsafeBufferPointer { waitInfos in
                var submit = VkSubmitInfo2()
                submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2
                submit.waitSemaphoreInfoCount = UInt32(waitInfos.count)
                submit.pWaitSemaphoreInfos = waitInfos.baseAddress
                submit.commandBufferInfoCount = 1
                submit.pCommandBufferInfos = commandBufferInfo
                submit.signalSemaphoreInfoCount = UInt32(signals.count)
                submit.pSignalSemaphoreInfos = signals.baseAddress
                try check(context.commands.vkQueueSubmit2(context.queue, 1, &submit, nil), "vkQueueSubmit2")
            }
        }
    }
    for point in waits { point.timeline.didSubmitWait() }
    return timeline.didSubmitNextValue()
}
