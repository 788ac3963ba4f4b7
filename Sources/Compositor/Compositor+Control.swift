import DisplayBackend
import LayerKit

/// What the control socket asks of the compositor itself: images of its outputs and their state.
extension Compositor {
    /// Each output as the `status` command shows it.
    public var outputStatuses: [ControlStatus.Output] {
        outputs.map { output in
            let backend = output.backend
            return ControlStatus.Output(
                name: backend.name, width: backend.mode.width, height: backend.mode.height,
                refreshMillihertz: backend.mode.refreshMillihertz, scale: backend.scaleFactor,
                transform: backend.transform.rawValue, hasFrame: backend.lastShownImage != nil,
                x: Int(output.global.state.x), y: Int(output.global.state.y),
                isScanningOutDirectly: output.isScanningOutDirectly)
        }
    }

    /// Each mirror as the `status` command shows it.
    public var mirrorStatuses: [ControlStatus.Mirror] {
        mirrors.map { mirror in
            let backend = mirror.backend
            return ControlStatus.Mirror(
                name: backend.name, width: backend.mode.width, height: backend.mode.height,
                refreshMillihertz: backend.mode.refreshMillihertz, transform: backend.transform.rawValue,
                source: mirror.sourceName, isShowingSource: mirror.source != nil)
        }
    }

    /// How many Wayland clients are connected.
    public var connectedClientCount: Int { display.connectedClients.count }

    /// The response to a `capture` request. A PNG of a whole output at its own scale is the last
    /// frame it showed (what the display got); anything else (a layer, another scale, PDF or SVG)
    /// is drawn from the output's layer tree through `Layer.render(in:)`, vector where it was
    /// drawn, client surfaces as the images they are. PNG encoding runs off the compositor's thread.
    public func captureResponse(to request: ControlRequest) -> ControlResponse {
        let format = request.format ?? .png
        let index = request.output ?? 0
        guard outputs.indices.contains(index) else {
            return .now(.failure("no output \(index): this instance has \(outputs.count) output\(outputs.count == 1 ? "" : "s") (0…\(outputs.count - 1))"))
        }
        if let scale = request.scale, !(scale > 0 && scale <= 16) {
            return .now(.failure("scale \(scale) is outside the range above 0 and up to 16"))
        }
        if format == .png && request.layer == nil && request.scale == nil {
            guard let image = capture(outputAt: index) else {
                return .now(.failure("output \(index) has shown no frame yet"))
            }
            return .later { Self.pngReply(image) }
        }
        let layer: Layer
        switch exportedLayer(named: request.layer, onOutputAt: index) {
        case .success(let found): layer = found
        case .failure(let message): return .now(.failure(message.description))
        }
        // A whole output shows black where nothing is drawn, as on its display.
        let background: Color? = request.layer == nil ? Color(white: 0) : nil
        do {
            switch format {
            case .png:
                let image = try layer.renderedImage(scale: request.scale ?? outputs[index].backend.scaleFactor, background: background)
                return .later { Self.pngReply(image) }
            case .pdf:
                return .now(.success(mediaType: format.mediaType, body: try layer.exportData(as: .pdf(page: nil), background: background)))
            case .svg:
                return .now(.success(mediaType: format.mediaType, body: try layer.exportData(as: .svg, background: background)))
            }
        } catch {
            return .now(.failure("cannot draw \(request.layer.map { "the layer \($0)" } ?? "output \(index)") as \(format.rawValue): \(error)"))
        }
    }

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

    private static func pngReply(_ image: Image) -> ControlReply {
        do {
            return .success(mediaType: CaptureFormat.png.mediaType, body: try image.pngData())
        } catch {
            return .failure("cannot encode the image as PNG: \(error)")
        }
    }
}
