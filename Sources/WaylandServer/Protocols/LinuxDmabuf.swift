import Buffers
public import SystemCalls
import WaylandProtocols

/// A device number (dev_t) of a DRM node, as zwp_linux_dmabuf_feedback_v1 names devices.
public struct DeviceNumber: Hashable, Sendable, CustomStringConvertible {
    public var major: UInt32
    public var minor: UInt32

    public init(major: UInt32, minor: UInt32) {
        self.major = major
        self.minor = minor
    }

    /// The dev_t value, encoded as glibc's makedev() does (a macro Swift cannot import).
    public var rawValue: UInt64 {
        let major = UInt64(self.major), minor = UInt64(self.minor)
        return ((major & 0xffff_f000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffff_ff00) << 12) | (minor & 0xff)
    }

    public var description: String { "\(major):\(minor)" }
}

/// One preference tranche of dmabuf feedback: formats a target device handles equally well.
public struct DmabufTranche: Equatable, Sendable {
    public var targetDevice: DeviceNumber
    public var formats: [DmabufFormat]
    /// Whether the compositor may scan buffers of this tranche out directly (tranche_flags scanout).
    public var isScanout: Bool

    public init(targetDevice: DeviceNumber, formats: [DmabufFormat], isScanout: Bool = false) {
        self.targetDevice = targetDevice
        self.formats = formats
        self.isScanout = isScanout
    }
}

/// What zwp_linux_dmabuf_feedback_v1 tells clients: the device that imports their buffers and the
/// tranches of formats, most preferred first.
public struct DmabufFeedback: Equatable, Sendable {
    public var mainDevice: DeviceNumber
    public var tranches: [DmabufTranche]

    public init(mainDevice: DeviceNumber, tranches: [DmabufTranche]) {
        self.mainDevice = mainDevice
        self.tranches = tranches
    }

    /// Every format of every tranche, once each, in the order they first appear.
    public var formats: [DmabufFormat] {
        var seen = Set<DmabufFormat>()
        return tranches.flatMap(\.formats).filter { seen.insert($0).inserted }
    }
}

/// Feedback the protocol cannot carry.
public enum DmabufFeedbackError: Error, Equatable, CustomStringConvertible {
    /// The protocol requires a tranche whose target device is the main device.
    case noTrancheForMainDevice(DeviceNumber)
    /// A tranche without formats says nothing a client can use.
    case emptyTranche(index: Int)
    /// tranche_formats indices are 16 bits: at most 65,536 distinct formats fit in the table.
    case tooManyFormats(Int)
    /// The format table could not be put in a sealed memory file.
    case memoryFile(SystemCallError)

    public var description: String {
        switch self {
        case .noTrancheForMainDevice(let device):
            return "dmabuf feedback has no tranche for its main device \(device)"
        case .emptyTranche(let index):
            return "dmabuf feedback tranche \(index) has no formats"
        case .tooManyFormats(let count):
            return "dmabuf feedback has \(count) distinct formats; 16-bit indices allow 65536"
        case .memoryFile(let error):
            return "the dmabuf format table could not be shared: \(error)"
        }
    }
}

/// zwp_linux_buffer_params_v1 flags (how to read the buffer's rows).
public struct DmabufBufferFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The first row is the bottom one.
    public static let yInverted = DmabufBufferFlags(rawValue: 1)
    /// The buffer holds two interlaced fields, top field on the first row.
    public static let interlaced = DmabufBufferFlags(rawValue: 2)
    /// The bottom field comes first in time.
    public static let bottomFieldFirst = DmabufBufferFlags(rawValue: 4)
}

/// One plane of a dmabuf buffer. The descriptor belongs to the wl_buffer: it stays open while the
/// buffer exists and is closed once after it is destroyed, so importers dup() what they keep.
public struct DmabufPlane: Hashable, Sendable {
    /// Owned by the buffer (its params object until then), which closes it when destroyed.
    public let fileDescriptor: FileDescriptor
    public let offset: UInt32
    public let stride: UInt32
}

