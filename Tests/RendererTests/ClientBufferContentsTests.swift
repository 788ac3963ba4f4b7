import BufferFixtures
import Buffers
import Foundation
import Glibc
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// A file of `rows` rows of `stride` bytes after `offset` bytes, each row `width` copies of the
/// 4-byte `pixel` then 0xEE padding, as a client lays out a linear dma-buf.
///
/// lavapipe maps the descriptor it imports, so an unlinked temporary file stands in for a dma-buf
/// here (these machines have no /dev/udmabuf); the QEMU rig shows buffers of a real DRM driver.
func linearBufferFile(width: Int, rows: Int, stride: Int, offset: Int, pixel: [UInt8]) -> Int32 {
    // tmpfile() is already unlinked; the descriptor outlives the stream through dup().
    let stream = tmpfile()
    precondition(stream != nil, "tmpfile failed")
    let fd = dup(fileno(stream))
    fclose(stream)
    precondition(fd >= 0, "dup failed")
    var bytes = [UInt8](repeating: 0xEE, count: offset + stride * rows)
    for row in 0..<rows {
        for x in 0..<width {
            bytes.replaceSubrange((offset + row * stride + x * 4)..<(offset + row * stride + x * 4 + 4), with: pixel)
        }
    }
    bytes.withUnsafeBytes { precondition(write(fd, $0.baseAddress, $0.count) == $0.count) }
    return fd
}

/// Overwrites rows `rows` of the file with `pixel` (the whole row, padding aside).
func repaint(_ fd: Int32, rows: Range<Int>, width: Int, stride: Int, offset: Int, pixel: [UInt8]) {
    let row = (0..<width).flatMap { _ in pixel }
    for y in rows {
        row.withUnsafeBytes { precondition(pwrite(fd, $0.baseAddress, $0.count, off_t(offset + y * stride)) == $0.count) }
    }
}

