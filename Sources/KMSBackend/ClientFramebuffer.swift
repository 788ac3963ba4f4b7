import Buffers
internal import CDRM
import DisplayBackend
import Glibc

/// A client's dma-buf as a framebuffer of the device, for direct scanout: imported with PRIME,
/// made a framebuffer, and the import's GEM handle closed at once (the framebuffer holds the
/// buffer; handles are not counted, and another import of the same buffer gets the same one).
/// Going away removes the framebuffer and ends the output's hold on the client's buffer (the
/// client may write into it again), so the output keeps it until another frame is on screen.
final class ClientFramebuffer {
    private let device: DRMDevice
    let id: UInt32
    /// The client's buffer, held while it is shown: set once the buffer was committed to be shown.
    var heldBuffer: (any LentBuffer)?

    /// Linear buffers only, as the compositor imports them; nil when the device refuses the buffer.
    init?(device: DRMDevice, buffer: DmabufLayout) {
        guard buffer.modifier == FormatModifier.linear, buffer.width > 0, buffer.height > 0 else { return nil }
        var handle: UInt32 = 0
        guard drmPrimeFDToHandle(device.fd, buffer.fileDescriptor, &handle) == 0 else { return nil }
        defer { _ = drmCloseBufferHandle(device.fd, handle) }
        let added = device.addFramebuffer(
            width: buffer.width, height: buffer.height, format: buffer.format, handle: handle, pitch: UInt32(buffer.stride),
            offset: UInt32(buffer.offset))
        guard added.result == 0 else { return nil }
        self.device = device
        id = added.framebuffer
    }

    deinit {
        _ = drmModeRmFB(device.fd, id)
        heldBuffer?.endHold()
    }
}