/// Everything a client said about a dmabuf buffer, checked against the protocol's rules.
public struct DmabufAttributes: Hashable, Sendable {
    public let width: Int32
    public let height: Int32
    public let format: DmabufFormat
    public let flags: DmabufBufferFlags
    /// Planes 0, 1, …, in order.
    public let planes: [DmabufPlane]
}

extension DmabufLayout {
    /// The first plane of a client's buffer, as a device imports it or a plane scans it out.
    public init(firstPlaneOf attributes: DmabufAttributes) {
        let plane = attributes.planes[0]
        self.init(
            fileDescriptor: plane.fileDescriptor.rawValue, width: Int(attributes.width), height: Int(attributes.height),
            format: attributes.format.format, modifier: attributes.format.modifier, offset: Int(plane.offset),
            stride: Int(plane.stride))
    }
}

/// The compositor's part of linux-dmabuf: it imports buffers (into the renderer) and learns when
/// they are gone.
public protocol DmabufImporter: AnyObject {
    /// Imports a buffer whose attributes passed the protocol's checks; false when the device cannot
    /// use it (the client hears `failed`, or a protocol error after create_immed).
    func importBuffer(_ attributes: DmabufAttributes) -> Bool
    /// The wl_buffer made from `attributes` was destroyed; its descriptors close after this returns.
    func bufferDestroyed(_ attributes: DmabufAttributes)
}

/// The zwp_linux_dmabuf_v1 global (version 4, or 3 without a device to name): clients share GPU
/// buffers by dmabuf descriptors.
/// Advertise it only where the renderer can import (some format the feedback names); `feedback`
/// lists what it imports, and `importer` decides each buffer.
public final class LinuxDmabufGlobal {
    private var global: Global?
    let state: LinuxDmabufState

    public convenience init(display: Display, feedback: DmabufFeedback, importer: DmabufImporter) throws(DmabufFeedbackError) {
        try self.init(display: display, feedback: feedback, importer: importer, version: 4)
    }

    /// Version 3, for a device with no DRM node to name (lavapipe on the headless backend):
    /// clients hear the formats and modifiers as events, and feedback, which must name the
    /// device, does not exist at this version.
    public convenience init(display: Display, formats: [DmabufFormat], importer: DmabufImporter) throws(DmabufFeedbackError) {
        // Version 3 objects never send the main device; the tranche only carries the formats.
        let unnamed = DeviceNumber(major: 0, minor: 0)
        try self.init(
            display: display, feedback: DmabufFeedback(mainDevice: unnamed, tranches: [DmabufTranche(targetDevice: unnamed, formats: formats)]),
            importer: importer, version: 3)
    }

    private init(display: Display, feedback: DmabufFeedback, importer: DmabufImporter, version: UInt32) throws(DmabufFeedbackError) {
        let state = LinuxDmabufState(feedback: try CompiledFeedback(feedback), importer: importer)
        self.state = state
        global = Global(display: display, interface: LinuxDmabufResource.interface, version: version) {
            client, version, id in
            LinuxDmabufResource(client: client, version: version, id: id, state: state).announceFormats()
        }
    }

    /// The feedback every default feedback object and every surface without its own receives.
    public var defaultFeedback: DmabufFeedback { state.defaultFeedback.feedback }

    /// Replaces the default feedback (the formats the device imports changed) and sends it again to
    /// the objects that follow it. Buffers already created stay valid.
    public func setDefaultFeedback(_ feedback: DmabufFeedback) throws(DmabufFeedbackError) {
        guard feedback != state.defaultFeedback.feedback else { return }
        state.defaultFeedback = try CompiledFeedback(feedback)
        state.resend { $0.surfaceOverride == nil }
    }

