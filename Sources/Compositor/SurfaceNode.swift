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
    /// Where the surface took input at the last commit applied.
    private(set) var inputRegion = Region.infinite
    /// The output the client was told the surface is on (wl_surface.enter).
    weak var enteredOutput: Output?
    /// The dma-buf the surface shows, kept from its client (not released) so that a display can
    /// scan it out directly; released once a later commit replaces it, no display shows it and no
    /// frame on the GPU reads it.
    private(set) var shownDmabuf: (buffer: Buffer, attributes: DmabufAttributes)?
    /// How many displays scan out each replaced or current buffer now (DirectScanout.swift).
    private var scanouts: [ObjectIdentifier: Int] = [:]
    /// How many frames submitted to the GPU and not done yet read each dma-buf (sampled in place
    /// or copied): a replaced one goes back to its client only once they are done, so that the
    /// client does not write into pixels a frame still reads.
    private var framesReading: [ObjectIdentifier: Int] = [:]
    /// The shm and single-pixel buffers the surface shows that no frame has finished reading: not
    /// given back to their clients yet.
    private var unread: Set<ObjectIdentifier> = []
    /// Keeps each unread shm buffer's pixels readable should its client destroy the buffer: the
    /// window shows it until a commit replaces it, so a frame or a display may still read it.
    private var unreadShmMemory: [ObjectIdentifier: ShmMemoryLease] = [:]
    /// The contents of the last commit with a buffer, and that buffer as the renderer reads it.
    private var shown: (contents: ClientBufferContents, pixels: ClientPixelBuffer)?
    /// The texture the renderer keeps this surface's buffers in, from commit to commit.
    private(set) lazy var surfaceTexture = ClientSurfaceTexture(owner: self)

    init(surface: Surface) {
        self.surface = surface
        container.anchorPoint = .zero
        container.name = "surface-\(surface.client.processID)-\(surface.id)"
        content.anchorPoint = .zero
        content.name = "contents"
        content.isHidden = true
        container.addSublayer(content)
    }

    /// Shows the committed state: contents from the buffer, size, scale, viewport and opacity hints.
    /// `dmabufs` makes a dma-buf's contents (nil where the compositor imports none).
    func apply(_ state: SurfaceState, dmabufs: DmabufImports?) {
        let size = state.size
        inputRegion = state.inputRegion
        container.bounds = Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
        if let position = surface.subsurface?.position {
            container.position = Point(x: Double(position.x), y: Double(position.y))
        }
        // A subsurface without a buffer is unmapped, and its own subsurfaces with it.
        container.isHidden = state.buffer == nil && surface.subsurface != nil
        guard let buffer = state.buffer else {
            content.isHidden = true
            content.externalContents = nil
            dropContents()
            return
        }
        content.isHidden = false
        if state.bufferWasAttached {
            let pixels = shown.flatMap { $0.pixels.buffer === buffer ? $0.pixels : nil } ?? ClientPixelBuffer(buffer)
            if case .dmabuf(let attributes) = buffer.storage {
                keepDmabuf((buffer, attributes))
            } else {
                keepDmabuf(nil)
            }
            show(pixels, damage: Self.bufferDamage(of: state, buffer: buffer), dmabufs: dmabufs)
        }
        content.contentsScale = Double(state.bufferScale)
        content.contentsRect = Self.contentsRect(of: state, buffer: buffer)
        placeContent(state, size: size)
        content.isOpaque = state.opaqueRegion.covers(IntRect(x: 0, y: 0, width: size.width, height: size.height))
    }

    /// The device was replaced: the buffer the surface shows is read again, whole, on the new one
    /// (a dma-buf through its new import) by the next frame that draws it; a shm buffer already
    /// read is read again while its client keeps it.
    func deviceReplaced(dmabufs: DmabufImports?) {
        guard let pixels = shown?.pixels else { return }
        show(pixels, damage: nil, dmabufs: dmabufs)
    }

    /// Makes `pixels` the layer's contents, differing from the last contents in `damage`. A
    /// dma-buf stays with the compositor until a commit replaces it (a display may scan it out),
    /// and is read through its import; a shm or single-pixel buffer goes back to its client once
    /// a frame has read it.
    private func show(_ pixels: ClientPixelBuffer, damage: ImageRect?, dmabufs: DmabufImports?) {
        var dmabufImport: DmabufImport?
        var read: () -> Void = {}
        var frameReads: (() -> () -> Void)?
        if case .dmabuf(let attributes) = pixels.buffer.storage {
            dmabufImport = dmabufs?.imported(attributes)
            frameReads = { [weak self, weak buffer = pixels.buffer] in
                guard let self, let buffer else { return {} }
                framesReading[ObjectIdentifier(buffer), default: 0] += 1
                // The node stays until the frame is done: only it knows whether to release then.
                return { [self] in frameFinishedReading(buffer) }
            }
        } else {
            unread.insert(ObjectIdentifier(pixels.buffer))
            unreadShmMemory[ObjectIdentifier(pixels.buffer)] = pixels.buffer.keepingShmMemory()
            read = { [weak self, weak buffer = pixels.buffer] in
                guard let buffer else { return }
                if let self { finishedReading(buffer) } else { buffer.release() }
            }
        }
        let contents = ClientBufferContents(
            buffer: pixels, dmabuf: dmabufImport, damage: damage, surface: surfaceTexture, replacing: shown?.contents, read: read,
            frameReads: frameReads)
        shown = (contents, pixels)
        content.externalContents = contents
    }

    /// Whether the surface's pixels are all opaque: its opaque region covers it, or its buffer's
    /// format has no alpha.
    var showsOpaquePixels: Bool {
        content.isOpaque || shown?.pixels.format.hasAlpha == false
    }

    /// A copy of the shown buffer's pixels, for a plane that scans out an image of its own (the
    /// cursor plane); nil when the buffer cannot be read by the CPU (a dma-buf) or is gone. The
    /// buffer stays with the compositor until a frame draws it or a commit replaces it.
    func bufferImage() -> Image? {
        guard let pixels = shown?.pixels else { return nil }
        return try? pixels.withPixels(Image.init(copying:))
    }

    /// Lets go of the shown buffer: a dma-buf once no display scans it out, a buffer no frame read
    /// at once.
    private func dropContents() {
        shown?.contents.abandon()
        shown = nil
        keepDmabuf(nil)
    }

    /// Makes `new` the dma-buf the surface shows; the one it replaces is released unless a display
    /// still scans it out or a frame on the GPU still reads it (then when the last one stops).
    private func keepDmabuf(_ new: (buffer: Buffer, attributes: DmabufAttributes)?) {
        guard let old = shownDmabuf?.buffer, old !== new?.buffer else {
            shownDmabuf = new
            return
        }
        shownDmabuf = new
        if scanouts[ObjectIdentifier(old)] == nil, framesReading[ObjectIdentifier(old)] == nil { old.release() }
    }

    /// A frame that read the dma-buf is done on the GPU: the buffer goes back to its client once
    /// no other frame reads it, no display scans it out and the surface no longer shows it.
    private func frameFinishedReading(_ buffer: Buffer) {
        let id = ObjectIdentifier(buffer)
        framesReading[id, default: 1] -= 1
        guard framesReading[id] == 0 else { return }
        framesReading[id] = nil
        if scanouts[id] == nil, shownDmabuf?.buffer !== buffer { buffer.release() }
    }

    /// The surface is gone: the dma-buf it showed goes back to its client (once no display scans
    /// it out), which may use it for another surface.
    func surfaceDestroyed() {
        dropContents()
    }

    /// A frame finished reading a shm or single-pixel buffer (or the buffer was replaced unread):
    /// it goes back to its client, unless a display shows it (then when the display stops).
    private func finishedReading(_ buffer: Buffer) {
        let id = ObjectIdentifier(buffer)
        unread.remove(id)
        unreadShmMemory[id] = nil
        if scanouts[id] == nil { buffer.release() }
    }

    /// The buffer the surface shows, when a display may show it as it is: a dma-buf (kept from
    /// its client while shown), or a shm buffer not yet given back (so its client does not write
    /// into it).
    var scanoutCandidate: ClientPixelBuffer? {
        guard let pixels = shown?.pixels else { return nil }
        switch pixels.buffer.storage {
        case .dmabuf: return shownDmabuf?.buffer === pixels.buffer ? pixels : nil
        case .shm: return unread.contains(ObjectIdentifier(pixels.buffer)) ? pixels : nil
        case .singlePixel: return nil
        }
    }

    /// Records that a display shows `scanoutCandidate` as it is; the closure it calls when it
    /// stops. The buffer goes back to its client only then, and once the surface no longer shows
    /// it (a dma-buf) or every frame finished reading it (a shm buffer).
    func beginScanout() -> (pixels: ClientPixelBuffer, ended: () -> Void)? {
        guard let pixels = scanoutCandidate else { return nil }
        let buffer = pixels.buffer
        scanouts[ObjectIdentifier(buffer), default: 0] += 1
        return (pixels, { [weak self] in
            guard let self else { return buffer.release() }
            let id = ObjectIdentifier(buffer)
            scanouts[id, default: 1] -= 1
            guard scanouts[id] == 0 else { return }
            scanouts[id] = nil
            let inUse =
                if case .dmabuf = buffer.storage {
                    shownDmabuf?.buffer === buffer || framesReading[id] != nil
                } else {
                    unread.contains(id)
                }
            if !inUse { buffer.release() }
        })
    }

    /// The buffer pixels this commit damaged, as one rectangle; nil when that is the whole buffer
    /// or unknown (no damage given, or surface damage under a transform or viewport, which is
    /// taken as all of it).
    static func bufferDamage(of state: SurfaceState, buffer: Buffer) -> ImageRect? {
        var rects = state.bufferDamage
        if !state.surfaceDamage.isEmpty {
            guard state.bufferTransform == .normal, state.viewportSource == nil, state.viewportDestination == nil else {
                return nil
            }
            let scale = Int64(state.bufferScale)
            rects += state.surfaceDamage.map { r in
                func clamped(_ v: Int64) -> Int32 { Int32(clamping: v) }
                return IntRect(
                    x: clamped(Int64(r.x) * scale), y: clamped(Int64(r.y) * scale),
                    width: clamped(Int64(r.width) * scale), height: clamped(Int64(r.height) * scale))
            }
        }
        // Clients damage beyond their buffer freely (INT32_MAX sizes mean "everything").
        var x0 = Int64(buffer.width), y0 = Int64(buffer.height), x1: Int64 = 0, y1: Int64 = 0
        for r in rects where r.width > 0 && r.height > 0 {
            x0 = min(x0, max(0, Int64(r.x)))
            y0 = min(y0, max(0, Int64(r.y)))
            x1 = max(x1, min(Int64(buffer.width), Int64(r.x) + Int64(r.width)))
            y1 = max(y1, min(Int64(buffer.height), Int64(r.y) + Int64(r.height)))
        }
        guard x1 > x0, y1 > y0, x1 - x0 < Int64(buffer.width) || y1 - y0 < Int64(buffer.height) else { return nil }
        return ImageRect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
    }

    /// The viewport's source as a unit rectangle of the (untransformed) buffer.
    private static func contentsRect(of state: SurfaceState, buffer: Buffer) -> Rect {
        guard let source = state.viewportSource else { return Rect(x: 0, y: 0, width: 1, height: 1) }
        let scale = Double(state.bufferScale)
        let swapped = state.bufferTransform.swapsAxes
        let width = Double(swapped ? buffer.height : buffer.width) / scale
        let height = Double(swapped ? buffer.width : buffer.height) / scale
        return Rect(x: source.x / width, y: source.y / height, width: source.width / width, height: source.height / height)
    }

    /// Undoes the client's buffer transform: the content layer has the buffer's own orientation
    /// and is turned back (about its centre) into the surface's.
    private func placeContent(_ state: SurfaceState, size: SurfaceSize) {
        let width = Double(size.width), height = Double(size.height)
        let swapped = state.bufferTransform.swapsAxes
        content.bounds = Rect(x: 0, y: 0, width: swapped ? height : width, height: swapped ? width : height)
        content.anchorPoint = Point(x: 0.5, y: 0.5)
        content.position = Point(x: width / 2, y: height / 2)
        content.transform = Self.inverse(of: state.bufferTransform)
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
    }

    func removePopup(_ popup: SurfaceNode) {
        popups.removeAll { $0 === popup }
    }

    /// Orders the container's sublayers as the surface's committed stack says.
    func restack(node: (Surface) -> SurfaceNode?) {
        func layer(of member: Surface) -> Layer? { member === surface ? content : node(member)?.container }
        // Compared in place, without building the order: most commits keep it.
        var existing = container.sublayers.makeIterator()
        var unchanged = true
        func follows(_ layer: Layer) { if unchanged, existing.next() !== layer { unchanged = false } }
        for member in surface.stack { if let layer = layer(of: member) { follows(layer) } }
        for popup in popups { follows(popup.container) }
        guard !unchanged || existing.next() != nil else { return }
        container.sublayers = surface.stack.compactMap(layer(of:)) + popups.map(\.container)
    }
}
