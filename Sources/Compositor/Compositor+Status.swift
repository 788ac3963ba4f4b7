import DisplayBackend
import LayerKit

/// What the compositor tells of its outputs, windows and clients, for those who report on it (the
/// kiosk shell's control socket: `status`, `capture` and `print`).
extension Compositor {
    /// Each output as it is driven now.
    public var outputStatuses: [OutputStatus] {
        outputs.map { output in
            let backend = output.backend
            return OutputStatus(
                name: backend.name, width: backend.mode.width, height: backend.mode.height,
                refreshMillihertz: backend.mode.refreshMillihertz, scale: backend.scaleFactor,
                transform: backend.transform.rawValue, hasFrame: backend.lastShownImage != nil,
                x: Int(output.global.state.x), y: Int(output.global.state.y),
                isScanningOutDirectly: output.isScanningOutDirectly)
        }
    }

    /// Each mirror as it is driven now.
    public var mirrorStatuses: [MirrorStatus] {
        mirrors.map { mirror in
            let backend = mirror.backend
            return MirrorStatus(
                name: backend.name, width: backend.mode.width, height: backend.mode.height,
                refreshMillihertz: backend.mode.refreshMillihertz, transform: backend.transform.rawValue,
                source: mirror.sourceName, isShowingSource: mirror.source != nil)
        }
    }

    /// What output `index` shows now (the headless backend keeps its last frame); nil where there
    /// is no such output (every display unplugged).
    public func capture(outputAt index: Int = 0) -> Image? {
        outputs.indices.contains(index) ? outputs[index].backend.lastShownImage : nil
    }

    /// How many Wayland clients are connected.
    public var connectedClientCount: Int { display.connectedClients.count }

    /// Why no layer was found for a name: the names that would have worked.
    public struct LayerNotFound: Error, CustomStringConvertible {
        public let description: String
    }

    /// The output's logical layer tree (unturned, in points) when `name` is nil; otherwise the
    /// first layer of that name on it, depth first, or the window whose toplevel has that app ID
    /// or title.
    public func exportedLayer(named name: String?, onOutputAt index: Int) -> Result<Layer, LayerNotFound> {
        let output = outputs[index]
        guard let name else { return .success(output.root) }
        func find(_ layer: Layer) -> Layer? {
            if layer.name == name { return layer }
            for sublayer in layer.sublayers {
                if let found = find(sublayer) { return found }
            }
            return nil
        }
        if let found = find(output.root) { return .success(found) }
        let windows = shell.toplevels.filter(\.isMapped).compactMap { toplevel in node(for: toplevel.surface).map { (toplevel, $0) } }
        if let window = windows.first(where: { $0.0.appID == name || $0.0.title == name }) {
            return .success(window.1.container)
        }
        let known = windows.flatMap { [$0.0.appID, $0.0.title].compactMap { $0 } }
        return .failure(LayerNotFound(description:
            "no layer or window named \"\(name)\" on output \(index)"
                + (known.isEmpty ? " (no window is shown)" : "; windows: " + known.map { "\"\($0)\"" }.joined(separator: ", "))))
    }
}

/// An output as the compositor drives it (also what the control socket's `status` reports of it).
public struct OutputStatus: Codable, Equatable, Sendable {
    public var name: String
    /// The mode in hardware pixels, and its refresh rate in millihertz.
    public var width: Int
    public var height: Int
    public var refreshMillihertz: Int
    public var scale: Double
    /// wl_output.transform's value (0: normal, 1: 90° counter-clockwise…).
    public var transform: Int
    /// Whether the output has shown a frame (what `Compositor.capture(outputAt:)` returns).
    public var hasFrame: Bool
    /// Its top-left corner in the outputs' layout (wl_output.geometry's x and y).
    public var x: Int
    public var y: Int
    /// Whether its frames are a client's buffer scanned out directly, not composed.
    public var isScanningOutDirectly: Bool

    public init(
        name: String, width: Int, height: Int, refreshMillihertz: Int, scale: Double, transform: Int, hasFrame: Bool,
        x: Int = 0, y: Int = 0, isScanningOutDirectly: Bool = false
    ) {
        self.name = name
        self.width = width
        self.height = height
        self.refreshMillihertz = refreshMillihertz
        self.scale = scale
        self.transform = transform
        self.hasFrame = hasFrame
        self.x = x
        self.y = y
        self.isScanningOutDirectly = isScanningOutDirectly
    }
}

/// A display that shows another output's picture (a board's `mirror`): no place in the layout.
public struct MirrorStatus: Codable, Equatable, Sendable {
    public var name: String
    public var width: Int
    public var height: Int
    public var refreshMillihertz: Int
    public var transform: Int
    /// The name of the output it shows.
    public var source: String
    /// Whether that output is lit (the mirror is black while it is not).
    public var isShowingSource: Bool

    public init(name: String, width: Int, height: Int, refreshMillihertz: Int, transform: Int, source: String, isShowingSource: Bool) {
        self.name = name
        self.width = width
        self.height = height
        self.refreshMillihertz = refreshMillihertz
        self.transform = transform
        self.source = source
        self.isShowingSource = isShowingSource
    }
}
