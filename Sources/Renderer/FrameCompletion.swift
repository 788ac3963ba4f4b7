internal import CLinux
internal import CVulkan
import Buffers
import Dispatch
import Glibc
public import SystemCalls

/// A frame submitted to the GPU, for the caller not to wait for: `fileDescriptor` turns readable
/// once the GPU is done with it, and then `finish()` completes it on the caller's thread (the CPU's
/// part of a frame that the GPU could not write where it goes, and the client buffers it read).
///
/// The descriptor is an eventfd that a thread of the device's signals when the frame's timeline
/// point is reached (`CompletionWaiter`). Where the device exports sync_files
/// (`FrameFenceSource.exportedSyncFile`; lavapipe does not) a frame the GPU wrote into its
/// target's memory also carries one (`takeAcquireFence()`), for the display to wait on, so that
/// the frame can be committed at once.
public final class FrameCompletion {
    private let descriptor: OwnedFileDescriptor
    private let point: TimelinePoint?
    /// Left once the waiter thread wrote to the descriptor: until then it must stay open.
    private let signalled = DispatchGroup()
    /// The frame's CPU part, done only when the GPU finished it.
    private var finishing: (() -> Void)?
    /// The client buffers the frame reads, each held until it is done: let go in any case, since
    /// the GPU reads them no more either way.
    private var clientReads: [any LentBuffer]
    private var isFinished = false
    /// The frame's completion as a sync_file, until taken.
    private var acquireFence: OwnedFileDescriptor?

    /// Readable once the frame is done on the GPU (at once for a frame without GPU work).
    public var fileDescriptor: FileDescriptor { descriptor.fileDescriptor }

    init(
        point: TimelinePoint?, clientReads: [any LentBuffer] = [], finishing: (() -> Void)? = nil,
        acquireFence: OwnedFileDescriptor? = nil
    ) throws {
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard fd >= 0 else { throw SystemCallError.current("eventfd") }
        descriptor = OwnedFileDescriptor(rawValue: fd)
        self.point = point
        self.clientReads = clientReads
        self.finishing = finishing
        self.acquireFence = acquireFence
        if let point, point.timeline.completedValue < point.value {
            point.timeline.context.completionWaiter.signal(descriptor.fileDescriptor, when: point, then: signalled)
        } else {
            CompletionWaiter.signal(descriptor.fileDescriptor)
        }
    }

    deinit {
        // Only a frame never finished (its event source could not be added) waits here for the GPU.
        signalled.wait()
    }

    /// The frame's completion as a sync_file that signals once the GPU is done, for the display to
    /// wait on (`OutputState.acquireFence`); nil where the device exports none, or once taken.
    public func takeAcquireFence() -> OwnedFileDescriptor? {
        defer { acquireFence = nil }
        return acquireFence
    }

    /// Whether the GPU is done with the frame (without waiting).
    public var isComplete: Bool {
        guard let point else { return true }
        return point.timeline.completedValue >= point.value
    }

    /// Completes the frame: called once `fileDescriptor` turned readable, it waits for nothing
    /// (tests and benchmarks call it at once, and it blocks until the GPU is done). A frame the GPU
    /// could not finish (its device was lost) throws, its client buffers told all the same.
    /// Calling it again does nothing.
    public func finish() throws {
        guard !isFinished else { return }
        isFinished = true
        let (reads, body) = (clientReads, finishing)
        // What they hold (targets, buffers) goes now, not with the completion.
        (clientReads, finishing) = ([], nil)
        defer { for buffer in reads { buffer.endHold() } }
        // The waiter is done with the descriptor once it wrote (at once when it is readable).
        signalled.wait()
        try point?.timeline.context.onDevice { try point?.wait() }
        body?()
    }
}

/// Signals an eventfd for each frame once the GPU has reached the frame's timeline point, from a
/// thread of its own: the compositor's thread learns of completions through its event loop and
/// never waits for the GPU. One thread for the device, which finishes submissions in order.
final class CompletionWaiter: Sendable {
    private let thread = WorkerThread(name: "vitrine.gpu-completion")
    private nonisolated(unsafe) let device: VkDevice
    private let commands: VulkanDeviceCommands

    init(device: VkDevice, commands: VulkanDeviceCommands) {
        (self.device, self.commands) = (device, commands)
    }

    /// Writes to `eventfd` once `point` is reached (or the device is lost: the frame's `finish()`
    /// says which), then leaves `done`: its owner keeps it open until then. The semaphore outlives
    /// the wait (`TimelineSemaphore`'s deinit waits for its host waits).
    func signal(_ eventfd: FileDescriptor, when point: TimelinePoint, then done: DispatchGroup) {
        // Handles, not the timeline: nothing of the compositor's thread is released on the waiter's.
        nonisolated(unsafe) let (device, semaphore, waitSemaphores) = (device, point.timeline.handle, commands.vkWaitSemaphores)
        let (value, waits) = (point.value, point.timeline.hostWaits)
        waits.enter()
        done.enter()
        thread.async {
            var handle: VkSemaphore? = semaphore
            var value = value
            var info = VkSemaphoreWaitInfo()
            info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO
            info.semaphoreCount = 1
            withUnsafePointer(to: &handle) { handle in
                withUnsafePointer(to: &value) { value in
                    info.pSemaphores = handle
                    info.pValues = value
                    _ = waitSemaphores(device, &info, UInt64.max)
                }
            }
            Self.signal(eventfd)
            done.leave()
            waits.leave()
        }
    }

    static func signal(_ eventfd: FileDescriptor) {
        var one: UInt64 = 1
        _ = write(eventfd.rawValue, &one, 8)
    }
}
