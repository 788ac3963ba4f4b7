import DisplayBackend
import Glibc
import Graphics
import LayerKit
import WaylandServer

/// Screen capture for the clients allowed it (`Privilege.screenCapture`), through wlroots'
/// screencopy and ext-image-copy-capture alike: each frame copies what an output shows now, the
/// picture its backend reads back (`BackendOutput.lastShownImage`, the control socket's
/// `capture`). A copy that waits for damage is made once the output shows a picture that differs
/// from the one its session copied last, with the rectangles that differ, so that a remote view
/// sends only what changed.
final class ScreenCapture: OutputCaptureHandler {
    /// Set by the compositor as soon as it is made: it keeps this capture as a constant of its own.
    unowned var compositor: Compositor!
    /// Told every loop turn that the cursor may have changed: held here, where reaching it through
    /// the unowned `compositor` costs a retain and a release.
    private let imageCopyCaptureManager: ImageCopyCaptureManagerGlobal
    /// Copies waiting for their output to show a change.
    private var waiting: [any OutputCaptureFrame] = []
    /// The picture each session (a manager) last copied of each output.
    private var lastCopies: [ObjectIdentifier: [ObjectIdentifier: Image]] = [:]
    /// The pointer's position at the end of the last loop turn that watched it (`watchesPointer`).
    private var lastPointer: Point?
    /// Rows compared together when looking for damage: a changed band reports one rectangle.
    static let damageBandHeight = 16

    init(imageCopyCaptureManager: ImageCopyCaptureManagerGlobal) {
        self.imageCopyCaptureManager = imageCopyCaptureManager
    }

    private func shown(on output: Output) -> (output: CompositorOutput, image: Image)? {
        guard let managed = compositor.outputs.first(where: { $0.global === output }),
              let image = managed.backend.lastShownImage, image.pixelFormat.isNativeWord else { return nil }
        return (managed, image)
    }

    func cursor(on output: Output) -> CapturedCursor? {
        guard let managed = compositor.outputs.first(where: { $0.global === output }), let cursor = managed.cursor.captureImage else { return nil }
        let scale = managed.backend.scaleFactor
        return CapturedCursor(
            width: Int32(cursor.image.width), height: Int32(cursor.image.height), hotspotX: Int32(cursor.hotspotX),
            hotspotY: Int32(cursor.hotspotY), x: Int32((cursor.position.x * scale).rounded()), y: Int32((cursor.position.y * scale).rounded()))
    }

    /// What `frame` copies: the output's picture as it asks for it, or the cursor's image.
    private func source(of frame: any OutputCaptureFrame, on output: Output) -> (output: CompositorOutput, image: Image)? {
        guard frame.capturesCursorImage else { return picture(of: output, withCursor: frame.includesCursor) }
        guard let managed = compositor.outputs.first(where: { $0.global === output }), let cursor = managed.cursor.captureImage,
              cursor.image.pixelFormat.isNativeWord else { return nil }
        return (managed, cursor.image)
    }

    /// What `output` shows, with the pointer cursor or without it. The picture read back has the
    /// cursor where frames draw it and not where the cursor plane shows it: a copy with the cursor
    /// gets the plane's image drawn over it, and one without, while frames draw it, a rendering of
    /// the same frame without it.
    private func picture(of output: Output, withCursor: Bool) -> (output: CompositorOutput, image: Image)? {
        guard let (managed, image) = shown(on: output) else { return nil }
        let cursor = managed.cursor
        if withCursor {
            guard !cursor.isInFrames, let shown = cursor.captureImage else { return (managed, image) }
            return (managed, Self.drawing(shown, over: image, on: managed.backend))
        }
        guard cursor.isInFrames else { return (managed, image) }
        guard let rendered = try? managed.renderedWithoutCursor(), rendered.pixelFormat.isNativeWord,
              rendered.width == image.width, rendered.height == image.height else { return nil }
        return (managed, rendered)
    }

