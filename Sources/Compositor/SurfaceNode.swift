import Graphics
import LayerKit
import Renderer
import WaylandServer

/// The layers that show one client surface: a container placed in its parent's coordinates (the
/// output root for a window, the parent surface for a subsurface) that holds the surface's own
/// content layer and its subsurfaces' containers in the client's stacking order.
///
/// Any LayerKit transform or animation applied to `container` (a fade between two apps, a slide)
/// moves the whole surface tree with it.
final class SurfaceNode {
    unowned let surface: Surface
    let container = Layer()
    /// Shows the client's buffer as `externalContents` (`ClientBufferContents`), read by the
    /// renderer where it lies.
    let content = ExternalContentsLayer()
    /// Popups of this surface, above its content and subsurfaces, newest on top.
    private(set) var popups: [SurfaceNode] = []
    /// What the layers were last placed for: the buffer transform and surface size (`placeContent`),
    /// the scale, the viewport's source and the buffer's size (the contents rectangle). Nil while
    /// the surface shows nothing.
    private var placedContent: PlacedContent?
    private struct PlacedContent: Equatable {
        var transform: BufferTransform
        var size: SurfaceSize
        var scale: Int32
        var viewportSource: ViewportRect?
        var bufferWidth: Int
        var bufferHeight: Int
    }
    /// Whether the container's sublayers are the content layer alone, as made, or as the last
    /// `restack` left them for a surface without subsurfaces or popups: only `addPopup` and
    /// `restack` add to them.
    private var holdsContentAlone = true
    /// Where the surface took input at the last commit applied.
    private(set) var inputRegion = Region.infinite
    /// The output the client was told the surface is on (wl_surface.enter).
    weak var enteredOutput: Output? {
        didSet { enteredOutputIdentity = enteredOutput.map(ObjectIdentifier.init) }
    }
    /// `enteredOutput`'s identity, which every frame that shows the surface compares without
    /// loading the weak reference. An output's global is cleared from the nodes on it when the
    /// output goes (`Compositor.outputDisappeared`), before anything else can take its address.
    private(set) var enteredOutputIdentity: ObjectIdentifier?
    /// The contents of the last commit with a buffer, and that buffer. The contents hold it from
    /// its client (`ClientBufferContents`): a dma-buf until a commit replaces it, so that a display
    /// can scan it out directly; a shm or single-pixel buffer until a frame has read it. What
    /// else reads a buffer holds it too (a display scanning it out, a frame on the GPU): it goes
    /// back to its client (wl_buffer.release) once the last of them lets go.
    private var shown: (contents: ClientBufferContents, buffer: Buffer)?
    /// The texture the renderer keeps this surface's buffers in, from commit to commit, made with
    /// the first buffer. It names the node without counting as a reference (no weak reference:
    /// that would put every retain and release of the node on the runtime's slow path), so the
    /// node tells it when it goes (`deinit`).
    private var madeSurfaceTexture: ClientSurfaceTexture?
    var surfaceTexture: ClientSurfaceTexture {
        if let madeSurfaceTexture { return madeSurfaceTexture }
        let made = ClientSurfaceTexture(owner: self)
        madeSurfaceTexture = made
        return made
    }

    init(surface: Surface) {
        self.surface = surface
        container.anchorPoint = .zero
        container.name = "surface-\(surface.client.processID)-\(surface.id)"
        content.anchorPoint = .zero
        content.name = "contents"
        content.isHidden = true
        container.addSublayer(content)
    }

    deinit {
        // Contents that a render tree keeps may outlive the node: their texture names it no more.
        madeSurfaceTexture?.ownerWentAway()
    }

