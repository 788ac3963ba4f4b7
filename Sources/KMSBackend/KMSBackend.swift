internal import CDRM
import DisplayBackend
import Glibc

/// Displays driven through a DRM device with atomic modesetting: each connected connector gets a
/// CRTC and its primary plane, a mode, and a ring of dumb buffers it flips between on page-flip
/// events. Poll-driven like every backend: the DRM fd delivers flip events, one timerfd per output
/// starts its frames.
///
/// The device is opened through a seat manager when `access` is given (libseat: seatd or logind,
/// with `suspend()`/`resume()` around VT switches), otherwise directly, which needs root (or the
/// video group) and no other DRM master.
public final class KMSBackend: DisplayBackend {
    public private(set) var outputs: [any BackendOutput] = []
    public private(set) var kmsOutputs: [KMSOutput] = []
    private let device: DRMDevice

    /// Lights the outputs that `configuration` selects on `devicePath` (default: the first
    /// /dev/dri/card* that has a connected display).
    public init(
        devicePath: String? = nil, configuration: KMSOutputConfiguration = KMSOutputConfiguration(), access: KMSDeviceAccess? = nil
    ) throws(KMSError) {
        let path = if let devicePath { devicePath } else { try Self.defaultDevicePath() }
        device = try DRMDevice(path: path, access: access)
        let candidates = try Self.discover(on: device, configuration: configuration)
        for candidate in candidates {
            let output = try KMSOutput(device: device, candidate: candidate, configuration: configuration)
            kmsOutputs.append(output)
            outputs.append(output)
        }
    }

    /// The session was switched away (the seat manager takes DRM master): no more commits until
    /// `resume()`; frames asked for meanwhile wait.
    public func suspend() {
        for output in kmsOutputs { output.suspend() }
    }

    /// The session is active again: each output's mode is set again with the last frame it
    /// showed, and a frame follows to catch up on what changed meanwhile.
    public func resume() throws(KMSError) {
        for output in kmsOutputs { try output.resume() }
    }

    /// The device path in use.
    public var devicePath: String { device.path }

    public var fileDescriptors: [Int32] { [device.fd] + kmsOutputs.map(\.timer) }

    public func dispatch(fileDescriptor: Int32) {
        if fileDescriptor == device.fd {
            handleEvents()
        } else {
            kmsOutputs.first { $0.timer == fileDescriptor }?.timerExpired()
        }
    }

    /// Reads the DRM events that are ready; each page-flip event reaches the output that asked for
    /// it through the commit's user data (unretained: outputs live as long as this backend, the
    /// only reader of the fd).
    private func handleEvents() {
        var context = drmEventContext()
        // Version 3 is the first with page_flip_handler2, the handler atomic commits' events use.
        context.version = 3
        context.page_flip_handler2 = { _, sequence, seconds, microseconds, _, userData in
            guard let userData else { return }
            Unmanaged<KMSOutput>.fromOpaque(userData).takeUnretainedValue().flipCompleted(
                sequence: sequence, nanoseconds: UInt64(seconds) * 1_000_000_000 + UInt64(microseconds) * 1000)
        }
        _ = drmHandleEvent(device.fd, &context)
    }

