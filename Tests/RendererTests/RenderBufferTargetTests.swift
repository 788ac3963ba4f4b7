import Buffers
import Glibc
import Graphics
import LayerKit
import SystemCalls
import Testing
@testable import Renderer

/// Anonymous memory standing in for a dumb buffer: `height` rows of `width` ARGB8888 pixels,
/// `bytesPerRow` apart, from `offset` bytes into a page-aligned mapping; unmapped when it goes.
final class AnonymousMapping: MappedPixelBuffer, SwapchainBuffer {
    let width: Int
    let height: Int
    let bytesPerRow: Int
    var format: PixelFormat { .argb8888 }
    var kind: BufferKind { .dumb }
    var dmabuf: DmabufLayout? { nil }
    /// The rows, from `offset` on.
    let mapping: UnsafeMutableRawBufferPointer
    private let whole: UnsafeMutableRawBufferPointer

    init(width: Int, height: Int, bytesPerRow: Int, offset: Int = 0) throws {
        (self.width, self.height, self.bytesPerRow) = (width, height, bytesPerRow)
        let byteCount = bytesPerRow * height
        let address = mmap(nil, offset + byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        try #require(address != nil && address != MAP_FAILED)
        whole = UnsafeMutableRawBufferPointer(start: address, count: offset + byteCount)
        mapping = UnsafeMutableRawBufferPointer(rebasing: whole[offset...])
    }

    deinit { munmap(whole.baseAddress, whole.count) }

    func fill(_ byte: UInt8) { mapping.initializeMemory(as: UInt8.self, repeating: byte) }
}

/// A file standing in for a display's dma-buf (a GBM buffer object's on KMS), which lavapipe
/// maps as it would one; the test sees its bytes through `contents`.
final class DmabufFile: SwapchainBuffer {
    let layout: DmabufLayout
    let contents: UnsafeMutableRawBufferPointer
    private let descriptor: OwnedFileDescriptor
    var width: Int { layout.width }
    var height: Int { layout.height }
    var format: PixelFormat { layout.format }
    var kind: BufferKind { .gbm }
    var dmabuf: DmabufLayout? { layout }
    var memory: SwapchainMemory { .dmabuf(layout) }

    /// `modifier`: the layout the buffer claims (the file's bytes are rows all the same).
    init(width: Int, height: Int, stride: Int, filledWith byte: UInt8, modifier: UInt64 = FormatModifier.linear) throws {
        let fd = linearBufferFile(width: stride / 4, rows: height, stride: stride, offset: 0, pixel: [byte, byte, byte, byte])
        descriptor = OwnedFileDescriptor(rawValue: fd)
        layout = DmabufLayout(
            fileDescriptor: fd, width: width, height: height, format: .xrgb8888, modifier: modifier, offset: 0, stride: stride)
        let address = mmap(nil, stride * height, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        try #require(address != nil && address != MAP_FAILED)
        contents = UnsafeMutableRawBufferPointer(start: address, count: stride * height)
    }

    deinit { munmap(contents.baseAddress, contents.count) }

    func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? { nil }

    func clear() {
        for row in 0..<height {
            (contents.baseAddress! + row * layout.stride).initializeMemory(as: UInt32.self, repeating: 0xFF00_0000, count: width)
        }
    }
}

/// Frames written straight into swapchain buffers (`BufferTarget`): host memory imported with
/// VK_EXT_external_memory_host where the device and the alignment allow, through the readback
/// buffer otherwise; either way the same bytes as the readback path's image, and only where the
/// target lacks them.
@MainActor
@Suite(.serialized) struct RenderBufferTargetTests {
    static let (width, height) = (200, 120)
    /// 256 pixels a row: 224 bytes of padding after each row's pixels, which no frame may touch.
    static let bytesPerRow = 1024
    static let sentinel: UInt8 = 0xAB

    /// A scene with three small squares to change one at a time.
    func scene() -> (root: Layer, context: RenderContext, squares: [Layer]) {
        let root = makeRoot(200, 120)
        let squares = (0..<3).map { i in
            sublayer(root, frame: Rect(x: 20 + Double(i) * 60, y: 30, width: 30, height: 30), background: .blue)
        }
        squares[1].cornerRadius = 8
        squares[2].shadowOpacity = 0.5
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        return (root, context, squares)
    }

