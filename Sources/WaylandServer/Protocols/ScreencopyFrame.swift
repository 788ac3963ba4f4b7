import Buffers
import WaylandProtocols

/// zwlr_screencopy_frame_v1: one copy of an output's picture into a client's buffer. It offers a
/// wl_shm buffer (XRGB8888, the size of its rectangle, rows 4 × width bytes apart) and, from
/// version 3, a dma-buf (XRGB8888 of that size, linear), takes one copy request whose buffer must
/// match an offer, and ends with ready or failed.
public final class ScreencopyFrame: Resource, RequestHandler, OutputCaptureFrame {
    /// The wl_shm format of the offered buffer.
    public static let format = PixelFormat.xrgb8888

    /// The manager's handler when this was made. Unowned, not weak (see the manager's): the
    /// handler outlives its clients' objects (the compositor disconnects them before it goes).
    private unowned var handler: OutputCaptureHandler?
    /// The manager that made the frame: damage is what changed since its previous copy.
    public let session: ObjectIdentifier
    /// Whether the client asked for the pointer cursor in the copy.
    public let includesCursor: Bool
    /// Screencopy copies outputs only.
    public let capturesCursorImage = false
    /// The output captured; nil when it was gone or showed nothing (the frame failed).
    public private(set) weak var output: Output?
    /// The rectangle copied, in the pixels of what the output shows.
    public private(set) var rect = IntRect(x: 0, y: 0, width: 0, height: 0)
    /// Whether the copy waits for a frame that differs from the session's last copy (copy_with_damage).
    public private(set) var waitsForDamage = false
    /// Damage goes out with copy_with_damage only.
    public var reportsDamage: Bool { waitsForDamage }
    /// The buffer to copy into, once the client sent it.
    public private(set) var buffer: Buffer?
    private enum Phase { case offered, copying, finished }
    private var phase = Phase.offered

    init(client: Client, version: UInt32, id: UInt32, handler: OutputCaptureHandler?, session: ObjectIdentifier, includesCursor: Bool) {
        self.handler = handler
        self.session = session
        self.includesCursor = includesCursor
        super.init(ScreencopyFrame.self, client: client, version: version, id: id)
    }

    /// Describes the buffer for `rect` of `output`, or fails at once where there is nothing to copy.
    func offer(output: Output?, rect: IntRect?) {
        guard let output, let rect, !rect.isEmpty else {
            fail()
            return
        }
        self.output = output
        self.rect = rect
        send(.buffer(format: WlShmFormat(rawValue: Self.format.shmCode), width: UInt32(rect.width), height: UInt32(rect.height),
                     stride: UInt32(rect.width) * 4))
        guard version >= 3 else { return }
        send(.linuxDmabuf(format: Self.format.rawValue, width: UInt32(rect.width), height: UInt32(rect.height)))
        send(.bufferDone)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .copy(let buffer): try copy(into: buffer, waitingForDamage: false)
        case .copyWithDamage(let buffer): try copy(into: buffer, waitingForDamage: true)
        case .destroy: destroy()
        }
    }

    private func copy(into object: ForeignObject, waitingForDamage: Bool) throws(ProtocolError) {
        guard phase == .offered else {
            throw ProtocolError(ZwlrScreencopyFrameV1Error.alreadyUsed, "the frame was already copied")
        }
        guard let display = client.display, let buffer = Buffer.from(object.raw, display: display) else {
            throw ProtocolError(ZwlrScreencopyFrameV1Error.invalidBuffer, "wl_buffer@\(object.id) is not a buffer Vitrine knows")
        }
        if case .dmabuf(let attributes) = buffer.storage {
            guard version >= 3, buffer.isWritableDmabuf(format: Self.format, width: rect.width, height: rect.height) else {
                throw ProtocolError(ZwlrScreencopyFrameV1Error.invalidBuffer,
                                    "wl_buffer@\(object.id) is a \(buffer.width)×\(buffer.height) dma-buf of \(attributes.format) in "
                                        + "\(attributes.planes.count) planes; the frame offered a linear \(rect.width)×\(rect.height) \(Self.format) one")
            }
        } else {
            guard let stride = buffer.withShmContents(\.stride), case .shm(let format) = buffer.storage else {
                throw ProtocolError(ZwlrScreencopyFrameV1Error.invalidBuffer, "wl_buffer@\(object.id) is neither wl_shm nor a dma-buf")
            }
            guard format == Self.format, buffer.width == Int(rect.width), buffer.height == Int(rect.height), stride == Int(rect.width) * 4 else {
                throw ProtocolError(ZwlrScreencopyFrameV1Error.invalidBuffer,
                                    "wl_buffer@\(object.id) is \(buffer.width)×\(buffer.height) \(format) with rows \(stride) bytes apart; "
                                        + "the frame offered \(rect.width)×\(rect.height) \(Self.format) with rows \(rect.width * 4) apart")
            }
        }
        phase = .copying
        self.buffer = buffer
        waitsForDamage = waitingForDamage
        guard output != nil, let handler else { return fail() }
        handler.copyRequested(self)
    }

    public func writePixels(_ body: (UnsafeMutableRawPointer, _ bytesPerRow: Int) -> Void) -> Bool {
        guard let buffer else { return false }
        if case .dmabuf = buffer.storage { return buffer.writeDmabufPixels(body) }
        return buffer.writeShmPixels(body)
    }

    /// The copy is in the buffer: tells the client what changed (for copy_with_damage, rectangles
    /// in the frame's own pixels) and when the copied picture was shown (CLOCK_MONOTONIC).
    public func ready(damage: [IntRect], presentedNanoseconds: UInt64) {
        guard phase == .copying else { return }
        phase = .finished
        send(.flags(flags: []))
        if waitsForDamage {
            for rect in damage {
                send(.damage(x: UInt32(rect.x), y: UInt32(rect.y), width: UInt32(rect.width), height: UInt32(rect.height)))
            }
        }
        let seconds = presentedNanoseconds / 1_000_000_000
        send(.ready(tvSecHi: UInt32(seconds >> 32), tvSecLo: UInt32(truncatingIfNeeded: seconds),
                    tvNsec: UInt32(presentedNanoseconds % 1_000_000_000)))
    }

    /// The copy cannot be made (the output or the buffer went away).
    public func fail() {
        guard phase != .finished else { return }
        phase = .finished
        send(.failed)
    }

    override func destroyed() {
        if phase == .copying { handler?.copyAbandoned(self) }
        phase = .finished
    }
}