    /// `image` (a picture of `backend`'s panel) with the cursor image drawn over it where the
    /// cursor plane puts it: turned as the panel is, its hotspot on the pointer.
    static func drawing(_ cursor: (image: Image, hotspotX: Int, hotspotY: Int, position: Point), over image: Image,
                        on backend: any BackendOutput) -> Image {
        let geometry = CursorPlaneGeometry(mode: backend.mode, scaleFactor: backend.scaleFactor, transform: backend.transform)
        let size = geometry.turnedSize(width: cursor.image.width, height: cursor.image.height)
        let corner = geometry.origin(pointer: cursor.position, hotspotX: cursor.hotspotX, hotspotY: cursor.hotspotY,
                                     imageWidth: cursor.image.width, imageHeight: cursor.image.height)
        let left = max(0, corner.x), top = max(0, corner.y)
        let right = min(image.width, corner.x + size.width), bottom = min(image.height, corner.y + size.height)
        guard right > left, bottom > top else { return image }
        var turned = [UInt32](repeating: 0, count: size.width * size.height)
        turned.withUnsafeMutableBytes { geometry.turn(cursor.image, into: $0.baseAddress!, bytesPerRow: size.width * 4) }
        let rect = ImageRect(x: left, y: top, width: right - left, height: bottom - top)
        let drawn = try? Image(updating: image, in: rect) { origin, bytesPerRow in
            for row in 0..<rect.height {
                let pixels = (origin + row * bytesPerRow).assumingMemoryBound(to: UInt32.self)
                for column in 0..<rect.width {
                    let source = turned[(top - corner.y + row) * size.width + left - corner.x + column]
                    pixels[column] = Self.blend(source, over: pixels[column])
                }
            }
        }
        return drawn ?? image
    }

    /// The premultiplied ARGB pixel `source` over the opaque pixel `destination`.
    static func blend(_ source: UInt32, over destination: UInt32) -> UInt32 {
        let alpha = source >> 24
        guard alpha < 255 else { return source }
        var result: UInt32 = 0xFF00_0000
        for shift: UInt32 in [0, 8, 16] {
            let below = (destination >> shift) & 0xFF, above = (source >> shift) & 0xFF
            result |= min(255, above + (below * (255 - alpha) + 127) / 255) << shift
        }
        return result
    }

    func pixelSize(of output: Output) -> SurfaceSize? {
        guard let managed = compositor.outputs.first(where: { $0.global === output }) else { return nil }
        return SurfaceSize(width: Int32(managed.backend.mode.width), height: Int32(managed.backend.mode.height))
    }

    func captureRect(of output: Output, region: IntRect?) -> IntRect? {
        guard let (managed, image) = shown(on: output) else { return nil }
        let whole = IntRect(x: 0, y: 0, width: Int32(image.width), height: Int32(image.height))
        guard let region else { return whole }
        // Logical coordinates to the picture's pixels (outward, so no edge pixel is lost).
        let scale = managed.backend.scaleFactor
        let left = (Double(region.x) * scale).rounded(.down), top = (Double(region.y) * scale).rounded(.down)
        let right = (Double(region.maxX) * scale).rounded(.up), bottom = (Double(region.maxY) * scale).rounded(.up)
        let clamp = { (value: Double) in Int32(max(-Double(Int32.max), min(Double(Int32.max), value))) }
        let rect = IntRect(x: clamp(left), y: clamp(top), width: clamp(right - left), height: clamp(bottom - top))
        let clipped = rect.intersection(whole)
        return clipped.isEmpty ? nil : clipped
    }

    func copyRequested(_ frame: any OutputCaptureFrame) {
        guard !complete(frame) else { return }
        // Turns with nothing waiting do not tell this capture where the pointer is: the first copy
        // to wait starts from where it was just compared.
        if waiting.isEmpty { lastPointer = compositor.input.pointer }
        waiting.append(frame)
    }

    func copyAbandoned(_ frame: any OutputCaptureFrame) {
        waiting.removeAll { $0 === frame }
    }

    func sessionEnded(_ session: ObjectIdentifier) {
        lastCopies[session] = nil
    }

    /// An output showed a new frame: the copies waiting for a change try again.
    func framePresented() {
        // Not on an empty list: removing from the shared empty array allocates one, every frame.
        guard !waiting.isEmpty else { return }
        waiting.removeAll { complete($0) }
    }

    /// Whether the loop turn must call `pointerIs(at:)`: only while a client watches the cursor or a
    /// copy waits. Asked inline, where the call cost some 40 instructions twice a frame.
    @inline(__always)
    var watchesPointer: Bool { imageCopyCaptureManager.hasCursorSessions || !waiting.isEmpty }

