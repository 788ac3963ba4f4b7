import Buffers
import Glibc
import SystemCalls
import WaylandProtocols

/// zwp_linux_buffer_params_v1: collects a buffer's planes, then makes one wl_buffer of them.
///
/// Every descriptor a client sends is closed exactly once: at once when the request is refused,
/// when `create` fails or the object goes unused, or by the wl_buffer that takes the planes.
final class LinuxBufferParams: Resource, RequestHandler {
    /// The most planes a dmabuf buffer has (the kernel's and DRM's limit).
    static let maximumPlanes = 4

    private struct PendingPlane {
        let plane: DmabufPlane
        let modifier: UInt64
    }

    private let state: LinuxDmabufState
    private var planes = [PendingPlane?](repeating: nil, count: maximumPlanes)
    private var isUsed = false

    init(client: Client, version: UInt32, id: UInt32, state: LinuxDmabufState) {
        self.state = state
        super.init(LinuxBufferParams.self, client: client, version: version, id: id)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .add(let fd, let index, let offset, let stride, let modifierHi, let modifierLo):
            // A refused plane's descriptor closes with `fd`.
            try add(fd, index: index, offset: offset, stride: stride, modifier: UInt64(modifierHi) << 32 | UInt64(modifierLo))
        case .create(let width, let height, let fourcc, let flags):
            try create(width: width, height: height, fourcc: fourcc, flags: flags, immediateID: nil)
        case .createImmed(let id, let width, let height, let fourcc, let flags):
            try create(width: width, height: height, fourcc: fourcc, flags: flags, immediateID: id)
        }
    }

    private func add(_ fd: OwnedFileDescriptor, index: UInt32, offset: UInt32, stride: UInt32, modifier: UInt64) throws(ProtocolError) {
        try checkUnused()
        guard index < Self.maximumPlanes else {
            throw error(
                ZwpLinuxBufferParamsV1Error.planeIdx,
                "plane index \(index) is out of bounds (a buffer has at most \(Self.maximumPlanes) planes)")
        }
        if planes[Int(index)] != nil {
            throw error(ZwpLinuxBufferParamsV1Error.planeSet, "plane \(index) was already set")
        }
        if let other = planes.lazy.compactMap({ $0 }).first, other.modifier != modifier {
            throw error(
                ZwpLinuxBufferParamsV1Error.invalidFormat,
                "plane \(index) has modifier 0x\(String(modifier, radix: 16)) "
                    + "but the other planes have 0x\(String(other.modifier, radix: 16))")
        }
        let plane = DmabufPlane(fileDescriptor: fd.take(), offset: offset, stride: stride)
        planes[Int(index)] = PendingPlane(plane: plane, modifier: modifier)
    }

    /// create and create_immed: argument errors are fatal; an import the device refuses is `failed`
    /// after create and invalid_wl_buffer after create_immed.
    private func create(
        width: Int32, height: Int32, fourcc: UInt32, flags: ZwpLinuxBufferParamsV1Flags, immediateID: UInt32?
    ) throws(ProtocolError) {
        try checkUnused()
        isUsed = true
        let taken = planes
        planes = [PendingPlane?](repeating: nil, count: Self.maximumPlanes)
        let attributes = try validate(
            taken, width: width, height: height, fourcc: fourcc, flags: DmabufBufferFlags(rawValue: flags.rawValue))
        // Flags this protocol version does not define cannot be honoured: the import fails.
        let imported = flags.isKnown && state.importer?.importBuffer(attributes) == true
        guard imported else {
            closePlanes(attributes.planes)
            if immediateID != nil {
                throw error(
                    ZwpLinuxBufferParamsV1Error.invalidWlBuffer,
                    "the \(width)×\(height) buffer of \(attributes.format) could not be imported")
            }
            send(.failed)
            return
        }
        let buffer = DmabufBuffer(client: client, id: immediateID ?? 0, attributes: attributes, state: state)
        if immediateID == nil { send(.created(buffer: buffer)) }
    }

    /// The attributes of the planes taken from the object, or the protocol error they deserve (the
    /// planes' descriptors closed first).
    private func validate(
        _ taken: [PendingPlane?], width: Int32, height: Int32, fourcc: UInt32, flags: DmabufBufferFlags
    ) throws(ProtocolError) -> DmabufAttributes {
        let added = taken.compactMap { $0 }
        do throws(ProtocolError) {
            guard let first = added.first, let highest = taken.lastIndex(where: { $0 != nil }) else {
                throw error(ZwpLinuxBufferParamsV1Error.incomplete, "no planes were added")
            }
            if let gap = taken[...highest].firstIndex(where: { $0 == nil }) {
                throw error(
                    ZwpLinuxBufferParamsV1Error.incomplete,
                    "plane \(gap) is missing; planes must be numbered from 0 without gaps")
            }
            guard width > 0, height > 0 else {
                throw error(
                    ZwpLinuxBufferParamsV1Error.invalidDimensions,
                    "invalid width \(width) or height \(height)")
            }
            let format = DmabufFormat(PixelFormat(rawValue: fourcc), modifier: first.modifier)
            guard state.supports(format) else {
                throw error(ZwpLinuxBufferParamsV1Error.invalidFormat, "format \(format) was not advertised")
            }
            for (index, pending) in added.enumerated() {
                try checkBounds(pending.plane, index: index, height: height)
            }
            return DmabufAttributes(width: width, height: height, format: format, flags: flags, planes: added.map(\.plane))
        } catch {
            closePlanes(added.map(\.plane))
            throw error
        }
    }

    /// The plane's rows must lie inside the dmabuf (where its size can be learnt) and inside 32 bits.
    private func checkBounds(_ plane: DmabufPlane, index: Int, height: Int32) throws(ProtocolError) {
        let offset = UInt64(plane.offset), stride = UInt64(plane.stride)
        if offset + stride > UInt64(UInt32.max) {
            throw error(
                ZwpLinuxBufferParamsV1Error.outOfBounds,
                "plane \(index): offset \(offset) + stride \(stride) overflows 32 bits")
        }
        // Only plane 0 is known to have `height` rows (chroma planes may be subsampled).
        let needed = index == 0 ? offset + stride * UInt64(height) : offset + stride
        if index == 0, needed > UInt64(UInt32.max) {
            throw error(
                ZwpLinuxBufferParamsV1Error.outOfBounds,
                "plane 0: offset \(offset) + stride \(stride) × height \(height) overflows 32 bits")
        }
        guard let size = fileSize(plane.fileDescriptor) else { return }
        if offset >= size {
            throw error(
                ZwpLinuxBufferParamsV1Error.outOfBounds,
                "plane \(index): offset \(offset) is beyond the dmabuf's \(size) bytes")
        }
        if needed > size {
            throw error(
                ZwpLinuxBufferParamsV1Error.outOfBounds,
                "plane \(index) needs \(needed) bytes but the dmabuf has \(size)")
        }
    }

    private func checkUnused() throws(ProtocolError) {
        if isUsed {
            throw error(
                ZwpLinuxBufferParamsV1Error.alreadyUsed,
                "the params object was already used to create a wl_buffer")
        }
    }

    private func error(_ code: ZwpLinuxBufferParamsV1Error, _ message: String) -> ProtocolError {
        ProtocolError(code, message)
    }

    override func destroyed() {
        closePlanes(planes.compactMap { $0?.plane })
        planes = []
    }
}

