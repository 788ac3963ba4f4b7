internal import CDRM
import DisplayBackend
import Graphics

/// A CRTC's cursor plane: two ARGB8888 dumb buffers of the size the driver takes, and what the
/// plane should show (an image and the pointer's position) against what was last committed.
///
/// A new image goes into the buffer that the last commit did not show, and only while no commit
/// is in flight (`addChanges` is called then), so the buffer being scanned out is never written.
final class CursorPlane {
    let plane: UInt32
    /// The buffers' size: the largest cursor the driver scans out (DRM_CAP_CURSOR_WIDTH/HEIGHT).
    let width: Int
    let height: Int
    private let buffers: [DumbBuffer]
    private var geometry: CursorPlaneGeometry
    private let properties: (framebuffer: UInt32, crtc: UInt32, crtcX: UInt32, crtcY: UInt32, crtcW: UInt32, crtcH: UInt32,
                             srcX: UInt32, srcY: UInt32, srcW: UInt32, srcH: UInt32)

    private struct Wanted: Equatable {
        var image: Image?
        var hotspotX = 0
        var hotspotY = 0
    }
    private var wanted = Wanted()
    /// Whether `show` was called since the last commit, even with the same image (or none): it is
    /// written and committed again, so that its presentation is reported (a client's frame callback).
    private var imageIsNew = false
    private var pointer = Point.zero
    /// What the last successful commit showed: the buffer (nil: plane off), its image and origin.
    /// The output's modeset starts with the plane off.
    private var committed: (buffer: Int?, image: Image?, origin: (x: Int, y: Int)) = (nil, nil, (0, 0))

    init(device: DRMDevice, plane: UInt32, geometry: CursorPlaneGeometry) throws(KMSError) {
        self.plane = plane
        self.geometry = geometry
        // Drivers that predate the caps take 64×64.
        width = Int((try? DRMDevice.capability(DRM_CAP_CURSOR_WIDTH, of: device.fd, path: device.path)) ?? 64)
        height = Int((try? DRMDevice.capability(DRM_CAP_CURSOR_HEIGHT, of: device.fd, path: device.path)) ?? 64)
        let list = try device.properties(of: plane, type: UInt32(DRM_MODE_OBJECT_PLANE), describedAs: "cursor plane \(plane)")
        properties = (try list.id("FB_ID"), try list.id("CRTC_ID"), try list.id("CRTC_X"), try list.id("CRTC_Y"),
                      try list.id("CRTC_W"), try list.id("CRTC_H"), try list.id("SRC_X"), try list.id("SRC_Y"),
                      try list.id("SRC_W"), try list.id("SRC_H"))
        let size = (width: width, height: height)
        buffers = try (0..<2).map { _ throws(KMSError) in
            try DumbBuffer(device: device, width: size.width, height: size.height, format: .argb8888)
        }
    }

    /// The output's mode changed: images and positions are turned and placed for the new panel.
    func follow(_ newGeometry: CursorPlaneGeometry) {
        geometry = newGeometry
    }

    /// Whether an image of this size fits the plane once turned for the panel.
    func fits(width imageWidth: Int, height imageHeight: Int) -> Bool {
        let turned = geometry.turnedSize(width: imageWidth, height: imageHeight)
        return turned.width <= width && turned.height <= height
    }

    func show(_ image: Image?, hotspotX: Int, hotspotY: Int) {
        wanted = Wanted(image: image, hotspotX: hotspotX, hotspotY: hotspotY)
        imageIsNew = true
    }

    /// Nothing to show, after a refused image: committed only if the plane shows something.
    func hide() {
        wanted = Wanted()
        imageIsNew = false
    }

    func move(to point: Point) {
        pointer = point
    }

    /// A modeset turned the plane off (`addDisabled`): the next commit sets it all again.
    func turnedOff() {
        committed = (nil, nil, (0, 0))
    }

    private var origin: (x: Int, y: Int) {
        guard let image = wanted.image else { return (0, 0) }
        return geometry.origin(pointer: pointer, hotspotX: wanted.hotspotX, hotspotY: wanted.hotspotY,
                               imageWidth: image.width, imageHeight: image.height)
    }

    /// Whether the plane shows something else than it should.
    var needsCommit: Bool {
        imageIsNew || committed.image !== wanted.image || (wanted.image != nil && committed.origin != origin)
    }

    /// A change to commit: the buffer it shows and where.
    struct Change {
        fileprivate let buffer: Int?
        fileprivate let image: Image?
        fileprivate let origin: (x: Int, y: Int)
        /// Whether it shows another image than before, or hides it: its flip is the image's presentation.
        let changesImage: Bool
    }

    /// Adds what changed to `request` (writing a new image into the buffer not shown now, unless
    /// the request is only a test, which must not touch a buffer that may still be scanned out);
    /// pass the result to `committed(_:)` once the commit succeeded.
    func addChanges(to request: AtomicRequest, crtc: UInt32, testOnly: Bool = false) throws(KMSError) -> Change {
        guard let image = wanted.image else {
            try request.set(plane, properties.framebuffer, 0)
            try request.set(plane, properties.crtc, 0)
            return Change(buffer: nil, image: nil, origin: (0, 0), changesImage: imageIsNew || committed.image != nil)
        }
        let origin = origin
        var bufferIndex = committed.buffer ?? 1
        let changesImage = imageIsNew || committed.image !== image
        if changesImage {
            bufferIndex = 1 - (committed.buffer ?? 1)
        }
        if changesImage && !testOnly {
            let buffer = buffers[bufferIndex]
            for row in 0..<buffer.height {
                (buffer.mapping.baseAddress! + row * buffer.bytesPerRow).initializeMemory(as: UInt32.self, repeating: 0, count: buffer.width)
            }
            geometry.turn(image, into: buffer.mapping.baseAddress!, bytesPerRow: buffer.bytesPerRow)
        }
        let values: [(UInt32, UInt64)] = [
            (properties.framebuffer, UInt64(buffers[bufferIndex].framebuffer)), (properties.crtc, UInt64(crtc)),
            // CRTC_X/Y are signed: a cursor at the panel's left or top edge hangs over it.
            (properties.crtcX, UInt64(bitPattern: Int64(origin.x))), (properties.crtcY, UInt64(bitPattern: Int64(origin.y))),
            (properties.crtcW, UInt64(width)), (properties.crtcH, UInt64(height)),
            (properties.srcX, 0), (properties.srcY, 0), (properties.srcW, UInt64(width) << 16), (properties.srcH, UInt64(height) << 16),
        ]
        for (property, value) in values { try request.set(plane, property, value) }
        return Change(buffer: bufferIndex, image: image, origin: origin, changesImage: changesImage)
    }

    /// Whether the last commit left an image on the plane.
    var showsImage: Bool { committed.image != nil }

    func committed(_ change: Change) {
        committed = (change.buffer, change.image, change.origin)
        if change.image === wanted.image { imageIsNew = false }
    }

    /// The plane turned off, for a modeset.
    func addDisabled(to values: inout [(object: UInt32, property: UInt32, value: UInt64)]) {
        values.append((plane, properties.framebuffer, 0))
        values.append((plane, properties.crtc, 0))
    }
}