    /// Every pixel of `memory` inside `rect` (all of it when nil) equals `image`'s, and every
    /// other byte, row padding included, is `untouched`.
    func expectBytes(
        _ memory: UnsafeMutableRawBufferPointer, equal image: Image, within rect: ImageRect? = nil, elsewhere untouched: UInt8,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let rect = rect ?? ImageRect(x: 0, y: 0, width: image.width, height: image.height)
        var wrongPixels = 0, touched = 0
        image.withUnsafeBytes { pixels in
            for y in 0..<Self.height {
                for x in 0..<Self.bytesPerRow {
                    let byte = memory[y * Self.bytesPerRow + x]
                    let pixel = x / 4
                    if pixel < image.width, rect.x <= pixel, pixel < rect.x + rect.width, rect.y <= y, y < rect.y + rect.height {
                        if byte != pixels[y * image.bytesPerRow + x] { wrongPixels += 1 }
                    } else if byte != untouched {
                        touched += 1
                    }
                }
            }
        }
        #expect(wrongPixels == 0, "bytes differing from the readback path's image", sourceLocation: sourceLocation)
        #expect(touched == 0, "bytes written outside \(rect)", sourceLocation: sourceLocation)
    }

    /// Draws the scene into `target` (whose bytes the CPU sees as `memory`, all `sentinel`), then a
    /// change of one square: the first frame writes every pixel, the second only the square (and a
    /// pixel around), each the readback path's bytes, and nothing else is touched.
    func expectFramesWrittenInPlace(
        by renderer: Renderer, into target: any SwapchainBuffer, visibleAs memory: UnsafeMutableRawBufferPointer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (_, context, squares) = scene()
        try renderer.render(try #require(context.renderTree), into: target, scale: 1, clearColor: .clear).finish()
        let first = try renderer.render(try #require(context.renderTree), width: Self.width, height: Self.height)
        expectBytes(memory, equal: first, elsewhere: Self.sentinel, sourceLocation: sourceLocation)
        memory.initializeMemory(as: UInt8.self, repeating: 0xCD)
        change { squares[1].backgroundColor = .red }
        try renderer.render(try #require(context.renderTree), into: target, scale: 1, clearColor: .clear).finish()
        let rect = try #require(damagedRect(renderer))
        #expect(rect == ImageRect(x: 79, y: 29, width: 32, height: 32), sourceLocation: sourceLocation)
        let second = try renderer.render(try #require(context.renderTree), width: Self.width, height: Self.height)
        expectBytes(memory, equal: second, within: rect, elsewhere: 0xCD, sourceLocation: sourceLocation)
        #expect(renderer.takeValidationMessages() == [], sourceLocation: sourceLocation)
    }

    func damagedRect(_ renderer: Renderer) -> ImageRect? {
        guard case .region(let x, let y, let width, let height) = renderer.lastFrameStatistics.damage else { return nil }
        return ImageRect(x: x, y: y, width: width, height: height)
    }

    @Test func anImportedBufferGetsTheReadbackPathsPixelsAndPartialFramesOnlyTheirDamage() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        try #require(renderer.context.hostPointerAlignment != nil, "lavapipe offers VK_EXT_external_memory_host")
        let mapping = try AnonymousMapping(width: Self.width, height: Self.height, bytesPerRow: Self.bytesPerRow)
        mapping.fill(Self.sentinel)
        let (_, context, squares) = scene()
        try renderer.render(try #require(context.renderTree), into: mapping, scale: 1, clearColor: .clear).finish()
        #expect(renderer.importsMemory(of: mapping))
        #expect(renderer.lastFrameStatistics.damage == .full)
        let first = try renderer.render(try #require(context.renderTree), width: Self.width, height: Self.height)
        expectBytes(mapping.mapping, equal: first, elsewhere: Self.sentinel)

        // A changed square: only its pixels (and a pixel around, for anti-aliasing) are written.
        mapping.fill(0xCD)
        change { squares[1].backgroundColor = .red }
        try renderer.render(try #require(context.renderTree), into: mapping, scale: 1, clearColor: .clear).finish()
        let rect = try #require(damagedRect(renderer))
        #expect(rect == ImageRect(x: 79, y: 29, width: 32, height: 32))
        let second = try renderer.render(try #require(context.renderTree), width: Self.width, height: Self.height)
        expectBytes(mapping.mapping, equal: second, within: rect, elsewhere: 0xCD)
        #expect(renderer.takeValidationMessages() == [])
    }

    @Test func eachBufferOfARingGetsWhatItLacksWhileOnlyTheScenesChangesAreDrawnAgain() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let mappings = try (0..<2).map { _ in
            try AnonymousMapping(width: Self.width, height: Self.height, bytesPerRow: Self.bytesPerRow)
        }
        let (_, context, squares) = scene()
        /// Renders into buffer `index`, returning the frame's damage there and the readback
        /// path's image of the same tree.
        func frame(into index: Int) throws -> (damage: FrameStatistics.Damage, image: Image) {
            try renderer.render(try #require(context.renderTree), into: mappings[index], scale: 1, clearColor: .clear).finish()
            let damage = renderer.lastFrameStatistics.damage
            return (damage, try renderer.render(try #require(context.renderTree), width: Self.width, height: Self.height))
        }
        _ = try frame(into: 0)
        change { squares[0].backgroundColor = .green }
        // Buffer 1's first frame: only the changed square is drawn again, and the GPU copies the
        // whole image into the buffer.
        mappings[1].fill(0xEE)
        let second = try frame(into: 1)
        #expect(second.damage == .region(x: 19, y: 29, width: 32, height: 32))
        expectBytes(mappings[1].mapping, equal: second.image, within: ImageRect(x: 0, y: 0, width: Self.width, height: Self.height), elsewhere: 0xEE)
        change { squares[2].backgroundColor = .green }
        mappings[0].fill(0xEE)  // what buffer 0 gets now shows in its bytes
        let third = try frame(into: 0)
        // Buffer 0 missed the first square's change and gets both: the box of the first square and
        // of the third with its shadow (offset (0, −3), reaching 3σ + 1 = 10 points), a pixel out.
        // Only the third is drawn again.
        let rect = ImageRect(x: 19, y: 16, width: 162, height: 52)
        let lacked = ImageRect(x: 129, y: 16, width: 52, height: 52)
        #expect(third.damage == .region(x: lacked.x, y: lacked.y, width: lacked.width, height: lacked.height))
        expectBytes(mappings[0].mapping, equal: third.image, within: rect, elsewhere: 0xEE)
        // Nothing changes, but buffer 1 lacks the third square's change: it gets just that.
        mappings[1].fill(0xEE)
        #expect(try frame(into: 1).damage == .region(x: lacked.x, y: lacked.y, width: lacked.width, height: lacked.height))
        expectBytes(mappings[1].mapping, equal: third.image, within: lacked, elsewhere: 0xEE)
        // Now both have everything: no GPU work.
        try renderer.render(try #require(context.renderTree), into: mappings[0], scale: 1, clearColor: .clear).finish()
        #expect(renderer.lastFrameStatistics.damage == .none)
        #expect(renderer.takeValidationMessages() == [])
    }

    /// Memory off the page alignment cannot be imported: the frame goes through the readback
    /// buffer and the CPU copies the same rectangle.
    @Test func unalignedMemoryGetsTheSameBytesThroughTheReadbackBuffer() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let mapping = try AnonymousMapping(width: Self.width, height: Self.height, bytesPerRow: Self.bytesPerRow, offset: 64)
        mapping.fill(Self.sentinel)
        try expectFramesWrittenInPlace(by: renderer, into: mapping, visibleAs: mapping.mapping)
        #expect(!renderer.importsMemory(of: mapping))
    }

    /// The renderer keeps a buffer's import while it draws into the buffer; one not drawn into
    /// for 16 frames (its display replaced it) is let go, and a new frame size lets go of all.
    @Test func anImportIsReleasedOnceItsBufferIsNoLongerDrawnInto() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let (_, context, squares) = scene()
        let kept = try AnonymousMapping(width: Self.width, height: Self.height, bytesPerRow: Self.bytesPerRow)
        let tree = { try #require(context.renderTree) }
        weak var released: AnonymousMapping?
        try {
            let replaced = try AnonymousMapping(width: Self.width, height: Self.height, bytesPerRow: Self.bytesPerRow)
            released = replaced
            try renderer.render(tree(), into: replaced, scale: 1, clearColor: .clear).finish()
        }()
        // 16 frames after the one into `replaced` still keep it.
        for frame in 0..<16 {
            change { squares[0].backgroundColor = frame % 2 == 0 ? .green : .blue }
            try renderer.render(tree(), into: kept, scale: 1, clearColor: .clear).finish()
        }
        #expect(released != nil)
        let both = renderer.context.liveMemoryAllocations
        try renderer.render(tree(), into: kept, scale: 1, clearColor: .clear).finish()
        #expect(released == nil)
        #expect(renderer.context.liveMemoryAllocations == both - 1)
        #expect(renderer.importsMemory(of: kept))

        let smaller = try AnonymousMapping(width: Self.width / 2, height: Self.height, bytesPerRow: Self.bytesPerRow)
        try renderer.render(tree(), into: smaller, scale: 1, clearColor: .clear).finish()
        #expect(!renderer.importsMemory(of: kept))
        #expect(renderer.importsMemory(of: smaller))
        #expect(renderer.takeValidationMessages() == [])
    }

    /// A display's buffer reached as a dma-buf (a GBM buffer object's on KMS; a file here, which
    /// lavapipe maps as it would one): the GPU writes each frame's changed rectangle into it at
    /// its stride, with no CPU copy, the same bytes as the readback path's image.
    @Test func aDmabufGetsTheFramesPixelsAtItsStrideAndPartialFramesOnlyTheirDamage() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        let buffer = try DmabufFile(width: Self.width, height: Self.height, stride: Self.bytesPerRow, filledWith: Self.sentinel)
        try expectFramesWrittenInPlace(by: renderer, into: buffer, visibleAs: buffer.contents)
        #expect(renderer.importsMemory(of: buffer))
    }
}