private func closePlanes(_ planes: [DmabufPlane]) {
    for plane in planes { try? plane.fileDescriptor.close() }
}

/// The size of the file behind `fd` (lseek to its end, the position restored), or nil where the
/// descriptor cannot seek (not every dmabuf exporter supports it).
private func fileSize(_ fd: FileDescriptor) -> UInt64? {
    guard let position = try? fd.seek(offset: 0, from: .current), let end = try? fd.seek(offset: 0, from: .end) else { return nil }
    _ = try? fd.seek(offset: position, from: .start)
    return UInt64(end)
}

/// A wl_buffer made of dmabuf planes that the importer accepted; it owns the planes' descriptors.
final class DmabufBuffer: Resource, RequestHandler, BufferSource {
    let attributes: DmabufAttributes
    private let state: LinuxDmabufState

    init(client: Client, id: UInt32, attributes: DmabufAttributes, state: LinuxDmabufState) {
        self.attributes = attributes
        self.state = state
        super.init(DmabufBuffer.self, client: client, version: 1, id: id)
    }

    var width: Int32 { attributes.width }
    var height: Int32 { attributes.height }
    var storage: Buffer.Storage { .dmabuf(attributes) }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        }
    }

    override func destroyed() {
        state.importer?.bufferDestroyed(attributes)
        closePlanes(attributes.planes)
    }
}
