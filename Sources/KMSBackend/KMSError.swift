import Glibc
public import SystemCalls

/// Why the KMS backend could not light or drive a display.
public enum KMSError: Error, Equatable, CustomStringConvertible {
    /// A system call or DRM ioctl failed.
    case system(SystemCallError)
    case noDevice(searched: String)
    case missingCapability(device: String, capability: String)
    case noConnectedConnector(device: String, connectors: [String])
    case connectorNotFound(name: String, device: String, connectors: [String])
    case modeUnavailable(connector: String, requested: String, available: [String])
    case noCRTC(connector: String)
    case noPrimaryPlane(connector: String, crtc: UInt32)
    case propertyMissing(object: String, property: String)
    /// The driver refused the configuration in its TEST_ONLY commit or the real one.
    case configurationRejected(connector: String, mode: String, errno: Errno)
    /// A frame was committed in another buffer than the output's back buffer.
    case notTheBackBuffer(output: String)
    /// The seat manager would not give the device out.
    case seatRefused(device: String, reason: String)
    /// GBM allocated a buffer in a layout the renderer cannot take.
    case unusableLayout(String)

    static func current(_ operation: String) -> KMSError {
        .system(.current(operation))
    }

    /// libdrm's wrappers return -1 (errno set) or -errno; both mean failure.
    static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(KMSError) {
        do {
            try SystemCallError.checkNegativeErrno(result, operation())
        } catch {
            throw .system(error)
        }
    }

    public var description: String {
        switch self {
        case .system(let error):
            error.description
        case .noDevice(let searched):
            "no DRM device found in \(searched)"
        case .missingCapability(let device, let capability):
            "\(device) lacks \(capability), which the KMS backend needs"
        case .noConnectedConnector(let device, let connectors):
            "no connector of \(device) has a display connected (connectors: \(connectors.joined(separator: ", ")))"
        case .connectorNotFound(let name, let device, let connectors):
            "\(device) has no connector \(name) (connectors: \(connectors.joined(separator: ", ")))"
        case .modeUnavailable(let connector, let requested, let available):
            "\(connector) offers no mode \(requested); it offers \(available.joined(separator: ", "))"
        case .noCRTC(let connector):
            "no free CRTC can drive \(connector)"
        case .noPrimaryPlane(let connector, let crtc):
            "CRTC \(crtc) for \(connector) has no primary plane that scans out XRGB8888"
        case .propertyMissing(let object, let property):
            "\(object) has no \(property) property (is the driver atomic?)"
        case .configurationRejected(let connector, let mode, let errno):
            "\(connector) cannot be lit at \(mode): the driver rejected it: \(errno) (errno \(errno.rawValue))"
                + (errno == .permissionDenied || errno == .notPermitted ? "; another process is DRM master (a running compositor or seat manager?)" : "")
        case .notTheBackBuffer(let output):
            "a frame committed on \(output) is not in its back buffer"
        case .seatRefused(let device, let reason):
            "the seat manager would not open \(device): \(reason)"
        case .unusableLayout(let reason):
            reason
        }
    }
}