    /// The first card node that has a connected connector, else card0.
    static func defaultDevicePath() throws(KMSError) -> String {
        let cards = (0..<16).map { "/dev/dri/card\($0)" }.filter { (path: String) in access(path, F_OK) == 0 }
        guard let first = cards.first else { throw KMSError.noDevice(searched: "/dev/dri/card*") }
        for card in cards {
            let fd = open(card, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard let resources = drmModeGetResources(fd) else { continue }
            defer { drmModeFreeResources(resources) }
            for index in 0..<Int(resources.pointee.count_connectors) {
                guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
                defer { drmModeFreeConnector(connector) }
                if connector.pointee.connection == DRM_MODE_CONNECTED { return card }
            }
        }
        return first
    }

    /// Pairs each selected connector with a mode, a free CRTC and that CRTC's primary plane.
    private static func discover(on device: DRMDevice, configuration: KMSOutputConfiguration) throws(KMSError) -> [OutputCandidate] {
        let fd = device.fd
        guard let resources = drmModeGetResources(fd) else { throw KMSError.current("drmModeGetResources(\(device.path))") }
        defer { drmModeFreeResources(resources) }
        let crtcs = (0..<Int(resources.pointee.count_crtcs)).map { resources.pointee.crtcs[$0] }
        var connectors: [(id: UInt32, name: String, connected: Bool)] = []
        for index in 0..<Int(resources.pointee.count_connectors) {
            guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
            defer { drmModeFreeConnector(connector) }
            connectors.append((connector.pointee.connector_id, connectorName(connector.pointee),
                               connector.pointee.connection == DRM_MODE_CONNECTED))
        }
        let names = connectors.map { "\($0.name)\($0.connected ? " (connected)" : "")" }
        let selected: [(id: UInt32, name: String, connected: Bool)]
        if let wanted = configuration.connector {
            guard let match = connectors.first(where: { $0.name == wanted }) else {
                throw KMSError.connectorNotFound(name: wanted, device: device.path, connectors: names)
            }
            guard match.connected else { throw KMSError.noConnectedConnector(device: device.path, connectors: names) }
            selected = [match]
        } else {
            selected = connectors.filter(\.connected)
            guard !selected.isEmpty else { throw KMSError.noConnectedConnector(device: device.path, connectors: names) }
        }
        let planes = try Self.planes(on: device, type: UInt32(DRM_PLANE_TYPE_PRIMARY), format: DumbBuffer.xrgb8888)
        let cursorPlanes = configuration.hardwareCursor
            ? try Self.planes(on: device, type: UInt32(DRM_PLANE_TYPE_CURSOR), format: CursorPlane.argb8888) : []
        var usedCRTCs: Set<UInt32> = []
        var usedPlanes: Set<UInt32> = []
        var candidates: [OutputCandidate] = []
        for entry in selected {
            guard let connector = drmModeGetConnector(fd, entry.id) else { throw KMSError.current("drmModeGetConnector(\(entry.name))") }
            defer { drmModeFreeConnector(connector) }
            let modes = (0..<Int(connector.pointee.count_modes)).map { connector.pointee.modes[$0] }
            let mode = try chooseMode(modes, requested: configuration.mode, connector: entry.name)
            // The CRTC already driving the connector first (no needless modeset), then any it can use.
            var possible: [UInt32] = []
            for index in 0..<Int(connector.pointee.count_encoders) {
                guard let encoder = drmModeGetEncoder(fd, connector.pointee.encoders[index]) else { continue }
                defer { drmModeFreeEncoder(encoder) }
                if encoder.pointee.encoder_id == connector.pointee.encoder_id, encoder.pointee.crtc_id != 0 {
                    possible.insert(encoder.pointee.crtc_id, at: 0)
                }
                for (crtcIndex, crtc) in crtcs.enumerated() where encoder.pointee.possible_crtcs & (1 << crtcIndex) != 0 {
                    possible.append(crtc)
                }
            }
            guard let crtc = possible.first(where: { !usedCRTCs.contains($0) }) else { throw KMSError.noCRTC(connector: entry.name) }
            let crtcIndex = crtcs.firstIndex(of: crtc)!
            guard let plane = planes.first(where: { $0.possibleCRTCs & (1 << crtcIndex) != 0 && !usedPlanes.contains($0.id) }) else {
                throw KMSError.noPrimaryPlane(connector: entry.name, crtc: crtc)
            }
            usedCRTCs.insert(crtc)
            usedPlanes.insert(plane.id)
            let cursorPlane = cursorPlanes.first { $0.possibleCRTCs & (1 << crtcIndex) != 0 && !usedPlanes.contains($0.id) }
            if let cursorPlane { usedPlanes.insert(cursorPlane.id) }
            candidates.append(OutputCandidate(
                connector: entry.id, name: entry.name, crtc: crtc, plane: plane.id, cursorPlane: cursorPlane?.id, mode: mode))
        }
        return candidates
    }

    /// Planes of `type` (a DRM_PLANE_TYPE_* value) that scan out `format`, with the CRTCs (by
    /// index) they can serve.
    static func planes(on device: DRMDevice, type: UInt32, format: UInt32) throws(KMSError) -> [(id: UInt32, possibleCRTCs: UInt32)] {
        guard let list = drmModeGetPlaneResources(device.fd) else { throw KMSError.current("drmModeGetPlaneResources(\(device.path))") }
        defer { drmModeFreePlaneResources(list) }
        var result: [(id: UInt32, possibleCRTCs: UInt32)] = []
        for index in 0..<Int(list.pointee.count_planes) {
            guard let plane = drmModeGetPlane(device.fd, list.pointee.planes[index]) else { continue }
            defer { drmModeFreePlane(plane) }
            let id = plane.pointee.plane_id
            let properties = try device.properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "plane \(id)")
            let formats = (0..<Int(plane.pointee.count_formats)).map { plane.pointee.formats[$0] }
            if properties.value("type") == UInt64(type), formats.contains(format) {
                result.append((id, plane.pointee.possible_crtcs))
            }
        }
        return result
    }

