import Glibc
import Graphics
import WaylandServer

/// Screen capture for the clients allowed it (`Privilege.screenCapture`), through wlroots'
/// screencopy and ext-image-copy-capture alike: each frame copies what an output shows now, the
/// picture its backend reads back (`BackendOutput.lastShownImage`, the control socket's
/// `capture`). A copy that waits for damage is made once the output shows a picture that differs
/// from the one its session copied last, with the rectangles that differ, so that a remote view
/// sends only what changed.
final class ScreenCapture: OutputCaptureHandler {
    private unowned let compositor: Compositor
    /// Copies waiting for their output to show a change.
    private var waiting: [any OutputCaptureFrame] = []
    /// The picture each session (a manager) last copied of each output.
    private var lastCopies: [ObjectIdentifier: [ObjectIdentifier: Image]] = [:]
    /// Rows compared together when looking for damage: a changed band reports one rectangle.
    static let damageBandHeight = 16

    init(compositor: Compositor) {
        self.compositor = compositor
    }

    private func shown(on output: Output) -> (output: CompositorOutput, image: Image)? {
        guard let managed = compositor.outputs.first(where: { $0.global === output }),
              let image = managed.backend.lastShownImage, image.pixelFormat.isNativeWord else { return nil }
        return (managed, image)
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
        if !complete(frame) { waiting.append(frame) }
    }

    func copyAbandoned(_ frame: any OutputCaptureFrame) {
        waiting.removeAll { $0 === frame }
    }

    func sessionEnded(_ session: ObjectIdentifier) {
        lastCopies[session] = nil
    }

    /// An output showed a new frame: the copies waiting for a change try again.
    func framePresented() {
        waiting.removeAll { complete($0) }
    }

    /// Copies what the frame's output shows now into its buffer; false when it waits for damage
    /// and the picture is the same as its session's last copy.
    private func complete(_ frame: any OutputCaptureFrame) -> Bool {
        guard let output = frame.output, let (managed, image) = shown(on: output),
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
