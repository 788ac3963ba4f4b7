internal import CVulkan
import SystemCalls

/// How the GPU's completion of a frame drawn into a display's buffer reaches the display.
enum FrameFenceSource: Equatable, Sendable {
    /// A binary semaphore that the frame's submission also signals is exported as a sync_file
    /// (`SyncFileSemaphore`) and handed to the display as the frame's acquire fence (on KMS the
    /// plane's IN_FENCE_FD): the kernel waits for the GPU, and the frame is committed at once.
    case exportedSyncFile
    /// The device's waiter thread signals an eventfd once the frame's timeline point is reached
    /// (`CompletionWaiter`), and the compositor commits the frame then.
    case waiterThread

    /// The export needs `VK_KHR_external_semaphore_fd` and a device that exports a binary
    /// semaphore's payload as a sync_file (`semaphoreFeatures`, from
    /// `vkGetPhysicalDeviceExternalSemaphoreProperties` for `SYNC_FD`); lavapipe does neither.
    static func choose(hasSemaphoreFdExtension: Bool, semaphoreFeatures: VkExternalSemaphoreFeatureFlags) -> FrameFenceSource {
        let exportable = VkExternalSemaphoreFeatureFlags(VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT.rawValue)
        return hasSemaphoreFdExtension && semaphoreFeatures & exportable != 0 ? .exportedSyncFile : .waiterThread
    }
}

extension VulkanContext {
    static let semaphoreFdExtension = "VK_KHR_external_semaphore_fd"

    /// What `physicalDevice` can do with a binary semaphore's payload as a sync_file.
    static func syncFileSemaphoreFeatures(
        of physicalDevice: VkPhysicalDevice, instanceCommands: VulkanInstanceCommands
    ) -> VkExternalSemaphoreFeatureFlags {
        var info = VkPhysicalDeviceExternalSemaphoreInfo()
        info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO
        info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT
        var properties = VkExternalSemaphoreProperties()
        properties.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES
        instanceCommands.vkGetPhysicalDeviceExternalSemaphoreProperties(physicalDevice, &info, &properties)
        return properties.externalSemaphoreFeatures
    }
}

/// A binary semaphore, exportable as a sync_file, that a ring's frames into displays' buffers
/// signal besides their timeline value; right after each such submission its pending signal is
/// exported (`exportPendingSignal()`). Unverified on hardware: no device this project has been
/// tested on exports SYNC_FD payloads.
///
/// SYNC_FD payloads have copy transference: exporting one acts on the semaphore like a wait, so it
/// is unsignalled again for the next frame, and the export is valid only while a signal is
/// pending or done, which the submission just made guarantees.
final class SyncFileSemaphore {
    let context: VulkanContext
    let handle: VkSemaphore
    private let getSemaphoreFd: PFN_vkGetSemaphoreFdKHR

    /// Nil on a device without the export (`FrameFenceSource.waiterThread`).
    init?(context: VulkanContext) throws {
        guard context.frameFenceSource == .exportedSyncFile, let getSemaphoreFd = context.getSemaphoreFd else { return nil }
        var export = VkExportSemaphoreCreateInfo()
        export.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO
        export.handleTypes = VkExternalSemaphoreHandleTypeFlags(VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT.rawValue)
        var semaphore: VkSemaphore?
        try withUnsafePointer(to: &export) { export in
            var info = VkSemaphoreCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
            info.pNext = UnsafeRawPointer(export)
            try check(context.commands.vkCreateSemaphore(context.device, &info, nil, &semaphore), "vkCreateSemaphore (sync_file)")
        }
        self.context = context
        handle = semaphore!
        self.getSemaphoreFd = getSemaphoreFd
    }

    deinit {
        // Its owner (the ring) waits for its last submission first, so no signal is pending.
        context.commands.vkDestroySemaphore(context.device, handle, nil)
    }

    /// The signal just submitted, as a sync_file that signals when the frame is done; nil where
    /// the driver says the frame is done already (it may return -1 then).
    func exportPendingSignal() throws -> OwnedFileDescriptor? {
        var info = VkSemaphoreGetFdInfoKHR()
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR
        info.semaphore = handle
        info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT
        var fd: Int32 = -1
        try check(getSemaphoreFd(context.device, &info, &fd), "vkGetSemaphoreFdKHR")
        return fd >= 0 ? OwnedFileDescriptor(rawValue: fd) : nil
    }
}