    private static func chooseMode(_ modes: [drmModeModeInfo], requested: KMSModeRequest?, connector: String) throws(KMSError) -> drmModeModeInfo {
        let available = modes.map { OutputMode($0).description }
        guard let requested else {
            let preferred = modes.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? modes.first
            guard let preferred else { throw KMSError.modeUnavailable(connector: connector, requested: "any", available: []) }
            return preferred
        }
        let sized = modes.filter { Int($0.hdisplay) == requested.width && Int($0.vdisplay) == requested.height }
        let best: drmModeModeInfo?
        if let refresh = requested.refreshMillihertz {
            best = sized
                .filter { abs(OutputMode($0).refreshMillihertz - refresh) <= 1000 }
                .min { abs(OutputMode($0).refreshMillihertz - refresh) < abs(OutputMode($1).refreshMillihertz - refresh) }
        } else {
            best = sized.first { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 } ?? sized.first
        }
        guard let best else { throw KMSError.modeUnavailable(connector: connector, requested: requested.description, available: available) }
        return best
    }

    static func connectorName(_ connector: drmModeConnector) -> String {
        let type = drmModeGetConnectorTypeName(connector.connector_type).map { String(cString: $0) } ?? "Unknown"
        return "\(type)-\(connector.connector_type_id)"
    }
}

/// A connector chosen for an output, with what will drive it.
struct OutputCandidate {
    let connector: UInt32
    let name: String
    let crtc: UInt32
    let plane: UInt32
    /// The CRTC's cursor plane, when the hardware cursor is asked for and the CRTC has one.
    let cursorPlane: UInt32?
    let mode: drmModeModeInfo
}

/// Which outputs to light and how.
public struct KMSOutputConfiguration: Sendable, Equatable {
    /// The connector to light by name (e.g. "HDMI-A-1", "Virtual-1"); nil lights every connected one.
    public var connector: String?
    /// The mode to set; nil takes each connector's preferred mode.
    public var mode: KMSModeRequest?
    public var scaleFactor: Double
    public var transform: OutputTransform
    /// Whether the pointer cursor may go on the CRTC's cursor plane (off: it is drawn into the
    /// frames). Where the CRTC has no ARGB8888 cursor plane, the image is too big for it, or the
    /// driver refuses the plane's state in a test commit, the cursor is drawn anyway.
    public var hardwareCursor: Bool

    public init(
        connector: String? = nil, mode: KMSModeRequest? = nil, scaleFactor: Double = 1, transform: OutputTransform = .normal,
        hardwareCursor: Bool = true
    ) {
        self.connector = connector
        self.mode = mode
        self.scaleFactor = scaleFactor
        self.transform = transform
        self.hardwareCursor = hardwareCursor
    }
}

/// A requested mode: its size, and its refresh where it matters.
public struct KMSModeRequest: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshMillihertz: Int?

    public init(width: Int, height: Int, refreshMillihertz: Int? = nil) {
        self.width = width
        self.height = height
        self.refreshMillihertz = refreshMillihertz
    }

    /// Parses "WIDTHxHEIGHT" or "WIDTHxHEIGHT@HZ" (e.g. "1024x768", "1920x1080@60").
    public init?(parsing text: String) {
        let parts = text.split(separator: "@", maxSplits: 1)
        let size = parts.first?.split(separator: "x") ?? []
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), width > 0, height > 0 else { return nil }
        var refresh: Int?
        if parts.count == 2 {
            guard let hertz = Double(parts[1]), hertz > 0, hertz <= 1000 else { return nil }
            refresh = Int((hertz * 1000).rounded())
        }
        self.init(width: width, height: height, refreshMillihertz: refresh)
    }

    public var description: String {
        refreshMillihertz.map { "\(width)x\(height)@\(Double($0) / 1000)" } ?? "\(width)x\(height)"
    }
}

extension OutputMode {
    /// A DRM mode's size and its exact refresh rate, from the pixel clock and the totals.
    init(_ mode: drmModeModeInfo) {
        var refresh = (Int(mode.clock) * 1_000_000 / max(1, Int(mode.htotal)) + Int(mode.vtotal) / 2) / max(1, Int(mode.vtotal))
        if mode.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0 { refresh *= 2 }
        if mode.flags & UInt32(DRM_MODE_FLAG_DBLSCAN) != 0 { refresh /= 2 }
        if mode.vscan > 1 { refresh /= Int(mode.vscan) }
        self.init(width: Int(mode.hdisplay), height: Int(mode.vdisplay), refreshMillihertz: refresh)
    }
}
