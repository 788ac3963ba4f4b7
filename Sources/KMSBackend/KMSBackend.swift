import Buffers
internal import CDRM
import DisplayBackend
import Glibc
import Signals
import SystemCalls

/// Displays driven through a DRM device with atomic modesetting: each connected connector gets a
/// CRTC and its primary plane, a mode, and a ring of GBM buffer objects (dumb buffers where GBM
/// cannot allocate) it flips between on page-flip events. Poll-driven like every backend: the DRM fd delivers flip events, one timerfd per output
/// starts its frames.
///
/// The device is opened through a seat manager when `access` is given (libseat: seatd or logind,
/// with `suspend()`/`resume()` around VT switches), otherwise directly, which needs root (or the
/// video group) and no other DRM master.
public final class KMSBackend: DisplayBackend {
    public var outputs: [any BackendOutput] { kmsOutputs }
    public private(set) var kmsOutputs: [KMSOutput] = []
    let device: DRMDevice
    /// The outputs' buffers: GBM's on the device where it allocates.
    let allocator: SwapchainAllocator
    let configuration: KMSOutputConfiguration
    private var hotplug: HotplugMonitor?
    /// How connector changes reach the backend (udev's or the kernel's uevents), or why they do not.
    public private(set) var hotplugDescription = ""
    public let outputAdded = Signal<any BackendOutput>()
    public let outputRemoved = Signal<any BackendOutput>()
    public let outputModeChanged = Signal<any BackendOutput>()
    /// Why no output was lit at start (no display connected, or none the board names): the
    /// backend waits for one, and hotplug lights it; nil when outputs were lit.
    public private(set) var waitingForDisplay: String?
    /// What a hotplug did, for the log: outputs lit or gone, connectors that could not be lit.
    public var onHotplugMessage: ((String) -> Void)?

    /// Lights the outputs that `configuration` selects on `devicePath` (default: the first
    /// /dev/dri/card* that has a connected display), and watches the device's hotplug events.
    /// With no display connected (or none the configuration names) it lights nothing and waits
    /// for a hotplug (`waitingForDisplay` says so), as long as hotplug events can reach it; a
    /// device without connectors, or without hotplug, is an error.
    public init(
        devicePath: String? = nil, configuration: KMSOutputConfiguration = KMSOutputConfiguration(), access: KMSDeviceAccess? = nil
    ) throws(KMSError) {
        let path = if let devicePath { devicePath } else { try Self.defaultDevicePath() }
        device = try DRMDevice(path: path, access: access)
        allocator = SwapchainAllocator(device: device, mappedBuffersReason: configuration.mappedBuffersReason)
        self.configuration = configuration
        let probe = try Probe(device: device, cursors: configuration.hardwareCursor)
        let wanted = try Self.wantedAtStart(probe, configuration: configuration, device: device.path)
        do {
            let monitor = try HotplugMonitor(devicePath: path)
            hotplug = monitor
            hotplugDescription = "hotplug through \(monitor.source == "udev" ? "udev" : "the kernel's uevents (no udevd)")"
        } catch {
            hotplugDescription = "no hotplug: \(error)"
        }
        if wanted.isEmpty {
            let names = probe.topology.connectors.map { "\($0.name)\($0.isConnected ? " (connected)" : "")" }
            // Without hotplug nothing would ever light a display plugged in later.
            guard hotplug != nil else { throw KMSError.noConnectedConnector(device: path, connectors: names) }
            let named = configuration.namedConnectors
            waitingForDisplay = named.isEmpty
                ? "no display is connected to \(path) (connectors: \(names.joined(separator: ", ")))"
                : "none of \(named.joined(separator: ", ")) has a display connected on \(path) (connectors: \(names.joined(separator: ", ")))"
        }
        for (name, result) in probe.topology.assign(wanted, cursors: configuration.hardwareCursor) {
            let assignment: KMSTopology.Assignment
            switch result {
            case .success(let found): assignment = found
            case .failure: throw KMSError.noCRTC(connector: name)
            }
            kmsOutputs.append(try makeOutput(assignment, probe: probe))
        }
    }

    /// The connectors to light at start (none while no display is connected); a connector named
    /// alone must exist, and the device must have connectors.
    private static func wantedAtStart(_ probe: Probe, configuration: KMSOutputConfiguration, device: String) throws(KMSError) -> [String] {
        let connectors = probe.topology.connectors
        let names = connectors.map { "\($0.name)\($0.isConnected ? " (connected)" : "")" }
        guard !connectors.isEmpty else { throw KMSError.noConnectedConnector(device: device, connectors: names) }
        if let wanted = configuration.connector, !connectors.contains(where: { $0.name == wanted }) {
            throw KMSError.connectorNotFound(name: wanted, device: device, connectors: names)
        }
        return ConnectorChoice.wanted(named: configuration.namedConnectors, connectors: connectors.map { ($0.name, $0.isConnected) })
    }

