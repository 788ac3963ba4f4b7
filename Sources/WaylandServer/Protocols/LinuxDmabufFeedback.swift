import Buffers
internal import CLinux
import WaylandProtocols
import Glibc
public import SystemCalls

/// Feedback laid out for the wire once: the format table in a sealed memory file, the devices as
/// dev_t arrays and each tranche's formats as 16-bit table indices. Shared by every object that
/// receives it; the table's descriptor closes when the last one lets go.
final class CompiledFeedback {
    let feedback: DmabufFeedback
    /// A sealed memfd of (u32 format, u32 padding, u64 modifier) entries in native byte order.
    let tableFile: Int32
    let tableSize: UInt32
    private let indices: [DmabufFormat: UInt16]

    init(_ feedback: DmabufFeedback) throws(DmabufFeedbackError) {
        for (index, tranche) in feedback.tranches.enumerated() where tranche.formats.isEmpty {
            throw .emptyTranche(index: index)
        }
        guard feedback.tranches.contains(where: { $0.targetDevice == feedback.mainDevice }) else {
            throw .noTrancheForMainDevice(feedback.mainDevice)
        }
        let formats = feedback.formats
        guard formats.count <= Int(UInt16.max) + 1 else { throw .tooManyFormats(formats.count) }
        var table: [UInt8] = []
        table.reserveCapacity(formats.count * 16)
        for format in formats {
            withUnsafeBytes(of: format.format.rawValue) { table += $0 }
            withUnsafeBytes(of: UInt32(0)) { table += $0 }
            withUnsafeBytes(of: format.modifier) { table += $0 }
        }
        let made = table.withUnsafeBytes { bytes in
            Result { () throws(SystemCallError) in try makeSealedMemoryFile(name: "vitrine-dmabuf-formats", bytes: bytes) }
        }
        switch made {
        case .success(let fd): tableFile = fd
        case .failure(let error): throw .memoryFile(error)
        }
        self.feedback = feedback
        tableSize = UInt32(table.count)
        indices = Dictionary(uniqueKeysWithValues: formats.enumerated().map { ($0.element, UInt16($0.offset)) })
    }

    deinit {
        close(tableFile)
    }

    func contains(_ format: DmabufFormat) -> Bool {
        indices[format] != nil
    }

    /// A device as the protocol's array argument: its dev_t in native byte order.
    static func deviceBytes(_ device: DeviceNumber) -> [UInt8] {
        withUnsafeBytes(of: device.rawValue) { Array($0) }
    }

    /// A tranche's formats as 16-bit indices into the table, in native byte order, each once (the
    /// protocol forbids duplicates within a tranche).
    func indexBytes(_ tranche: DmabufTranche) -> [UInt8] {
        var seen = Set<DmabufFormat>()
        return tranche.formats.filter { seen.insert($0).inserted }.flatMap { format in
            withUnsafeBytes(of: indices[format]!) { Array($0) }
        }
    }
}

/// zwp_linux_dmabuf_feedback_v1: the default feedback, or one surface's.
final class LinuxDmabufFeedbackResource: Resource, RequestHandler {
    /// The surface this object follows, until it is destroyed; nil for default feedback. Strong,
    /// not weak (docs/architecture.md: a weak reference would give the surface, which every frame
    /// retains, a side table).
    private let surfaceReference: LiveSurfaceReference?
    private var surface: Surface? { surfaceReference?.surface }
    private let followsSurface: Bool
    /// The parameters sent last, so that the same ones are never sent twice in a row.
    private var lastSent: DmabufFeedback?

    init(client: Client, version: UInt32, id: UInt32, surface: Surface?) {
        surfaceReference = surface.map(LiveSurfaceReference.init)
        followsSurface = surface != nil
        super.init(LinuxDmabufFeedbackResource.self, client: client, version: version, id: id)
    }

    /// A surface object whose surface was destroyed hears nothing more (the protocol's "inert").
    var isInert: Bool { followsSurface && surface?.isAlive != true }

    /// The surface's own feedback, when the compositor gave it one.
    var surfaceOverride: CompiledFeedback? {
        surface.flatMap { SurfaceDmabufFeedback.existing(on: $0)?.compiled }
    }

    func follows(_ surface: Surface) -> Bool { self.surface === surface }

    /// Sends all parameters: format_table, main_device, each tranche (target device, flags,
    /// formats, tranche_done), then done.
    func sendFeedback(_ compiled: CompiledFeedback) {
        guard isAlive, !isInert, compiled.feedback != lastSent else { return }
        lastSent = compiled.feedback
        send(.formatTable(fd: FileDescriptor(rawValue: compiled.tableFile), size: compiled.tableSize))
        send(.mainDevice(device: CompiledFeedback.deviceBytes(compiled.feedback.mainDevice)))
        for tranche in compiled.feedback.tranches {
            send(.trancheTargetDevice(device: CompiledFeedback.deviceBytes(tranche.targetDevice)))
            send(.trancheFlags(flags: tranche.isScanout ? .scanout : []))
            send(.trancheFormats(indices: compiled.indexBytes(tranche)))
            send(.trancheDone)
        }
        send(.done)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        }
    }
}

/// The feedback the compositor gave one surface, kept with the surface (cleared when it goes).
final class SurfaceDmabufFeedback {
    var compiled: CompiledFeedback?

    static func existing(on surface: Surface) -> SurfaceDmabufFeedback? {
        surface.extensions[ObjectIdentifier(SurfaceDmabufFeedback.self)] as? SurfaceDmabufFeedback
    }

    static func of(_ surface: Surface) -> SurfaceDmabufFeedback {
        if let state = existing(on: surface) { return state }
        let state = SurfaceDmabufFeedback()
        surface.extensions[ObjectIdentifier(SurfaceDmabufFeedback.self)] = state
        return state
    }
}