/// Client buffers as layers' contents, read when a frame draws them: a shm-like buffer in host
/// memory (staged from where it lies, then released), and dma-bufs (copied by the GPU from their
/// import, at their stride and offset).
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct ClientBufferContentsTests {
    func layer(showing contents: ClientBufferContents, in root: Layer, frame: Rect) -> ExternalContentsLayer {
        let layer = ExternalContentsLayer()
        change {
            layer.frame = frame
            layer.externalContents = contents
            root.addSublayer(layer)
        }
        return layer
    }

    /// Contents of `source`'s dma-buf `layout`, the first of their surface.
    func contents(_ layout: DmabufLayout, import source: DmabufImport, damage: ImageRect? = nil,
                  replacing previous: ClientBufferContents? = nil) -> ClientBufferContents {
        ClientBufferContents(
            buffer: ClientDmabuf(layout), dmabuf: source, damage: damage, surface: previous?.surface ?? ClientSurfaceTexture(owner: nil),
            replacing: previous)
    }

    /// Host memory filled with `pixel` (0xAARRGGBB), as a client's shm buffer; `returned` hears
    /// when it goes back to its client.
    func memory(width: Int, height: Int, pixel: UInt32, returned: @escaping () -> Void = {}) throws -> LentMemory {
        let buffer = try #require(LentMemory(width: width, height: height, format: .argb8888, returned: returned))
        for row in 0..<height {
            (buffer.mapping.baseAddress! + row * buffer.bytesPerRow).initializeMemory(as: UInt32.self, repeating: pixel, count: width)
        }
        return buffer
    }

    /// Nothing is read when the contents are made; the frame that draws them stages the buffer's
    /// damage from where it lies and only then says it was read; a later frame reads nothing.
    @Test func aBufferIsReadByTheFrameThatDrawsItAndThenReleased() throws {
        let renderer = try validatingRenderer.get()
        let owner = Layer()
        let surface = ClientSurfaceTexture(owner: owner)
        var reads: [String] = []
        let red = try memory(width: 4, height: 4, pixel: 0xFFFF_0000) { reads.append("red") }
        let first = ClientBufferContents(buffer: red, dmabuf: nil, damage: nil, surface: surface, replacing: nil)
        #expect(reads == [] && surface.uploadedBytes == 0 && !first.isUploaded)
        let root = makeRoot(4, 4)
        let shown = layer(showing: first, in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        #expect(reads == [])
        #expect(pixel(try render(root), 1, 1) == [255, 0, 0, 255])
        #expect(reads == ["red"] && surface.uploadedBytes == 64)
        #expect(renderer.sampledClientContents.map(ObjectIdentifier.init) == [ObjectIdentifier(first)])
        #expect(surface.owner === owner)

        // The next buffer differs in its top two rows: only they are staged.
        let blue = try memory(width: 4, height: 4, pixel: 0xFF00_00FF) { reads.append("blue") }
        let second = ClientBufferContents(
            buffer: blue, dmabuf: nil, damage: ImageRect(x: 0, y: 0, width: 4, height: 2), surface: surface, replacing: first)
        change { shown.externalContents = second }
        let image = try render(root)
        #expect(pixel(image, 1, 1) == [0, 0, 255, 255])
        #expect(pixel(image, 1, 2) == [255, 0, 0, 255])
        #expect(reads == ["red", "blue"] && surface.uploadedBytes == 64 + 32)
    }

    /// Frames name a surface's owner until the owner says it went (a surface's node does in its
    /// deinit), though contents that a render tree keeps outlive it: the texture holds no
    /// reference to the owner, weak or strong.
    @Test func framesNameTheSurfaceOwnerUntilItGoes() throws {
        let renderer = try validatingRenderer.get()
        let owner = Layer()
        let surface = ClientSurfaceTexture(owner: owner)
        let red = try memory(width: 4, height: 4, pixel: 0xFFFF_0000)
        let contents = ClientBufferContents(buffer: red, dmabuf: nil, damage: nil, surface: surface, replacing: nil)
        let root = makeRoot(4, 4)
        _ = layer(showing: contents, in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        _ = try render(root)
        #expect(renderer.sampledSurfaceOwners.map(ObjectIdentifier.init) == [ObjectIdentifier(owner)])
        surface.ownerWentAway()
        #expect(surface.owner == nil && renderer.sampledSurfaceOwners.isEmpty)
        withExtendedLifetime(owner) {}
    }

    /// Contents replaced before any frame read them are released at once, and their damage is
    /// read from the buffer that replaced them; the same buffer committed again is released once.
    @Test func contentsReplacedUnreadPassTheirDamageOn() throws {
        let owner = Layer()
        let surface = ClientSurfaceTexture(owner: owner)
        var reads: [String] = []
        let red = try memory(width: 4, height: 4, pixel: 0xFFFF_0000) { reads.append("red") }
        let first = ClientBufferContents(buffer: red, dmabuf: nil, damage: nil, surface: surface, replacing: nil)
        let root = makeRoot(4, 4)
        let shown = layer(showing: first, in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        _ = try render(root)
        let green = try memory(width: 4, height: 4, pixel: 0xFF00_FF00) { reads.append("green") }
        let second = ClientBufferContents(
            buffer: green, dmabuf: nil, damage: ImageRect(x: 0, y: 0, width: 1, height: 1), surface: surface, replacing: first)
        let third = ClientBufferContents(
            buffer: green, dmabuf: nil, damage: ImageRect(x: 3, y: 3, width: 1, height: 1), surface: surface, replacing: second)
        // The same buffer again: the second commit's hold is the third's now.
        #expect(reads == ["red"] && green.holds == 1)
        change { shown.externalContents = third }
        let image = try render(root)
        #expect(reads == ["red", "green"] && green.holds == 0)
        // Both damaged pixels, as their bounding box of the green buffer.
        #expect(pixel(image, 0, 0) == [0, 255, 0, 255] && pixel(image, 3, 3) == [0, 255, 0, 255])
        #expect(surface.uploadedBytes == 64 + 64)
    }

    /// Rows read at the client's stride from its offset; ABGR8888's bytes are R, G, B, A.
    @Test func aLinearBufferShowsItsPixelsAtItsStrideAndOffset() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 8, rows: 4, stride: 48, offset: 64, pixel: [0xFF, 0x80, 0x10, 0xFF])
        defer { close(fd) }
        let layout = DmabufLayout(fileDescriptor: fd, width: 8, height: 4, format: .abgr8888, modifier: 0, offset: 64, stride: 48)
        let shown = contents(layout, import: try renderer.importDmabuf(layout))
        #expect(shown.pixelSize! == (8, 4))
        let root = makeRoot(16, 8)
        _ = layer(showing: shown, in: root, frame: Rect(x: 0, y: 0, width: 8, height: 4))
        let image = try render(root)
        #expect(pixel(image, 0, 0) == [0xFF, 0x80, 0x10, 0xFF])
        #expect(pixel(image, 7, 3) == [0xFF, 0x80, 0x10, 0xFF])
        // Beside and below the layer, the root's white.
        #expect(pixel(image, 8, 0) == [255, 255, 255, 255])
        #expect(pixel(image, 0, 4) == [255, 255, 255, 255])
    }

    /// A linear buffer whose stride is the row pitch the device gives a linear image of its width
    /// (lavapipe: the row's bytes rounded up to 64) becomes an image over the dma-buf: frames
    /// sample it where it lies, copying nothing, so what the client writes later shows in the
    /// next frame that draws it.
    @Test func aBufferAtTheDevicesRowPitchIsSampledWhereItLies() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 16, rows: 4, stride: 64, offset: 128, pixel: [0xFF, 0x80, 0x10, 0xFF])
        defer { close(fd) }
        let layout = DmabufLayout(fileDescriptor: fd, width: 16, height: 4, format: .abgr8888, modifier: 0, offset: 128, stride: 64)
        let source = try renderer.importDmabuf(layout)
        #expect(source.isSampledInPlace)
        let shown = contents(layout, import: source)
        let root = makeRoot(16, 8)
        _ = layer(showing: shown, in: root, frame: Rect(x: 0, y: 0, width: 16, height: 4))
        let image = try render(root)
        #expect(pixel(image, 0, 0) == [0xFF, 0x80, 0x10, 0xFF] && pixel(image, 15, 3) == [0xFF, 0x80, 0x10, 0xFF])
        #expect(pixel(image, 0, 4) == [255, 255, 255, 255])
        #expect(shown.surface.uploadedBytes == 0 && shown.surface.inPlaceSamples == 1)

        repaint(fd, rows: 0..<4, width: 16, stride: 64, offset: 128, pixel: [0x00, 0x00, 0xFF, 0xFF])
        renderer.invalidatePreviousFrame()
        #expect(pixel(try render(root), 7, 2) == [0, 0, 255, 255])
        #expect(shown.surface.uploadedBytes == 0 && shown.surface.inPlaceSamples == 2)
    }

    /// Where the stride differs from the device's row pitch, or the offset from its alignment,
    /// the buffer is copied as before: the whole of it for the first frame.
    @Test func aBufferOffTheDevicesRowPitchIsCopied() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 16, rows: 4, stride: 80, offset: 0, pixel: [0x10, 0x80, 0xFF, 0x00])
        defer { close(fd) }
        let layout = DmabufLayout(fileDescriptor: fd, width: 16, height: 4, format: .xrgb8888, modifier: 0, offset: 0, stride: 80)
        let source = try renderer.importDmabuf(layout)
        #expect(!source.isSampledInPlace)
        let shown = contents(layout, import: source)
        let root = makeRoot(16, 4)
        _ = layer(showing: shown, in: root, frame: Rect(x: 0, y: 0, width: 16, height: 4))
        #expect(pixel(try render(root), 7, 2) == [0xFF, 0x80, 0x10, 0xFF])
        #expect(shown.surface.uploadedBytes == 16 * 4 * 4 && shown.surface.inPlaceSamples == 0)
    }

    /// A thousand buffers sampled in place, each imported, drawn and dropped (its descriptor
    /// closed at once, as a client's goes with its wl_buffer): the device holds the images and
    /// memory it held before, and no descriptor of any of the buffers' files stays open. A
    /// renderer of its own, so that other suites' textures do not count.
    @Test func aThousandBuffersSampledInPlaceLeaveNoImageMemoryOrDescriptorBehind() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let root = makeRoot(16, 4)
        var files: Set<FileIdentity> = []
        func churn(_ count: Int) throws {
            for index in 0..<count {
                let fd = linearBufferFile(width: 16, rows: 4, stride: 64, offset: 0, pixel: [0, 0, UInt8(index % 256), 0xFF])
                files.insert(FileIdentity(fd))
                let layout = DmabufLayout(fileDescriptor: fd, width: 16, height: 4, format: .abgr8888, modifier: 0, offset: 0, stride: 64)
                let source = try renderer.importDmabuf(layout)
                close(fd)
                guard source.isSampledInPlace else { Issue.record("buffer \(index) is copied"); return }
                let shown = layer(showing: contents(layout, import: source), in: root, frame: Rect(x: 0, y: 0, width: 16, height: 4))
                let image = try renderer.render(try commit(root), width: 16, height: 4)
                #expect(pixel(image, 1, 1) == [0, 0, index % 256, 255])
                change { shown.removeFromSuperlayer() }
            }
            _ = try renderer.render(try commit(root), width: 16, height: 4)
        }
        try churn(10)
        let (images, memory) = (renderer.context.liveImages, renderer.context.liveMemoryAllocations)
        try churn(1000)
        #expect(renderer.context.liveImages == images)
        #expect(renderer.context.liveMemoryAllocations == memory)
        #expect(openDescriptors(of: files) == 0)
        #expect(renderer.takeValidationMessages() == [])
    }

    /// XRGB8888's top byte is padding: zero there still shows an opaque pixel.
    @Test func xrgbPaddingReadsAsOpaque() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 4, rows: 4, stride: 16, offset: 0, pixel: [0x10, 0x80, 0xFF, 0x00])
        defer { close(fd) }
        let layout = DmabufLayout(fileDescriptor: fd, width: 4, height: 4, format: .xrgb8888, modifier: 0, offset: 0, stride: 16)
        let root = makeRoot(4, 4)
        _ = layer(showing: contents(layout, import: try renderer.importDmabuf(layout)), in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        #expect(pixel(try render(root), 2, 2) == [0xFF, 0x80, 0x10, 0xFF])
    }

    /// An update copies only the damaged rows into the surface's texture: rows the client
    /// repainted outside the damage keep the old pixels until damaged.
    @Test func anUpdateCopiesOnlyItsDamageIntoTheSameTexture() throws {
        let renderer = try validatingRenderer.get()
        let red: [UInt8] = [0x00, 0x00, 0xFF, 0xFF], blue: [UInt8] = [0xFF, 0x00, 0x00, 0xFF]
        let fd = linearBufferFile(width: 4, rows: 4, stride: 16, offset: 0, pixel: red)
        defer { close(fd) }
        let layout = DmabufLayout(fileDescriptor: fd, width: 4, height: 4, format: .argb8888, modifier: 0, offset: 0, stride: 16)
        let source = try renderer.importDmabuf(layout)
        let first = contents(layout, import: source)
        let root = makeRoot(4, 4)
        let shown = layer(showing: first, in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        _ = try render(root)

        repaint(fd, rows: 0..<4, width: 4, stride: 16, offset: 0, pixel: blue)
        let second = contents(layout, import: source, damage: ImageRect(x: 0, y: 0, width: 4, height: 2), replacing: first)
        #expect(second.surface === first.surface)
        change { shown.externalContents = second }
        let image = try render(root)
        #expect(pixel(image, 1, 1) == [0, 0, 255, 255])
        #expect(pixel(image, 1, 2) == [255, 0, 0, 255])
        #expect(first.surface.uploadedBytes == 64 + 32)
    }

    /// A buffer of another size gets a new texture, copied whole.
    @Test func contentsOfAnotherSizeGetANewTextureCopiedWhole() throws {
        let renderer = try validatingRenderer.get()
        let small = linearBufferFile(width: 2, rows: 2, stride: 8, offset: 0, pixel: [0, 0, 0xFF, 0xFF])
        let large = linearBufferFile(width: 4, rows: 4, stride: 16, offset: 0, pixel: [0, 0xFF, 0, 0xFF])
        defer { close(small); close(large) }
        let smallLayout = DmabufLayout(fileDescriptor: small, width: 2, height: 2, format: .argb8888, modifier: 0, offset: 0, stride: 8)
        let largeLayout = DmabufLayout(fileDescriptor: large, width: 4, height: 4, format: .argb8888, modifier: 0, offset: 0, stride: 16)
        let first = contents(smallLayout, import: try renderer.importDmabuf(smallLayout))
        let root = makeRoot(4, 4)
        let shown = layer(showing: first, in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        _ = try render(root)
        let second = contents(
            largeLayout, import: try renderer.importDmabuf(largeLayout), damage: ImageRect(x: 0, y: 0, width: 1, height: 1), replacing: first)
        change { shown.externalContents = second }
        #expect(pixel(try render(root), 3, 3) == [0, 255, 0, 255])
        #expect(first.surface.uploadedBytes == 16 + 64)
    }

    /// Layouts the copy cannot read are refused before the device sees them, each with its reason.
    @Test func unreadableLayoutsAreRefusedWithTheirReason() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 4, rows: 4, stride: 16, offset: 0, pixel: [0, 0, 0, 0xFF])
        defer { close(fd) }
        func layout(format: PixelFormat = .argb8888, modifier: UInt64 = 0, offset: Int = 0, stride: Int = 16, height: Int = 4)
            -> DmabufLayout
        {
            DmabufLayout(fileDescriptor: fd, width: 4, height: height, format: format, modifier: modifier, offset: offset, stride: stride)
        }
        #expect(throws: DmabufImportError.unsupportedFormat(DmabufFormat(PixelFormat(rawValue: 0x3231_564E), modifier: 0))) {
            try renderer.importDmabuf(layout(format: PixelFormat(rawValue: 0x3231_564E)))  // NV12
        }
        #expect(throws: DmabufImportError.unsupportedFormat(DmabufFormat(.argb8888, modifier: 0x0100_0000_0000_0001))) {
            try renderer.importDmabuf(layout(modifier: 0x0100_0000_0000_0001))
        }
        #expect(throws: DmabufImportError.badLayout(
            "offset 0 and stride 14 must be multiples of 4, the stride at least 16")) {
            try renderer.importDmabuf(layout(stride: 14))
        }
        #expect(throws: DmabufImportError.badLayout("its rows need 80 bytes but the dma-buf has 64")) {
            try renderer.importDmabuf(layout(height: 5))
        }
        #expect(renderer.takeValidationMessages() == [])
    }

    /// A descriptor the device cannot map (a pipe) is refused, and the caller's stays open.
    @Test func aDescriptorTheDeviceCannotMapIsRefusedAndTheCallersStaysOpen() throws {
        let renderer = try validatingRenderer.get()
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(throws: VulkanError.result("VK_ERROR_INVALID_EXTERNAL_HANDLE", while: "vkAllocateMemory (dma-buf)")) {
            try renderer.importDmabuf(
                DmabufLayout(fileDescriptor: ends[0], width: 2, height: 2, format: .argb8888, modifier: 0, offset: 0, stride: 8))
        }
        #expect(fcntl(ends[0], F_GETFD) != -1)
        // The layer reports the refusal; nothing else is wrong.
        #expect(renderer.takeValidationMessages() == ["[WARNING] VK_ERROR_INVALID_EXTERNAL_HANDLE"])
    }

    /// The import holds a descriptor of its own: the caller's may close at once, and the pixels
    /// still copy.
    @Test func theImportKeepsItsOwnDescriptor() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 2, rows: 2, stride: 8, offset: 0, pixel: [0xFF, 0, 0, 0xFF])
        let layout = DmabufLayout(fileDescriptor: fd, width: 2, height: 2, format: .argb8888, modifier: 0, offset: 0, stride: 8)
        let source = try renderer.importDmabuf(layout)
        close(fd)
        let root = makeRoot(2, 2)
        _ = layer(showing: contents(layout, import: source), in: root, frame: Rect(x: 0, y: 0, width: 2, height: 2))
        #expect(pixel(try render(root), 1, 1) == [0, 0, 255, 255])
    }
}

/// A file by device and inode, which stays its own while any descriptor holds it open.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ fd: Int32) {
        var status = stat()
        precondition(fstat(fd, &status) == 0, "fstat failed")
        (device, inode) = (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}

/// How many of the process's open descriptors name one of `files`.
private func openDescriptors(of files: Set<FileIdentity>) -> Int {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return -1 }
    return names.compactMap(Int32.init).filter { fd in
        var status = stat()
        return fstat(fd, &status) == 0 && files.contains(FileIdentity(fd))
    }.count
}
