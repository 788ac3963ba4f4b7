import Buffers
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

@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct DmabufContentsTests {
    func layer(showing contents: DmabufContents, in root: Layer, frame: Rect) -> ExternalContentsLayer {
        let layer = ExternalContentsLayer()
        change {
            layer.frame = frame
            layer.externalContents = contents
            root.addSublayer(layer)
        }
        return layer
    }

    /// Rows read at the client's stride from its offset; ABGR8888's bytes are R, G, B, A.
    @Test func aLinearBufferShowsItsPixelsAtItsStrideAndOffset() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 8, rows: 4, stride: 48, offset: 64, pixel: [0xFF, 0x80, 0x10, 0xFF])
        defer { close(fd) }
        let source = try renderer.importDmabuf(
            DmabufLayout(fileDescriptor: fd, width: 8, height: 4, format: .abgr8888, modifier: 0, offset: 64, stride: 48))
        let contents = try renderer.contents(copying: source, updating: nil, damage: nil)
        #expect(contents.pixelSize! == (8, 4))
        let root = makeRoot(16, 8)
        _ = layer(showing: contents, in: root, frame: Rect(x: 0, y: 0, width: 8, height: 4))
        let image = try render(root)
        #expect(pixel(image, 0, 0) == [0xFF, 0x80, 0x10, 0xFF])
        #expect(pixel(image, 7, 3) == [0xFF, 0x80, 0x10, 0xFF])
        // Beside and below the layer, the root's white.
        #expect(pixel(image, 8, 0) == [255, 255, 255, 255])
        #expect(pixel(image, 0, 4) == [255, 255, 255, 255])
    }

    /// XRGB8888's top byte is padding: zero there still shows an opaque pixel.
    @Test func xrgbPaddingReadsAsOpaque() throws {
        let renderer = try validatingRenderer.get()
        let fd = linearBufferFile(width: 4, rows: 4, stride: 16, offset: 0, pixel: [0x10, 0x80, 0xFF, 0x00])
        defer { close(fd) }
        let source = try renderer.importDmabuf(
            DmabufLayout(fileDescriptor: fd, width: 4, height: 4, format: .xrgb8888, modifier: 0, offset: 0, stride: 16))
        let root = makeRoot(4, 4)
        _ = layer(showing: try renderer.contents(copying: source, updating: nil, damage: nil), in: root,
                  frame: Rect(x: 0, y: 0, width: 4, height: 4))
        #expect(pixel(try render(root), 2, 2) == [0xFF, 0x80, 0x10, 0xFF])
    }

    /// An update copies only the damaged rows into the texture it reuses: rows the client
    /// repainted outside the damage keep the old pixels until damaged.
    @Test func anUpdateCopiesOnlyItsDamageIntoTheSameTexture() throws {
        let renderer = try validatingRenderer.get()
        let red: [UInt8] = [0x00, 0x00, 0xFF, 0xFF], blue: [UInt8] = [0xFF, 0x00, 0x00, 0xFF]
        let fd = linearBufferFile(width: 4, rows: 4, stride: 16, offset: 0, pixel: red)
        defer { close(fd) }
        let source = try renderer.importDmabuf(
            DmabufLayout(fileDescriptor: fd, width: 4, height: 4, format: .argb8888, modifier: 0, offset: 0, stride: 16))
        let first = try renderer.contents(copying: source, updating: nil, damage: nil)
        let root = makeRoot(4, 4)
        let shown = layer(showing: first, in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        _ = try render(root)

        repaint(fd, rows: 0..<4, width: 4, stride: 16, offset: 0, pixel: blue)
        let second = try renderer.contents(copying: source, updating: first, damage: ImageRect(x: 0, y: 0, width: 4, height: 2))
        #expect(second !== first)
        #expect(second.texture === first.texture)
        change { shown.externalContents = second }
        let image = try render(root)
        #expect(pixel(image, 1, 1) == [0, 0, 255, 255])
        #expect(pixel(image, 1, 2) == [255, 0, 0, 255])
    }

    /// Contents a submitted frame may still sample are not written: the update goes, whole, into a
    /// new texture.
    @Test func contentsOfAnotherSizeGetANewTextureCopiedWhole() throws {
        let renderer = try validatingRenderer.get()
        let small = linearBufferFile(width: 2, rows: 2, stride: 8, offset: 0, pixel: [0, 0, 0xFF, 0xFF])
        let large = linearBufferFile(width: 4, rows: 4, stride: 16, offset: 0, pixel: [0, 0xFF, 0, 0xFF])
        defer { close(small); close(large) }
        let first = try renderer.contents(
            copying: try renderer.importDmabuf(
                DmabufLayout(fileDescriptor: small, width: 2, height: 2, format: .argb8888, modifier: 0, offset: 0, stride: 8)),
            updating: nil, damage: nil)
        let second = try renderer.contents(
            copying: try renderer.importDmabuf(
                DmabufLayout(fileDescriptor: large, width: 4, height: 4, format: .argb8888, modifier: 0, offset: 0, stride: 16)),
            updating: first, damage: ImageRect(x: 0, y: 0, width: 1, height: 1))
        #expect(second.texture !== first.texture)
        let root = makeRoot(4, 4)
        _ = layer(showing: second, in: root, frame: Rect(x: 0, y: 0, width: 4, height: 4))
        #expect(pixel(try render(root), 3, 3) == [0, 255, 0, 255])
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
        let source = try renderer.importDmabuf(
            DmabufLayout(fileDescriptor: fd, width: 2, height: 2, format: .argb8888, modifier: 0, offset: 0, stride: 8))
        close(fd)
        let root = makeRoot(2, 2)
        _ = layer(showing: try renderer.contents(copying: source, updating: nil, damage: nil), in: root,
                  frame: Rect(x: 0, y: 0, width: 2, height: 2))
        #expect(pixel(try render(root), 1, 1) == [0, 0, 255, 255])
    }
}
