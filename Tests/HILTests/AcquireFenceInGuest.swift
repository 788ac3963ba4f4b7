import DisplayBackend
import Foundation
import Glibc
import KMSBackend
import SystemCalls
import Testing

/// Where a test run inside the rig's guest leaves what the host checks; nil outside the guest.
let guestOutputFolder = ProcessInfo.processInfo.environment["VITRINE_HIL_GUEST_OUT"]

/// Runs inside the rig's guest only: the KMS frame boot (`GuestRun`) starts this test binary there
/// with VITRINE_HIL_GUEST_OUT naming its output folder, captures the scanout when the test asks,
/// and `KMSFrameTests.aFlipIsHeldUntilItsAcquireFenceSignals` checks what it left.
///
/// The KMS output shows a blue frame, then commits a red one whose acquire fence (the plane's
/// IN_FENCE_FD) is a vgem fence the test holds: no flip comes while it is pending, and the
/// scanout stays blue; once the test signals it, the red frame's flip follows.
@Suite(.enabled(if: guestOutputFolder != nil)) struct AcquireFenceInGuest {
    static let blue: UInt32 = 0xFF00_00FF
    static let red: UInt32 = 0xFFFF_0000

    @Test func aFlipIsHeldUntilItsAcquireFenceSignals() throws {
        let folder = try #require(guestOutputFolder)
        var configuration = KMSOutputConfiguration(
            connector: "Virtual-1", mode: KMSModeRequest(width: KMSFrameTests.width, height: KMSFrameTests.height), hardwareCursor: false)
        configuration.mappedBuffersReason = "the test writes its frames through the mapping"
        let backend = try KMSBackend(devicePath: "/dev/dri/card0", configuration: configuration)
        let output = try #require(backend.kmsOutputs.first)
        var presentations: [UInt64] = []
        let listener = output.presented.listen { presentations.append($0.nanoseconds) }
        defer { listener.cancel() }
        var colour = Self.blue
        var fence: OwnedFileDescriptor?
        output.frameScheduler.onFrame = { _ in
            guard let buffer = output.nextBuffer(), case .mapped(let memory, let bytesPerRow) = buffer.memory else { return }
            for row in 0..<buffer.height {
                (memory.baseAddress! + row * bytesPerRow).initializeMemory(as: UInt32.self, repeating: colour, count: buffer.width)
            }
            let taken = (try? output.commit(OutputState(buffer: .swapchain(buffer), acquireFence: fence))) ?? false
            #expect(taken)
        }
        output.scheduleFrame()
        backend.dispatchEvents(forAtMost: 60) { presentations.count == 1 }
        try #require(presentations.count == 1, "the blue frame was not shown")

        let vgem = try VGEMFence()
        fence = vgem.syncFile
        colour = Self.red
        output.scheduleFrame()
        let committed = monotonicNanoseconds()
        // Held: no flip for a second, nor while the host captures the screen.
        backend.dispatchEvents(forAtMost: 1) { presentations.count > 1 }
        try Self.handshake("pending", in: folder, backend: backend)
        let held = monotonicNanoseconds() - committed
        #expect(presentations.count == 1, "the red frame's flip came before its fence signalled")
        let signalled = monotonicNanoseconds()
        // The test's own signal: vgem signals a fence by itself only after 10 s.
        try vgem.signal()
        backend.dispatchEvents(forAtMost: 10) { presentations.count > 1 }
        try #require(presentations.count == 2, "no flip after the fence signalled")
        #expect(presentations[1] >= signalled)
        try "held \(held / 1_000_000) ms while the fence was pending; flipped \((presentations[1] - signalled) / 1_000_000) ms after it signalled\n"
            .write(toFile: folder + "/fence-timing.txt", atomically: true, encoding: .utf8)
        try Self.handshake("shown", in: folder, backend: backend)
    }

    /// Asks the guest script to capture the scanout as fence-`step`.png (it sees the file
    /// fence-`step`), and waits until it has (fence-`step`-captured), running the backend's events.
    static func handshake(_ step: String, in folder: String, backend: any DisplayBackend) throws {
        try "".write(toFile: "\(folder)/fence-\(step)", atomically: true, encoding: .utf8)
        backend.dispatchEvents(forAtMost: 30) { FileManager.default.fileExists(atPath: "\(folder)/fence-\(step)-captured") }
        try #require(FileManager.default.fileExists(atPath: "\(folder)/fence-\(step)-captured"), "no capture of \(step)")
    }
}