    /// Gives `surface` its own feedback (e.g. a scan-out tranche while it is fullscreen), or nil to
    /// follow the default again; the surface's feedback objects hear it when it differs. Its formats
    /// should be among the default's: buffers are checked against the default feedback.
    public func setFeedback(_ feedback: DmabufFeedback?, for surface: Surface) throws(DmabufFeedbackError) {
        let override = SurfaceDmabufFeedback.of(surface)
        guard feedback != override.compiled?.feedback else { return }
        if let feedback {
            override.compiled = try CompiledFeedback(feedback)
        } else {
            override.compiled = nil
        }
        state.resend { $0.follows(surface) }
    }

    /// Withdraws the global; buffers and objects clients made stay valid.
    public func remove() {
        global?.remove()
    }
}

/// What the global and its objects share: the current default feedback, the importer and the live
/// feedback objects (to send changed feedback to).
final class LinuxDmabufState {
    var defaultFeedback: CompiledFeedback
    weak var importer: DmabufImporter?
    private var feedbackObjects: [WeakFeedbackObject] = []

    private struct WeakFeedbackObject {
        weak var value: LinuxDmabufFeedbackResource?
    }

    init(feedback: CompiledFeedback, importer: DmabufImporter) {
        defaultFeedback = feedback
        self.importer = importer
    }

    /// Whether clients were told the device imports this format and modifier.
    func supports(_ format: DmabufFormat) -> Bool {
        defaultFeedback.contains(format)
    }

    func track(_ object: LinuxDmabufFeedbackResource) {
        feedbackObjects.removeAll { $0.value?.isAlive != true }
        feedbackObjects.append(WeakFeedbackObject(value: object))
    }

    /// The feedback an object receives: its surface's own, or the default.
    func feedback(for object: LinuxDmabufFeedbackResource) -> CompiledFeedback {
        object.surfaceOverride ?? defaultFeedback
    }

    /// Sends the current feedback again to the live objects `matching` picks.
    func resend(_ matching: (LinuxDmabufFeedbackResource) -> Bool) {
        feedbackObjects.removeAll { $0.value?.isAlive != true }
        for object in feedbackObjects.compactMap(\.value) where !object.isInert && matching(object) {
            object.sendFeedback(feedback(for: object))
        }
    }
}

/// zwp_linux_dmabuf_v1: makes buffer-params and feedback objects.
final class LinuxDmabufResource: Resource, RequestHandler {
    let state: LinuxDmabufState

    init(client: Client, version: UInt32, id: UInt32, state: LinuxDmabufState) {
        self.state = state
        super.init(LinuxDmabufResource.self, client: client, version: version, id: id)
    }

    /// Before version 4 the formats travel as events right after binding: `format` for each format
    /// and, from version 3, `modifier` for each pair. Version 1 and 2 clients cannot name a modifier
    /// they were never told, so they hear of formats usable with an implicit or linear layout only.
    func announceFormats() {
        guard version < 4 else { return }
        let formats = state.defaultFeedback.feedback.formats
        var announced = Set<PixelFormat>()
        for format in formats where !announced.contains(format.format) {
            let usable = version >= 3 || formats.contains {
                $0.format == format.format && ($0.modifier == FormatModifier.invalid || $0.modifier == FormatModifier.linear)
            }
            guard usable else { continue }
            announced.insert(format.format)
            send(.format(format: format.format.rawValue))
        }
        for format in formats {
            send(.modifier(format: format.format.rawValue, modifierHi: UInt32(truncatingIfNeeded: format.modifier >> 32),
                           modifierLo: UInt32(truncatingIfNeeded: format.modifier)))
        }
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .createParams(let id): _ = LinuxBufferParams(client: client, version: version, id: id, state: state)
        case .getDefaultFeedback(let id): sendFeedback(to: LinuxDmabufFeedbackResource(client: client, version: version, id: id, surface: nil))
        case .getSurfaceFeedback(let id, let surface):
            sendFeedback(to: LinuxDmabufFeedbackResource(client: client, version: version, id: id, surface: surface))
        }
    }

    private func sendFeedback(to object: LinuxDmabufFeedbackResource) {
        state.track(object)
        object.sendFeedback(state.feedback(for: object))
    }
}