    /// Once per loop turn that `watchesPointer`, where the pointer is (layout points): cursor sessions hear what
    /// changed, copies of the cursor's image that wait for a change try again, and so do copies
    /// with the cursor when it moved (on the cursor plane it moves without a frame).
    func pointerIs(at point: Point) {
        // A stored field read, not a call, on the common turn: no client watches the cursor.
        if imageCopyCaptureManager.hasCursorSessions { imageCopyCaptureManager.cursorMayHaveChanged() }
        let moved = point != lastPointer
        lastPointer = point
        guard waiting.contains(where: { $0.capturesCursorImage || (moved && $0.includesCursor) }) else { return }
        waiting.removeAll { ($0.capturesCursorImage || (moved && $0.includesCursor)) && complete($0) }
    }

    /// Copies what the frame's output shows now into its buffer; false when it waits for damage
    /// and the picture is the same as its session's last copy.
    private func complete(_ frame: any OutputCaptureFrame) -> Bool {
        guard let output = frame.output, let (managed, image) = source(of: frame, on: output),
              frame.rect.maxX <= image.width, frame.rect.maxY <= image.height else {
            frame.fail()
            return true
        }
        let previous = lastCopies[frame.session]?[ObjectIdentifier(output)]
        var damage: [IntRect] = []
        if frame.waitsForDamage || frame.reportsDamage {
            if let previous {
                damage = previous === image ? [] : Self.changedRects(from: previous, to: image, in: frame.rect)
                if damage.isEmpty && frame.waitsForDamage { return false }
            } else {
                // A session's first copy: everything is new to it.
                damage = [IntRect(x: 0, y: 0, width: frame.rect.width, height: frame.rect.height)]
            }
        }
        let rect = frame.rect
        let written = frame.writePixels { destination, bytesPerRow in
            image.withUnsafeBytes { source in
                let rowLength = Int(rect.width) * 4
                for row in 0..<Int(rect.height) {
                    let offset = (Int(rect.y) + row) * image.bytesPerRow + Int(rect.x) * 4
                    (destination + row * bytesPerRow).copyMemory(from: source.baseAddress! + offset, byteCount: rowLength)
                }
            }
        }
        guard written else {
            frame.fail()
            return true
        }
        lastCopies[frame.session, default: [:]][ObjectIdentifier(output)] = image
        frame.ready(damage: damage, presentedNanoseconds: managed.lastPresentationNanoseconds)
        return true
    }

    /// The rectangles of `rect` (in `new`'s pixels) where `new` differs from `old`, relative to
    /// `rect`'s corner: one per band of `damageBandHeight` rows that changed, from its first to its
    /// last changed column. Everything when the sizes differ.
    static func changedRects(from old: Image, to new: Image, in rect: IntRect) -> [IntRect] {
        guard old.width == new.width, old.height == new.height else {
            return [IntRect(x: 0, y: 0, width: rect.width, height: rect.height)]
        }
        return old.withUnsafeBytes { oldBytes in
            new.withUnsafeBytes { newBytes in
                let stride = new.bytesPerRow
                var rects: [IntRect] = []
                var bandTop = Int(rect.y)
                while bandTop < Int(rect.maxY) {
                    let bandBottom = min(bandTop + damageBandHeight, Int(rect.maxY))
                    var left = Int(rect.maxX), right = Int(rect.x)
                    for row in bandTop..<bandBottom {
                        let oldRow = (oldBytes.baseAddress! + row * stride).assumingMemoryBound(to: UInt32.self)
                        let newRow = (newBytes.baseAddress! + row * stride).assumingMemoryBound(to: UInt32.self)
                        guard memcmp(oldRow + Int(rect.x), newRow + Int(rect.x), Int(rect.width) * 4) != 0 else { continue }
                        // The colour only: XRGB's padding byte is no change a viewer sees.
                        let columns = Int(rect.x)..<Int(rect.maxX)
                        guard let first = columns.first(where: { (oldRow[$0] ^ newRow[$0]) & 0xff_ffff != 0 }),
                              let last = columns.last(where: { (oldRow[$0] ^ newRow[$0]) & 0xff_ffff != 0 }) else { continue }
                        left = min(left, first)
                        right = max(right, last + 1)
                    }
                    if right > left {
                        rects.append(IntRect(x: Int32(left) - rect.x, y: Int32(bandTop) - rect.y,
                                             width: Int32(right - left), height: Int32(bandBottom - bandTop)))
                    }
                    bandTop = bandBottom
                }
                return rects
            }
        }
    }
}
