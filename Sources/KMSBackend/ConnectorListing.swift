import Buffers
internal import CDRM
import DisplayBackend
import Glibc

/// One connector of a DRM device as `vitrine list-outputs` shows it: what a board configuration's
/// `connector` and `mode` can name.
public struct ConnectorDescription: Sendable, Equatable, CustomStringConvertible {
    /// The kernel's name, `TYPE-N` (`HDMI-A-1`, `eDP-1`, `Virtual-1`).
    public let name: String
    public let isConnected: Bool
    /// Its modes in the driver's order; `preferredMode` indexes the one the display prefers.
    public let modes: [OutputMode]
    public let preferredMode: Int?

    public var description: String {
        let state = isConnected ? "connected" : "disconnected"
        let list = modes.enumerated().map { index, mode in index == preferredMode ? "\(mode) (preferred)" : "\(mode)" }
        return list.isEmpty ? "\(name): \(state)" : "\(name): \(state), modes \(list.joined(separator: ", "))"
    }
}

extension KMSBackend {
    /// The connectors of the device at `devicePath` (default: the one `KMSBackend` would open),
    /// read without taking the display over: listing works while another compositor runs.
    public static func connectors(devicePath: String? = nil) throws(KMSError) -> (device: String, connectors: [ConnectorDescription]) {
        let path = if let devicePath { devicePath } else { try defaultDevicePath() }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw KMSError.system(.current("open", path: path)) }
        defer { close(fd) }
        guard let resources = drmModeGetResources(fd) else { throw KMSError.current("drmModeGetResources(\(path))") }
        defer { drmModeFreeResources(resources) }
        var result: [ConnectorDescription] = []
        for index in 0..<Int(resources.pointee.count_connectors) {
            guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[index]) else { continue }
            defer { drmModeFreeConnector(connector) }
            let modes = (0..<Int(connector.pointee.count_modes)).map { connector.pointee.modes[$0] }
            result.append(ConnectorDescription(
                name: connectorName(connector.pointee), isConnected: connector.pointee.connection == DRM_MODE_CONNECTED,
                modes: modes.map(OutputMode.init), preferredMode: modes.firstIndex { $0.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 }))
        }
        return (path, result)
    }
}

extension KMSBackend {
    /// Which buffers the outputs of the device at `devicePath` (default: the one `KMSBackend` would
    /// open) would draw frames into and scan out from, for a renderer that renders into
    /// `renderTargetFormats` (`LayerTreeRenderer.renderTargetFormats`), found by allocating
    /// buffers of `width`×`height` as an output would: "GBM buffer objects, modifier …", "GBM
    /// buffer objects, linear (…)" or "dumb buffers (…)", with the reasons. Needs no DRM master.
    /// Whether the renderer can import GBM's buffers shows only when Vitrine runs (the log then
    /// says so, and the output turns to dumb buffers).
    public static func swapchainPath(
        devicePath: String? = nil, width: Int, height: Int, renderTargetFormats: [DmabufFormat]
    ) throws(KMSError) -> String {
        let path = if let devicePath { devicePath } else { try defaultDevicePath() }
        let device = try DRMDevice(path: path)
        let allocator = SwapchainAllocator(device: device, mappedBuffersReason: nil)
        allocator.renderModifiers = renderTargetFormats.filter { $0.format == .xrgb8888 }.map(\.modifier)
        guard let resources = drmModeGetPlaneResources(device.fd) else { throw KMSError.current("drmModeGetPlaneResources(\(path))") }
        let planes = (0..<Int(resources.pointee.count_planes)).map { resources.pointee.planes[$0] }
        drmModeFreePlaneResources(resources)
        let plane = planes.first { plane in
            let properties = try? device.properties(of: plane, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "plane \(plane)")
            return properties?.value("type") == UInt64(DRM_PLANE_TYPE_PRIMARY)
        } ?? 0
        return try allocator.makeBuffers(width: width, height: height, plane: plane).path
    }
}