    /// Shows the surface's committed state (`surface.current`): contents from the buffer, size,
    /// scale, viewport and opacity hints. Read part by part where it lies: a copy of the state
    /// costs a retain and a release of each of its parts every commit. `dmabufs` makes a dma-buf's
    /// contents (nil where the compositor imports none).
    func apply(dmabufs: DmabufImports?) {
        let surface = self.surface
        let size = surface.current.size
        inputRegion = surface.current.inputRegion
        let subsurface = surface.subsurface
        if let position = subsurface?.position {
            container.position = Point(x: Double(position.x), y: Double(position.y))
        }
        // A subsurface without a buffer is unmapped, and its own subsurfaces with it.
        container.isHidden = surface.current.buffer == nil && subsurface != nil
        guard let buffer = surface.current.buffer else {
            container.bounds = Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
            content.isHidden = true
            content.externalContents = nil
            dropContents()
            placedContent = nil
            return
        }
        content.isHidden = false
        if surface.current.bufferWasAttached {
            show(buffer, damage: Self.bufferDamage(of: surface, buffer: buffer), dmabufs: dmabufs)
        }
        // Most commits keep the geometry: the layers are left as they are, where each commit set
        // it again, property by property.
        let placed = PlacedContent(
            transform: surface.current.bufferTransform, size: size, scale: surface.current.bufferScale,
            viewportSource: surface.current.viewportSource, bufferWidth: buffer.width, bufferHeight: buffer.height)
        if placed != placedContent {
            container.bounds = Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
            content.contentsScale = Double(placed.scale)
            content.contentsRect = Self.contentsRect(of: surface, buffer: buffer)
            if placed.transform != placedContent?.transform || placed.size != placedContent?.size {
                placeContent(transform: placed.transform, size: size)
            }
        }
        // The opaque region is read again only when it or the size changed.
        if placed.size != placedContent?.size || surface.current.opaqueRegionWasSet {
            content.isOpaque = surface.current.opaqueRegion.covers(IntRect(x: 0, y: 0, width: size.width, height: size.height))
        }
        placedContent = placed
        showsOpaquePixels = content.isOpaque || shown?.buffer.format.hasAlpha == false
    }

    /// The device was replaced: the buffer the surface shows is read again, whole, on the new one
    /// (a dma-buf through its new import) by the next frame that draws it; a shm buffer already
    /// read is read again while its client keeps it.
    func deviceReplaced(dmabufs: DmabufImports?) {
        guard let buffer = shown?.buffer else { return }
        show(buffer, damage: nil, dmabufs: dmabufs)
    }

    /// Makes `buffer` the layer's contents, differing from the last contents in `damage`: held
    /// from its client by the contents, a dma-buf read through its import.
    private func show(_ buffer: Buffer, damage: ImageRect?, dmabufs: DmabufImports?) {
        var dmabufImport: DmabufImport?
        if case .dmabuf(let attributes) = buffer.storage { dmabufImport = dmabufs?.imported(attributes) }
        let contents = ClientBufferContents(
            buffer: buffer, dmabuf: dmabufImport, damage: damage, surface: surfaceTexture, replacing: shown?.contents)
        shown = (contents, buffer)
        content.externalContents = contents
    }

    /// Whether the surface's pixels are all opaque: its opaque region covers it, or its buffer's
    /// format has no alpha. Worked out as each commit is applied.
    private(set) var showsOpaquePixels = false

    /// A copy of the shown buffer's pixels, for a plane that scans out an image of its own (the
    /// cursor plane); nil when the buffer cannot be read by the CPU (a dma-buf) or is gone. The
    /// buffer stays with the compositor until a frame draws it or a commit replaces it.
    func bufferImage() -> Image? {
        guard let buffer = shown?.buffer else { return nil }
        return try? buffer.withPixels(Image.init(copying:))
    }

    /// Lets go of the shown buffer: it goes back to its client once no display scans it out and
    /// no frame on the GPU reads it.
    private func dropContents() {
        shown?.contents.abandon()
        shown = nil
        showsOpaquePixels = content.isOpaque
    }

    /// The surface is gone: the buffer it showed goes back to its client (once no display scans
    /// it out), which may use it for another surface.
    func surfaceDestroyed() {
        dropContents()
    }

    /// The buffer the surface shows, when a display may show it as it is: one the contents still
    /// hold from its client, a dma-buf (held while shown) or a shm buffer no frame has read yet
    /// (not given back, so its client does not write into it). A display that shows it holds it
    /// too (`LentBuffer.hold()`), until it stops.
    var scanoutCandidate: Buffer? {
        guard let shown, shown.contents.holdsBuffer else { return nil }
        if case .singlePixel = shown.buffer.storage { return nil }
        return shown.buffer
    }

