import BufferFixtures
import Buffers
@testable import CPURenderer
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// The CPU renderer's frames: written in place into host memory, a ring of targets each getting
/// what changed since its own last frame, and client buffers read where they lie.
@MainActor
@Suite(.serialized) struct CPURendererTests {
    static let (width, height, bytesPerRow) = (200, 120, 1024)

    func damagedRect(_ renderer: CPURenderer) -> ImageRect? {
        guard case .region(let x, let y, let width, let height) = renderer.lastFrameStatistics.damage else { return nil }
        return ImageRect(x: x, y: y, width: width, height: height)
    }

    /// Two buffers in turn: the first frame writes each whole, a change afterwards is written
    /// into the next buffer together with what it missed, and no byte past the pixels (row
    /// padding) is touched; the pixels are the image path's.
    @Test func aRingOfTargetsGetsTheChangesEachMissedAndNothingElse() throws {
        let root = makeRoot(200, 120)
        let square = sublayer(root, frame: Rect(x: 20, y: 30, width: 30, height: 30), background: .blue)
        let other = sublayer(root, frame: Rect(x: 120, y: 30, width: 30, height: 30), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = CPURenderer()
        let mappings = try (0..<2).map { _ in
            let mapping = try AnonymousMapping(width: Self.width, height: Self.height, bytesPerRow: Self.bytesPerRow)
            mapping.fill(0xAB)
            return mapping
        }
        func frame(into index: Int) throws -> Image {
            let tree = try #require(context.renderTree)
            try renderer.render(tree, into: mappings[index], scale: 1, clearColor: .clear).finish()
            return try Image(
                width: Self.width, height: Self.height, pixelFormat: .argb8888, bytesPerRow: Self.bytesPerRow,
                bytes: UnsafeRawBufferPointer(mappings[index].mapping))
        }
        func reference() throws -> Image {
            try CPURenderer().render(try #require(context.renderTree), width: Self.width, height: Self.height)
        }
        func padding(_ index: Int) -> Set<UInt8> {
            Set((0..<Self.height).flatMap { y in (Self.width * 4..<Self.bytesPerRow).map { mappings[index].mapping[y * Self.bytesPerRow + $0] } })
        }
        #expect(try frame(into: 0).maximumChannelDifference(from: reference()) == 0)
        #expect(renderer.lastFrameStatistics.damage == .full)
        #expect(try frame(into: 1).maximumChannelDifference(from: reference()) == 0)
        #expect(renderer.lastFrameStatistics.damage == .full)

        change { square.backgroundColor = .green }
        // The square's 30×30 points and a pixel of anti-aliasing around them.
        #expect(try frame(into: 0).maximumChannelDifference(from: reference()) == 0)
        #expect(damagedRect(renderer) == ImageRect(x: 19, y: 29, width: 32, height: 32))
        change { other.backgroundColor = .green }
        // Buffer 1 missed the square's change: both are written into it.
        #expect(try frame(into: 1).maximumChannelDifference(from: reference()) == 0)
        #expect(damagedRect(renderer) == ImageRect(x: 19, y: 29, width: 132, height: 32))
        #expect(pixel(try frame(into: 1), 30, 40) == [0, 255, 0, 255])
        #expect(renderer.lastFrameStatistics.damage == .none)
        #expect(padding(0) == [0xAB] && padding(1) == [0xAB])
    }

    /// Pixman writes through a mapping: a display's dma-buf is refused as unwritable (its display
    /// then turns to dumb buffers), and nothing of it is kept.
    @Test func aDmabufIsRefusedAsUnwritable() throws {
        let context = RenderContext(rootLayer: makeRoot(8, 8))
        Transaction.flush()
        let buffer = try DmabufFile(width: 8, height: 8, stride: 32, filledWith: 0xAB)
        #expect(throws: UnwritableBuffer.self) {
            try CPURenderer().render(try #require(context.renderTree), into: buffer, scale: 1, clearColor: .clear)
        }
        #expect(Set(buffer.contents) == [0xAB])
    }

    /// A subtree's box is its layers' drawing (bounds, and a layer unit of anti-aliasing) in its
    /// root's space, and a change below a layer makes that layer's box again.
    @Test func aSubtreesBoxFollowsAChangeBelowIt() throws {
        let root = makeRoot(200, 120)
        let left = sublayer(root, frame: Rect(x: 0, y: 0, width: 100, height: 120))
        let inner = sublayer(left, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .blue)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let bounds = SubtreeBounds()
        var tree = try #require(context.renderTree)
        bounds.update(for: tree)
        #expect(bounds.box(of: try #require(tree[left.id]), in: tree) == Rect(x: -1, y: -1, width: 102, height: 122))
        change { inner.position = Point(x: 130, y: 20) }
        tree = try #require(context.renderTree)
        bounds.update(for: tree)
        // The inner layer now spans 120…140 in its superlayer, past its bounds (no masksToBounds).
        #expect(bounds.box(of: try #require(tree[left.id]), in: tree) == Rect(x: -1, y: -1, width: 143, height: 122))
    }

    /// A frame skips subtrees whose box misses what it redraws; a layer moved out of its
    /// superlayer's old box is still drawn where a later frame redraws it (here beneath a
    /// translucent layer whose colour changes).
    @Test func aLayerMovedPastItsSuperlayersOldBoxIsRedrawnThere() throws {
        let root = makeRoot(200, 120)
        let left = sublayer(root, frame: Rect(x: 0, y: 0, width: 100, height: 120))
        let inner = sublayer(left, frame: Rect(x: 10, y: 10, width: 20, height: 20), background: .blue)
        let veil = sublayer(root, frame: Rect(x: 110, y: 0, width: 60, height: 40), background: Color(red: 1, green: 0, blue: 0, alpha: 0.5))
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = CPURenderer()
        func frame() throws -> Image { try renderer.render(try #require(context.renderTree), width: 200, height: 120) }
        func reference() throws -> Image { try CPURenderer().render(try #require(context.renderTree), width: 200, height: 120) }
        _ = try frame()
        change { inner.position = Point(x: 130, y: 20) }
        #expect(try frame().maximumChannelDifference(from: reference()) == 0)
        change { veil.backgroundColor = Color(red: 0, green: 1, blue: 0, alpha: 0.5) }
        let image = try frame()
        #expect(damagedRect(renderer) == ImageRect(x: 109, y: 0, width: 62, height: 41))
        #expect(image.maximumChannelDifference(from: try reference()) == 0)
        // Blue beneath green at half: (0, 0.5, 0.5).
        #expect(isNear(pixel(image, 130, 20), [0, 128, 128, 255]))
    }

    /// A shm-like buffer is drawn from where it lies, frame after frame (a later frame reads the
    /// client's memory again), and its surface is named as shown; a commit damaging part of
    /// the buffer redraws only that part of the output.
    @Test func aClientBufferIsSampledWhereItLies() throws {
        let root = makeRoot(40, 40)
        let owner = Layer()
        let surface = ClientSurfaceTexture(owner: owner)
        var released = 0
        let buffer = try #require(LentMemory(width: 8, height: 8, format: .xrgb8888) { released += 1 })
        func paint(rows: Range<Int>, _ pixel: UInt32) {
            for row in rows {
                (buffer.mapping.baseAddress! + row * buffer.bytesPerRow).initializeMemory(as: UInt32.self, repeating: pixel, count: 8)
            }
        }
        paint(rows: 0..<8, 0x00FF_0000)  // red; the X byte is ignored
        let first = ClientBufferContents(buffer: buffer, dmabuf: nil, damage: nil, surface: surface, replacing: nil)
        let layer = ExternalContentsLayer()
        change {
            layer.frame = Rect(x: 10, y: 10, width: 16, height: 16)
            layer.externalContents = first
            root.addSublayer(layer)
        }
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = CPURenderer()
        var image = try renderer.render(try #require(context.renderTree), width: 40, height: 40)
        #expect(pixel(image, 12, 12) == [255, 0, 0, 255])
        #expect(renderer.sampledSurfaceOwners.map(ObjectIdentifier.init) == [ObjectIdentifier(owner)])
        // Read at every frame, so held until the surface commits another buffer.
        #expect(released == 0)

        paint(rows: 4..<8, 0x0000_FF00)
        let second = ClientBufferContents(
            buffer: buffer, dmabuf: nil, damage: ImageRect(x: 0, y: 4, width: 8, height: 4), surface: surface, replacing: first
        )
        change { layer.externalContents = second }
        image = try renderer.render(try #require(context.renderTree), width: 40, height: 40)
        #expect(pixel(image, 12, 12) == [255, 0, 0, 255] && pixel(image, 12, 24) == [0, 255, 0, 255])
        // Rows 4…7 of the buffer are points 18…26, with a texel and a pixel to spare.
        #expect(damagedRect(renderer) == ImageRect(x: 9, y: 15, width: 18, height: 12))
    }

    /// The kiosk's common frame: an opaque client buffer covering the output texel for pixel,
    /// nothing above it. A commit damaging some rows costs one composite, those rows copied from
    /// the client's memory (no clear, no background beneath); a layer above the damaged rows
    /// brings the usual drawing back.
    @Test func aFullscreenOpaqueBufferIsCopiedRowsOnly() throws {
        let root = makeRoot(64, 48)
        root.backgroundColor = .black
        let buffer = try #require(LentMemory(width: 64, height: 48, format: .xrgb8888))
        func paint(rows: Range<Int>, _ pixel: UInt32) {
            for row in rows {
                (buffer.mapping.baseAddress! + row * buffer.bytesPerRow).initializeMemory(as: UInt32.self, repeating: pixel, count: 64)
            }
        }
        paint(rows: 0..<48, 0x00FF_0000)
        let surface = ClientSurfaceTexture(owner: root)
        var contents = ClientBufferContents(buffer: buffer, dmabuf: nil, damage: nil, surface: surface, replacing: nil)
        let window = ExternalContentsLayer()
        change {
            window.frame = root.bounds
            window.externalContents = contents
            root.addSublayer(window)
        }
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = CPURenderer()
        func commit(rows: Range<Int>, _ pixel: UInt32) throws -> Image {
            paint(rows: rows, pixel)
            contents = ClientBufferContents(
                buffer: buffer, dmabuf: nil, damage: ImageRect(x: 0, y: rows.lowerBound, width: 64, height: rows.count),
                surface: surface, replacing: contents)
            change { window.externalContents = contents }
            return try renderer.render(try #require(context.renderTree), width: 64, height: 48)
        }
        var image = try renderer.render(try #require(context.renderTree), width: 64, height: 48)
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        #expect(pixel(image, 10, 10) == [255, 0, 0, 255])
        image = try commit(rows: 20..<30, 0x0000_FF00)
        // The damaged rows with a texel each side (filtering would blend them) and a pixel to spare.
        #expect(renderer.lastFrameStatistics.damage == .region(x: 0, y: 18, width: 64, height: 14))
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        #expect(pixel(image, 10, 25) == [0, 255, 0, 255] && pixel(image, 10, 10) == [255, 0, 0, 255])

        let badge = sublayer(root, frame: Rect(x: 4, y: 22, width: 8, height: 4), background: .blue)
        image = try commit(rows: 20..<30, 0x0000_00FF)
        #expect(pixel(image, 6, 23) == [0, 0, 255, 255] && pixel(image, 20, 25) == [0, 0, 255, 255])
        #expect(renderer.lastFrameStatistics.drawCount == 2)
        change { badge.removeFromSuperlayer() }
    }

    /// The CPU renderer knows client contents by the contract's class alone, not by the Vulkan
    /// renderer's: `ClientContents` itself is drawn from the client's memory, hides what is behind
    /// it when opaque (one composite) and names no surface, as it knows none.
    @Test func theContractsClientContentsAreDrawnAsAClientsBuffer() throws {
        let root = makeRoot(32, 24)
        root.backgroundColor = .black
        let buffer = try #require(LentMemory(width: 32, height: 24, format: .xrgb8888))
        for row in 0..<24 {
            (buffer.mapping.baseAddress! + row * buffer.bytesPerRow).initializeMemory(as: UInt32.self, repeating: 0x0000_FF00, count: 32)
        }
        let window = ExternalContentsLayer()
        change {
            window.frame = root.bounds
            window.externalContents = ClientContents(buffer: buffer)
            root.addSublayer(window)
        }
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = CPURenderer()
        let image = try renderer.render(try #require(context.renderTree), width: 32, height: 24)
        #expect(pixel(image, 3, 3) == [0, 255, 0, 255] && pixel(image, 31, 23) == [0, 255, 0, 255])
        #expect(renderer.lastFrameStatistics.drawCount == 1)
        #expect(renderer.sampledSurfaceOwners.isEmpty)
    }

    /// pixman's view of a buffer's pixels is made once while frames read the same memory laid out
    /// the same way (a window's frames, from the two or three buffers it draws into in turn), made
    /// anew for other memory or another layout, and let go after three frames in a row that did
    /// not read it.
    @Test func aViewOfPixelsIsKeptWhileFramesReadTheSameMemory() throws {
        let views = PixmanViews()
        let window = try #require(HostMemoryBuffer(width: 8, height: 8, format: .argb8888))
        let other = try #require(HostMemoryBuffer(width: 8, height: 8, format: .argb8888))
        func view(_ buffer: HostMemoryBuffer, width: Int = 8) -> PixmanImage? {
            buffer.withPixels { rows in
                views.image(viewing: PixelRows(bytes: rows.bytes, width: width, height: 8, bytesPerRow: rows.bytesPerRow, format: rows.format))
            } ?? nil
        }
        let first = try #require(view(window))
        views.endFrame()
        #expect(view(window) === first)
        views.endFrame()
        // A frame from the client's other buffer, then one from the first again: both views stay.
        let second = try #require(view(other))
        #expect(second !== first)
        views.endFrame()
        #expect(view(window) === first)
        #expect(view(window, width: 4) !== first)
        #expect(views.count == 3)
        views.endFrame()
        // Frames of the first buffer alone: the other's view goes after its third idle frame,
        // the narrower one after its own.
        for count in [3, 2, 1] {
            #expect(view(window) === first)
            views.endFrame()
            #expect(views.count == count)
        }
        for count in [1, 1, 0] {
            views.endFrame()
            #expect(views.count == count)
        }
    }
}
