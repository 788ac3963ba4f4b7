import DisplayBackend

/// What the control socket asks of the compositor itself: images of its outputs and their state.
extension Compositor {
    /// Each output as the `status` command shows it.
    public var outputStatuses: [ControlStatus.Output] {
        outputs.map { output in
            let backend = output.backend
            return ControlStatus.Output(
                name: backend.name, width: backend.mode.width, height: backend.mode.height,
                refreshMillihertz: backend.mode.refreshMillihertz, scale: backend.scaleFactor,
                transform: backend.transform.rawValue, hasFrame: backend.lastShownImage != nil)
        }
    }

    /// How many Wayland clients are connected.
    public var connectedClientCount: Int { display.connectedClients.count }

    /// The response to a `capture` request: the last frame the output showed, encoded as PNG off
    /// the compositor's thread (a 4K frame takes about a second). Other formats, a layer or a scale
    /// of its own are refused (this instance draws no such images yet).
    public func captureResponse(to request: ControlRequest) -> ControlResponse {
        let format = request.format ?? .png
        guard format == .png else {
            return .now(.failure("format \(format.rawValue) is not supported by this instance (only png: the output's last frame)"))
        }
        guard request.layer == nil else {
            return .now(.failure("capturing a single layer is not supported by this instance (only the whole output)"))
        }
        guard request.scale == nil else {
            return .now(.failure("a capture scale is not supported by this instance (the output's pixels only)"))
        }
        let index = request.output ?? 0
        guard outputs.indices.contains(index) else {
            return .now(.failure("no output \(index): this instance has \(outputs.count) output\(outputs.count == 1 ? "" : "s") (0…\(outputs.count - 1))"))
        }
        guard let image = capture(outputAt: index) else {
            return .now(.failure("output \(index) has shown no frame yet"))
        }
        return .later {
            do {
                return .success(mediaType: format.mediaType, body: try image.pngData())
            } catch {
                return .failure("cannot encode the frame as PNG: \(error)")
            }
        }
    }
}
