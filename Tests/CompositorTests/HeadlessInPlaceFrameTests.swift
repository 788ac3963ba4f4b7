@testable import Compositor
import CPURenderer
import DisplayBackend
import Foundation
import Glibc
import Graphics
import LayerKit
import Renderer
import Testing
import WaylandTestClient

/// Headless frames are written in place into the output's two frame buffers, each updated only
/// where it lacks what changed since its own last frame, and read back only when captured.
@Suite(.serialized) struct HeadlessInPlaceFrameTests {
    /// A 64×64 toplevel over one shm buffer whose pixels the test rewrites (centred on the
    /// 640×480 output: its pixel (x, y) is the screen's (288 + x, 208 + y)).
    private final class Window {
        let client: SessionClient
        let surface: WlSurfaceProxy
        let buffer: WlBufferProxy
        let memory: UnsafeMutableRawPointer

        init(_ session: HeadlessSession, pixel: UInt32) throws {
            client = try SessionClient(session)
            (surface, _) = try client.makeToplevel()
            let fd = anonymousFile(size: 64 * 64 * 4)
            memory = mmap(nil, 64 * 64 * 4, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)!
            memory.initializeMemory(as: UInt32.self, repeating: pixel, count: 64 * 64)
            let pool = try client.shm.createPool(fd: FileDescriptor(rawValue: fd), size: 64 * 64 * 4)
            close(fd)
            buffer = try pool.createBuffer(offset: 0, width: 64, height: 64, stride: 256, format: .xrgb8888)
            try client.show(buffer, on: surface)
            try client.client.roundtrip()
        }

        deinit {
            munmap(memory, 64 * 64 * 4)
        }

        /// Paints the buffer's 16×16 square at (8, 8) with `pixel`, damages only it and commits.
        func paintSquare(_ pixel: UInt32) throws {
            for row in 8..<24 { (memory + (row * 64 + 8) * 4).initializeMemory(as: UInt32.self, repeating: pixel, count: 16) }
            try surface.attach(buffer: buffer, x: 0, y: 0)
            try surface.damageBuffer(x: 8, y: 8, width: 16, height: 16)
            try surface.commit()
            try client.client.roundtrip()
        }
    }

    /// Runs until a frame presented after now was shown and nothing else is on its way.
    private func runUntilShown(_ session: HeadlessSession) throws -> Bool {
        let output = session.backend.headlessOutput(0)
        let target = output.presentedFrameCount + 1
        return try session.run(seconds: 30) {
            output.presentedFrameCount >= target && session.compositor.outputsAreSettled && !output.hasFrameWaitingToShow
        }
    }

    /// The screen's pixels as native-endian 0xAARRGGBB values, row by row.
    private func pixels(of image: Image) -> [UInt32] {
        image.withUnsafeBytes { bytes in
            (0..<image.height).flatMap { row in
                (0..<image.width).map { bytes.load(fromByteOffset: row * image.bytesPerRow + $0 * 4, as: UInt32.self) }
            }
        }
    }

    @Test(arguments: [RendererKind.vulkan, .cpu])
    func aFrameAfterASmallDamageWritesOnlyThatRectangleOfTheBackBuffer(renderer: RendererKind) throws {
        let session = try HeadlessSession(renderer: renderer)
        let window = try Window(session, pixel: 0xffff_0000)
        #expect(try runUntilShown(session))
        // One small damage per buffer of the ring: afterwards each lacks only that square.
        try window.paintSquare(0xff00_ff00)
        #expect(try runUntilShown(session))
        try window.paintSquare(0xff00_00ff)
        #expect(try runUntilShown(session))

        // Marks every byte of the buffer the next frame goes into, then draws that frame.
        let output = session.backend.headlessOutput(0)
        guard case .mapped(let back, _) = try #require(output.nextBuffer()).memory else {
            Issue.record("a headless output's buffer is mapped")
            return
        }
        back.initializeMemory(as: UInt32.self, repeating: 0x1234_5678)
        try window.paintSquare(0xffff_ffff)
        #expect(try runUntilShown(session))

        // The square (296…312 × 216…232 on screen) grown by a texel that filtering blends into its
        // neighbours and a pixel of anti-aliasing: 2 pixels each side, inside the red window.
        #expect(session.compositor.outputs[0].renderer.lastFrameStatistics.damage == .region(x: 294, y: 214, width: 20, height: 20))
        let screen = try pixels(of: #require(session.screen))
        let written = screen.indices.filter { screen[$0] != 0x1234_5678 }
        #expect(written == (214..<234).flatMap { y in (294..<314).map { x in y * 640 + x } })
        let square = Set((216..<232).flatMap { y in (296..<312).map { x in y * 640 + x } })
        #expect(written.allSatisfy { screen[$0] == (square.contains($0) ? 0xffff_ffff : 0xffff_0000) })
    }

    /// A window unmapped over another redraws only where it was: the frame's damage is its 64×64
    /// square (288…352 × 208…272 on screen) with a pixel to spare each side, not the screen.
    @Test(arguments: [RendererKind.vulkan, .cpu])
    func anUnmappedWindowDamagesOnlyWhereItWas(renderer: RendererKind) throws {
        let session = try HeadlessSession(renderer: renderer)
        let below = try Window(session, pixel: 0xff00_00ff)
        #expect(try runUntilShown(session))
        let above = try Window(session, pixel: 0xffff_0000)
        #expect(try runUntilShown(session))
        try above.surface.attach(buffer: nil, x: 0, y: 0)
        try above.surface.commit()
        try above.client.client.roundtrip()
        #expect(try runUntilShown(session))
        #expect(session.compositor.outputs[0].renderer.lastFrameStatistics.damage == .region(x: 287, y: 207, width: 66, height: 66))
        withExtendedLifetime(below) {}
    }

    @Test(arguments: [RendererKind.vulkan, .cpu])
    func theCaptureOfFramesWrittenInPlaceEqualsAFullRender(renderer: RendererKind) throws {
        let session = try HeadlessSession(renderer: renderer)
        let window = try Window(session, pixel: 0xffff_0000)
        #expect(try runUntilShown(session))
        for pixel: UInt32 in [0xff00_ff00, 0xff00_00ff, 0x8000_0080] {
            try window.paintSquare(pixel)
            #expect(try runUntilShown(session))
        }
        let output = session.compositor.outputs[0]
        let tree = try #require(output.context.renderTree)
        let fresh: any LayerTreeRenderer = renderer == .cpu ? CPURenderer() : try Renderer()
        let full = try fresh.render(tree, width: 640, height: 480, scale: 1, clearColor: Color(white: 0))
        let screen = try #require(session.screen)
        #expect(pixels(of: screen) == pixels(of: full))
        // The window's last square, over the red beneath it: exact ARGB8888 as the client wrote it.
        #expect(screen.pixel(x: 296, y: 216) == PremultipliedPixel(red: 0, green: 0, blue: 128, alpha: 255))
        #expect(screen.pixel(x: 288, y: 208) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        #expect(screen.pixel(x: 0, y: 0) == black)
    }
}