/// A fence that a test signals: vgem's (the kernel's virtual GEM driver) attached to a buffer of
/// its own for writing, exported as a sync_file that waits for that write
/// (DMA_BUF_IOCTL_EXPORT_SYNC_FILE). The guest kernel has no sw_sync.
struct VGEMFence {
    private let device: OwnedFileDescriptor
    private let fence: UInt32
    let syncFile: OwnedFileDescriptor

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    // ioctl numbers: direction << 30 | size << 16 | type << 8 | number.
    private static func readWrite(_ type: Character, _ number: UInt, size: UInt) -> UInt {
        3 << 30 | size << 16 | UInt(type.asciiValue!) << 8 | number
    }
    private static let createDumb = readWrite("d", 0xB2, size: 32)
    private static let primeHandleToFD = readWrite("d", 0x2D, size: 12)
    /// DRM_COMMAND_BASE + 1 and + 2 (uapi drm/vgem_drm.h, which Debian ships in no package).
    private static let vgemFenceAttach = readWrite("d", 0x41, size: 16)
    private static let vgemFenceSignal: UInt = 1 << 30 | 8 << 16 | UInt(Character("d").asciiValue!) << 8 | 0x42
    private static let exportSyncFile = readWrite("b", 2, size: 8)

    init() throws {
        let files = FileManager.default
        let cards = try files.contentsOfDirectory(atPath: "/sys/class/drm").filter { $0.hasPrefix("card") && !$0.contains("-") }
        guard let card = cards.first(where: {
            ((try? files.destinationOfSymbolicLink(atPath: "/sys/class/drm/\($0)/device")) as NSString?)?.lastPathComponent == "vgem"
        }) else { throw Failure(description: "no vgem card among \(cards)") }
        let fd = open("/dev/dri/\(card)", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCallError.current("open", path: "/dev/dri/\(card)") }
        device = OwnedFileDescriptor(rawValue: fd)
        // struct drm_mode_create_dumb: height, width, bpp, flags, handle, pitch, size (u64).
        var dumb: [UInt32] = [16, 16, 32, 0, 0, 0, 0, 0]
        try Self.call(device, Self.createDumb, &dumb, "DRM_IOCTL_MODE_CREATE_DUMB")
        // struct vgem_fence_attach: handle, flags (VGEM_FENCE_WRITE), out_fence, pad.
        var attach: [UInt32] = [dumb[4], 1, 0, 0]
        try Self.call(device, Self.vgemFenceAttach, &attach, "VGEM_IOCTL_FENCE_ATTACH")
        fence = attach[2]
        // struct drm_prime_handle: handle, flags (DRM_CLOEXEC | DRM_RDWR), fd.
        var prime: [UInt32] = [dumb[4], UInt32(O_CLOEXEC | O_RDWR), 0]
        try Self.call(device, Self.primeHandleToFD, &prime, "DRM_IOCTL_PRIME_HANDLE_TO_FD")
        let dmabuf = OwnedFileDescriptor(rawValue: Int32(bitPattern: prime[2]))
        // struct dma_buf_export_sync_file: flags (DMA_BUF_SYNC_READ: the fences a reader waits
        // for, the write's), fd.
        var export: [UInt32] = [1, 0]
        try Self.call(dmabuf, Self.exportSyncFile, &export, "DMA_BUF_IOCTL_EXPORT_SYNC_FILE")
        syncFile = OwnedFileDescriptor(rawValue: Int32(bitPattern: export[1]))
    }

    /// Signals the fence; throws where vgem had signalled it already (its 10 s timeout).
    func signal() throws {
        // struct vgem_fence_signal: fence, flags.
        var signal: [UInt32] = [fence, 0]
        try Self.call(device, Self.vgemFenceSignal, &signal, "VGEM_IOCTL_FENCE_SIGNAL")
    }

    private static func call(_ fd: OwnedFileDescriptor, _ request: UInt, _ argument: inout [UInt32], _ name: String) throws {
        let result = argument.withUnsafeMutableBytes { ioctl(fd.rawValue, request, $0.baseAddress!) }
        guard result == 0 else { throw SystemCallError.current(name) }
    }
}
