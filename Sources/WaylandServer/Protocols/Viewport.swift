import WaylandProtocols

/// wp_viewport: crops (source rectangle) and scales (destination size) one surface's contents.
/// The state is double-buffered in the surface's pending state and checked on every commit.
final class Viewport: Resource, RequestHandler {
    /// Nil from the surface's destruction on; strong, not weak (docs/architecture.md: a weak
    /// reference would give the surface, which every frame retains, a side table).
    private let surfaceReference: LiveSurfaceReference
    private var surface: Surface? { surfaceReference.surface }
    // The values the client asked for last: setting one part stages both, so that a later commit
    // merged into a synchronized subsurface's cache does not lose the other part.
    private var source: ViewportRect?
    private var destination: SurfaceSize?

    private static let key = ObjectIdentifier(Viewport.self)

    init(client: Client, id: UInt32, surface: Surface) {
        surfaceReference = LiveSurfaceReference(surface)
        super.init(Viewport.self, client: client, version: 1, id: id)
    }

    /// Registers the viewport with its surface (one per surface, see `Surface.viewport`).
    func attach() {
        guard let surface else { return }
        surface.extensions[Self.key] = self
        surface.commitValidators[Self.key] = validate
    }

    func handle(_ request: Request) throws(ProtocolError) {
        let badValue = WpViewportError.badValue
        switch request {
        case .destroy: destroy()
        case .setSource(let x, let y, let width, let height):
            let surface = try liveSurface()
            if x == -1 && y == -1 && width == -1 && height == -1 {
                source = nil
            } else {
                guard x >= 0, y >= 0, width > 0, height > 0 else {
                    throw ProtocolError(badValue, "source rectangle (\(x), \(y), \(width)×\(height)) is invalid")
                }
                source = ViewportRect(x: x, y: y, width: width, height: height)
            }
            stage(on: surface)
        case .setDestination(let requestedWidth, let requestedHeight):
            let surface = try liveSurface()
            let (width, height) = (ClientCoordinate.clamp(requestedWidth), ClientCoordinate.clamp(requestedHeight))
            if width == -1 && height == -1 {
                destination = nil
            } else {
                guard width > 0, height > 0 else {
                    throw ProtocolError(badValue, "destination size \(width)×\(height) is invalid")
                }
                destination = SurfaceSize(width: width, height: height)
            }
            stage(on: surface)
        }
    }

    private func liveSurface() throws(ProtocolError) -> Surface {
        guard let surface, surface.isAlive else {
            throw ProtocolError(WpViewportError.noSurface, "the wl_surface of wp_viewport@\(id) was destroyed")
        }
        return surface
    }

    private func stage(on surface: Surface) {
        surface.pending.viewportChanged = true
        surface.pending.viewportSource = source
        surface.pending.viewportDestination = destination
    }

    /// The checks the protocol makes when the state is applied, made when it is committed.
    private func validate(_ surface: Surface, _ pending: inout PendingSurfaceState) throws(ProtocolError) {
        guard let source else { return }
        if destination == nil && (source.width != source.width.rounded() || source.height != source.height.rounded()) {
            throw ProtocolError(WpViewportError.badSize,
                                "source size \(source.width)×\(source.height) is not integer and no destination is set", on: self)
        }
        guard let buffer = pending.attached ? pending.buffer : surface.current.buffer, buffer.isAlive else { return }
        // The source rectangle is in the buffer's surface-local coordinates: after transform, then scale.
        let transform = pending.bufferTransform ?? surface.current.bufferTransform
        let scale = Double(pending.bufferScale ?? surface.current.bufferScale)
        let (width, height) = transform.swapsAxes ? (buffer.height, buffer.width) : (buffer.width, buffer.height)
        if source.x + source.width > Double(width) / scale || source.y + source.height > Double(height) / scale {
            throw ProtocolError(WpViewportError.outOfBuffer,
                                "source rectangle (\(source.x), \(source.y), \(source.width)×\(source.height)) is outside the "
                                    + "\(Double(width) / scale)×\(Double(height) / scale) buffer", on: self)
        }
    }

    override func destroyed() {
        // Destroying the viewport removes crop and scale on the surface's next commit.
        guard let surface, surface.isAlive, surface.viewport === self else { return }
        surface.extensions[Self.key] = nil
        surface.commitValidators[Self.key] = nil
        source = nil
        destination = nil
        stage(on: surface)
    }
}

extension Surface {
    /// The surface's wp_viewport, while it has one.
    var viewport: Viewport? { extensions[ObjectIdentifier(Viewport.self)] as? Viewport }
}