    private func makeOutput(_ assignment: KMSTopology.Assignment, probe: Probe) throws(KMSError) -> KMSOutput {
        let name = assignment.connector
        let settings = configuration.resolved(for: name)
        let mode = try Self.chooseMode(probe.modes[name] ?? [], requested: settings.mode, connector: name)
        let candidate = OutputCandidate(
            connector: probe.connectorIDs[name] ?? 0, name: name, crtc: assignment.crtc, plane: assignment.primaryPlane,
            cursorPlane: assignment.cursorPlane, mode: mode)
        return try KMSOutput(
            device: device, allocator: allocator, candidate: candidate, offeredModes: probe.modes[name] ?? [], configuration: settings,
            events: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Reads the connectors again (after a hotplug event): outputs whose display went are turned
    /// off and removed, outputs that stay follow a change of their display's mode (see
    /// `followModes`), connected connectors the configuration wants are lit, each with a CRTC no
    /// other output uses, and take their place in `outputs` by the configuration's order of
    /// importance.
    public func reprobe() {
        let probe: Probe
        do {
            probe = try Probe(device: device, cursors: configuration.hardwareCursor)
        } catch {
            onHotplugMessage?("cannot read the connectors after a hotplug: \(error)")
            return
        }
        let wanted = ConnectorChoice.wanted(
            named: configuration.namedConnectors, connectors: probe.topology.connectors.map { ($0.name, $0.isConnected) })
        let (removed, added) = ConnectorChoice.changes(lit: kmsOutputs.map(\.name), wanted: wanted)
        for name in removed {
            guard let index = kmsOutputs.firstIndex(where: { $0.name == name }) else { continue }
            let output = kmsOutputs.remove(at: index)
            output.turnOff()
            onHotplugMessage?("\(name) was disconnected: its output is gone")
            outputRemoved.emit(output)
        }
        // Flip events of the outputs turned off are read now, before a new output may take their CRTC.
        if !removed.isEmpty { readPendingEvents() }
        followModes(probe)
        let takenCRTCs = Set(kmsOutputs.map(\.crtcID))
        let takenPlanes = Set(kmsOutputs.flatMap(\.planeIDs))
        for (name, result) in probe.topology.assign(added, takenCRTCs: takenCRTCs, takenPlanes: takenPlanes, cursors: configuration.hardwareCursor) {
            do throws(KMSError) {
                let assignment: KMSTopology.Assignment
                switch result {
                case .success(let found): assignment = found
                case .failure: throw KMSError.noCRTC(connector: name)
                }
                let output = try makeOutput(assignment, probe: probe)
                // In the order of importance: before the first lit output the configuration ranks lower.
                let rank = { (name: String) in wanted.firstIndex(of: name) ?? wanted.count }
                let position = kmsOutputs.firstIndex { rank($0.name) > rank(name) } ?? kmsOutputs.count
                kmsOutputs.insert(output, at: position)
                waitingForDisplay = nil
                onHotplugMessage?("\(name) was connected: lit as \(output.description)")
                outputAdded.emit(output)
            } catch {
                onHotplugMessage?("\(name) was connected but cannot be lit: \(error)")
            }
        }
    }

    /// The session was switched away (the seat manager takes DRM master): no more commits until
    /// `resume()`; frames asked for meanwhile wait.
    public func suspend() {
        for output in kmsOutputs { output.suspend() }
    }

    /// The session is active again: each output's mode is set again with the last frame it
    /// showed, and a frame follows to catch up on what changed meanwhile. Connectors may have
    /// changed meanwhile: they are read again.
    public func resume() throws(KMSError) {
        for output in kmsOutputs { try output.resume() }
        reprobe()
    }

    /// The outputs' GBM buffers take the XRGB8888 modifiers among `formats` that their planes
    /// scan out (`SwapchainLayout`); each output whose layout that changes gets a new ring.
    public func useRenderTargetFormats(_ formats: [DmabufFormat]) {
        let modifiers = formats.filter { $0.format == .xrgb8888 }.map(\.modifier)
        let old = allocator.renderModifiers
        guard modifiers != old else { return }
        allocator.renderModifiers = modifiers
        for output in kmsOutputs { output.renderModifiersChanged(from: old) }
    }

    /// The device path in use.
    public var devicePath: String { device.path }

    public var fileDescriptors: [FileDescriptor] {
        [device.descriptor] + (hotplug.map { [$0.fileDescriptor] } ?? [])
            + kmsOutputs.map(\.retryTimer.fileDescriptor)
    }

    public func dispatch(fileDescriptor: FileDescriptor) {
        if fileDescriptor == device.descriptor {
            handleEvents()
        } else if fileDescriptor == hotplug?.fileDescriptor {
            if hotplug?.readHotplugs() == true { reprobe() }
        } else {
            kmsOutputs.first { $0.retryTimer.fileDescriptor == fileDescriptor }?.retryTimerExpired()
        }
    }

    /// Reads the DRM events that are ready; each page-flip event reaches the output driving its
    /// CRTC. The commits' user data is this backend (unretained: it is the only reader of the
    /// fd), so an event of an output unplugged meanwhile finds no output and is dropped.
    func handleEvents() {
        var context = drmEventContext()
        // Version 3 is the first with page_flip_handler2, the handler atomic commits' events use.
        context.version = 3
        context.page_flip_handler2 = { _, sequence, seconds, microseconds, crtc, userData in
            guard let userData else { return }
            let backend = Unmanaged<KMSBackend>.fromOpaque(userData).takeUnretainedValue()
            backend.kmsOutputs.first { $0.crtcID == crtc }?.flipCompleted(
                sequence: sequence, nanoseconds: UInt64(seconds) * 1_000_000_000 + UInt64(microseconds) * 1000)
        }
        _ = drmHandleEvent(device.fd, &context)
    }

    /// Handles the events already queued, without waiting for more.
    private func readPendingEvents() {
        var entry = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
        while poll(&entry, 1, 0) > 0, entry.revents & Int16(POLLIN) != 0 {
            handleEvents()
        }
    }

    /// The first card node that has a connected connector; with none connected, the first that has
    /// connectors (a display may be plugged into it later), else the first card.
    static func defaultDevicePath() throws(KMSError) -> String {
        let cards = (0..<16).map { "/dev/dri/card\($0)" }.filter { (path: String) in access(path, F_OK) == 0 }
        guard let first = cards.first else { throw KMSError.noDevice(searched: "/dev/dri/card*") }
        var firstWithConnectors: String?
        for card in cards {
            let fd = open(card, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            guard let resources = drmModeGetResources(fd) else { continue }
            defer { drmModeFreeResources(resources) }
            if resources.pointee.count_connectors > 0, firstWithConnectors == nil { firstWithConnectors = card }
            for index in 0..<Int(resources.pointee.count_connectors) {
                guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
                defer { drmModeFreeConnector(connector) }
                if connector.pointee.connection == DRM_MODE_CONNECTED { return card }
            }
        }
        return firstWithConnectors ?? first
    }

    /// The device's connectors, CRTCs and planes as they are now.
    struct Probe {
        let topology: KMSTopology
        let connectorIDs: [String: UInt32]
        let modes: [String: [drmModeModeInfo]]
        /// The same modes as `ModeChoice` sees them.
        var offered: [String: OfferedModes] {
            modes.mapValues { list in
                OfferedModes(modes: list.map(OutputMode.init), preferred: list.firstIndex { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 })
            }
        }

        init(device: DRMDevice, cursors: Bool) throws(KMSError) {
            let fd = device.fd
            guard let resources = drmModeGetResources(fd) else { throw KMSError.current("drmModeGetResources(\(device.path))") }
            defer { drmModeFreeResources(resources) }
            let crtcs = (0..<Int(resources.pointee.count_crtcs)).map { resources.pointee.crtcs[$0] }
            var connectors: [KMSTopology.Connector] = []
            var ids: [String: UInt32] = [:]
            var modes: [String: [drmModeModeInfo]] = [:]
            for index in 0..<Int(resources.pointee.count_connectors) {
                // drmModeGetConnector probes the connector (what a hotplug needs), unlike its _Current variant.
                guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
                defer { drmModeFreeConnector(connector) }
                let name = KMSBackend.connectorName(connector.pointee)
                var possible: UInt32 = 0
                var current: Int?
                for encoderIndex in 0..<Int(connector.pointee.count_encoders) {
                    guard let encoder = drmModeGetEncoder(fd, connector.pointee.encoders[encoderIndex]) else { continue }
                    defer { drmModeFreeEncoder(encoder) }
                    possible |= encoder.pointee.possible_crtcs
                    if encoder.pointee.encoder_id == connector.pointee.encoder_id, encoder.pointee.crtc_id != 0 {
                        current = crtcs.firstIndex(of: encoder.pointee.crtc_id)
                    }
                }
                connectors.append(KMSTopology.Connector(
                    name: name, isConnected: connector.pointee.connection == DRM_MODE_CONNECTED, possibleCRTCs: possible, currentCRTC: current))
                ids[name] = connector.pointee.connector_id
                modes[name] = (0..<Int(connector.pointee.count_modes)).map { connector.pointee.modes[$0] }
            }
            let primary = try KMSBackend.planes(on: device, type: UInt32(DRM_PLANE_TYPE_PRIMARY), format: .xrgb8888)
            let cursor = cursors ? try KMSBackend.planes(on: device, type: UInt32(DRM_PLANE_TYPE_CURSOR), format: .argb8888) : []
            topology = KMSTopology(
                crtcs: crtcs, connectors: connectors,
                primaryPlanes: primary.map { KMSTopology.Plane(id: $0.id, possibleCRTCs: $0.possibleCRTCs) },
                cursorPlanes: cursor.map { KMSTopology.Plane(id: $0.id, possibleCRTCs: $0.possibleCRTCs) })
            connectorIDs = ids
            self.modes = modes
        }
    }

    /// Planes of `type` (a DRM_PLANE_TYPE_* value) that scan out `format`, with the CRTCs (by
    /// index) they can serve.
    static func planes(on device: DRMDevice, type: UInt32, format: PixelFormat) throws(KMSError) -> [(id: UInt32, possibleCRTCs: UInt32)] {
        guard let list = drmModeGetPlaneResources(device.fd) else { throw KMSError.current("drmModeGetPlaneResources(\(device.path))") }
        defer { drmModeFreePlaneResources(list) }
        var result: [(id: UInt32, possibleCRTCs: UInt32)] = []
        for index in 0..<Int(list.pointee.count_planes) {
            guard let plane = drmModeGetPlane(device.fd, list.pointee.planes[index]) else { continue }
            defer { drmModeFreePlane(plane) }
            let id = plane.pointee.plane_id
            let properties = try device.properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "plane \(id)")
            let formats = (0..<Int(plane.pointee.count_formats)).map { plane.pointee.formats[$0] }
            if properties.value("type") == UInt64(type), formats.contains(format.rawValue) {
                result.append((id, plane.pointee.possible_crtcs))
            }
        }
        return result
    }

    private static func chooseMode(_ modes: [drmModeModeInfo], requested: KMSModeRequest?, connector: String) throws(KMSError) -> drmModeModeInfo {
        let offered = OfferedModes(modes: modes.map(OutputMode.init), preferred: modes.firstIndex { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 })
        guard let index = ModeChoice.choose(requested, among: offered) else {
            throw KMSError.modeUnavailable(
                connector: connector, requested: requested?.description ?? "any", available: offered.modes.map(\.description))
        }
        return modes[index]
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

/// How one connector named by the board is lit.
public struct KMSConnectorSettings: Sendable, Equatable {
    public var connector: String
    /// The mode to set; nil takes the connector's preferred mode.
    public var mode: KMSModeRequest?
    public var scaleFactor: Double
    public var transform: OutputTransform
    /// Its place in the global space, or the output it mirrors (the compositor applies it).
    public var layout: OutputLayout

    public init(
        connector: String, mode: KMSModeRequest? = nil, scaleFactor: Double = 1, transform: OutputTransform = .normal,
        layout: OutputLayout = .automatic
    ) {
        self.connector = connector
        self.mode = mode
        self.scaleFactor = scaleFactor
        self.transform = transform
        self.layout = layout
    }
}

/// Which outputs to light and how.
public struct KMSOutputConfiguration: Sendable, Equatable {
    /// The connector to light by name (e.g. "HDMI-A-1", "Virtual-1"), alone; nil lights those of
    /// `connectors`, or every connected one when that is empty too.
    public var connector: String?
    /// The connectors a board names, most important first, each with its own mode, scale and
    /// transform: only these are lit, when connected (at start or later). `mode`, `scaleFactor`
    /// and `transform` below serve connectors not named here.
    public var connectors: [KMSConnectorSettings] = []
    /// The mode to set; nil takes each connector's preferred mode.
    public var mode: KMSModeRequest?
    public var scaleFactor: Double
    public var transform: OutputTransform
    /// The layout of connectors not named in `connectors` (a lone "first-connected" output's position).
    public var layout: OutputLayout = .automatic
    /// Whether the pointer cursor may go on the CRTC's cursor plane (off: it is drawn into the
    /// frames). Where the CRTC has no ARGB8888 cursor plane, the image is too big for it, or the
    /// driver refuses the plane's state in a test commit, the cursor is drawn anyway.
    public var hardwareCursor: Bool
    /// Where set, every output draws into dumb buffers for this reason and GBM is not loaded: the
    /// renderer writes through a mapping (the CPU renderer). Otherwise outputs take GBM buffer
    /// objects where GBM allocates.
    public var mappedBuffersReason: String?

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

extension KMSOutputConfiguration {
    /// The connector names that limit what is lit (empty: every connected connector).
    var namedConnectors: [String] { connector.map { [$0] } ?? connectors.map(\.connector) }

    /// This configuration for connector `name`: its own settings where `connectors` has them.
    func resolved(for name: String) -> KMSOutputConfiguration {
        guard let own = connectors.first(where: { $0.connector == name }) else { return self }
        var result = self
        result.mode = own.mode
        result.scaleFactor = own.scaleFactor
        result.transform = own.transform
        result.layout = own.layout
        return result
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