    /// The buffer pixels this commit damaged, as one rectangle; nil when that is the whole buffer
    /// or unknown (no damage given, or surface damage under a transform or viewport, which is
    /// taken as all of it).
    static func bufferDamage(of surface: Surface, buffer: Buffer) -> ImageRect? {
        let surfaceDamage = surface.current.surfaceDamage
        if !surfaceDamage.isEmpty {
            guard surface.current.bufferTransform == .normal, surface.current.viewportSource == nil,
                surface.current.viewportDestination == nil
            else { return nil }
        }
        // The bounding box, gathered rectangle by rectangle: lists of them would cost allocations
        // every commit. Clients damage beyond their buffer freely (INT32_MAX sizes mean "everything").
        let width = Int64(buffer.width), height = Int64(buffer.height)
        var x0 = width, y0 = height, x1: Int64 = 0, y1: Int64 = 0
        func add(_ r: IntRect) {
            guard r.width > 0 && r.height > 0 else { return }
            x0 = min(x0, max(0, Int64(r.x)))
            y0 = min(y0, max(0, Int64(r.y)))
            x1 = max(x1, min(width, Int64(r.x) + Int64(r.width)))
            y1 = max(y1, min(height, Int64(r.y) + Int64(r.height)))
        }
        for r in surface.current.bufferDamage { add(r) }
        let scale = Int64(surface.current.bufferScale)
        func clamped(_ v: Int64) -> Int32 { Int32(clamping: v) }
        for r in surfaceDamage {
            add(IntRect(x: clamped(Int64(r.x) * scale), y: clamped(Int64(r.y) * scale),
                        width: clamped(Int64(r.width) * scale), height: clamped(Int64(r.height) * scale)))
        }
        guard x1 > x0, y1 > y0, x1 - x0 < width || y1 - y0 < height else { return nil }
        return ImageRect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
    }

    /// The viewport's source as a unit rectangle of the (untransformed) buffer.
    private static func contentsRect(of surface: Surface, buffer: Buffer) -> Rect {
        guard let source = surface.current.viewportSource else { return Rect(x: 0, y: 0, width: 1, height: 1) }
        let scale = Double(surface.current.bufferScale)
        let swapped = surface.current.bufferTransform.swapsAxes
        let width = Double(swapped ? buffer.height : buffer.width) / scale
        let height = Double(swapped ? buffer.width : buffer.height) / scale
        return Rect(x: source.x / width, y: source.y / height, width: source.width / width, height: source.height / height)
    }

    /// Undoes the client's buffer transform: the content layer has the buffer's own orientation
    /// and is turned back (about its centre) into the surface's.
    private func placeContent(transform: BufferTransform, size: SurfaceSize) {
        let width = Double(size.width), height = Double(size.height)
        let swapped = transform.swapsAxes
        content.bounds = Rect(x: 0, y: 0, width: swapped ? height : width, height: swapped ? width : height)
        content.anchorPoint = Point(x: 0.5, y: 0.5)
        content.position = Point(x: width / 2, y: height / 2)
        content.transform = Self.inverse(of: transform)
    }

    /// The transform that shows a buffer the client transformed by `transform` upright. The client
    /// flipped first, then turned counter-clockwise, so the inverse turns clockwise (a positive angle
    /// on Vitrine's y-down screen), then flips.
    static func inverse(of transform: BufferTransform) -> Transform3D {
        let quarterTurns: Double
        switch transform {
        case .normal, .flipped: quarterTurns = 0
        case .rotated90, .flipped90: quarterTurns = 1
        case .rotated180, .flipped180: quarterTurns = 2
        case .rotated270, .flipped270: quarterTurns = 3
        }
        var result = Transform3D.identity
        if quarterTurns != 0 {
            result = Transform3D(rotationAngle: quarterTurns * .pi / 2, x: 0, y: 0, z: 1)
        }
        if transform.rawValue >= BufferTransform.flipped.rawValue {
            result = result.concatenating(Transform3D(scaleX: -1, y: 1, z: 1))
        }
        return result
    }

    func addPopup(_ popup: SurfaceNode) {
        guard !popups.contains(where: { $0 === popup }) else { return }
        popups.append(popup)
        container.addSublayer(popup.container)
        holdsContentAlone = false
    }

    func removePopup(_ popup: SurfaceNode) {
        popups.removeAll { $0 === popup }
    }

    /// Orders the container's sublayers as the surface's committed stack says.
    func restack(node: (Surface) -> SurfaceNode?) {
        // Read once: each use of an unowned reference retains and releases its object.
        let surface = self.surface, content = self.content
        let stack = surface.stack
        // A surface without subsurfaces or popups whose container holds its content alone (most
        // do) keeps it so.
        if holdsContentAlone, stack.count == 1, popups.isEmpty { return }
        func layer(of member: Surface) -> Layer? { member === surface ? content : node(member)?.container }
        // Compared in place, without building the order: most commits keep it.
        var existing = container.sublayers.makeIterator()
        var unchanged = true
        func follows(_ layer: Layer) { if unchanged, existing.next() !== layer { unchanged = false } }
        for member in stack { if let layer = layer(of: member) { follows(layer) } }
        for popup in popups { follows(popup.container) }
        holdsContentAlone = stack.count == 1 && popups.isEmpty
        guard !unchanged || existing.next() != nil else { return }
        container.sublayers = stack.compactMap(layer(of:)) + popups.map(\.container)
    }
}
