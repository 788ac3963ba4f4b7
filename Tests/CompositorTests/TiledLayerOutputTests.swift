import Compositor
import Graphics
import LayerKit
import Synchronization
import Testing

/// A `TiledLayer` on a headless output at rest: its tiles are drawn on the tile queue while the
/// compositor's loop runs, and nothing but the tiles' own progress (in flight, fading) wakes the
/// output, which must draw until they are shown in full and then settle.
@Suite(.serialized) struct TiledLayerOutputTests {
    /// Fills each tile with the current colour; thread-safe, as CATiledLayer requires.
    final class Painter: LayerDrawingDelegate, Sendable {
        let color: Mutex<Color>
        let tilesDrawn = Mutex(0)

        init(_ color: Color) { self.color = Mutex(color) }

        func draw(_ layer: Layer, in context: GraphicsContext) {
            tilesDrawn.withLock { $0 += 1 }
            context.setFillColor(color.withLock { $0 })
            context.fill(context.clipBoundingBox)
        }
    }

    static func channels(_ pixel: PremultipliedPixel) -> [UInt8] {
        [pixel.red, pixel.green, pixel.blue, pixel.alpha]
    }

    /// Runs until the output has shown everything it had to and stopped drawing.
    static func settle(_ session: HeadlessSession) throws -> Bool {
        let output = session.backend.headlessOutput(0)
        return try session.run(seconds: 30) { session.compositor.outputsAreSettled && !output.hasFrameWaitingToShow }
    }

    @Test func tilesDrawnOffTheLoopAreShownInFullAndThenTheOutputRests() throws {
        let session = try HeadlessSession(width: 128, height: 128)
        let output = session.backend.headlessOutput(0)
        try #require(try Self.settle(session))
        let painter = Painter(Color(red: 0, green: 0, blue: 1, alpha: 1))
        let tiled = TiledLayer()
        tiled.tileSize = Size(width: 64, height: 64)
        tiled.anchorPoint = .zero
        tiled.bounds = Rect(x: 0, y: 0, width: 128, height: 128)
        tiled.delegate = painter
        session.compositor.rootView().layer.addSublayer(tiled)
        Transaction.flush()

        try #require(try Self.settle(session))
        // The four 64 × 64 tiles, each drawn once, faded in completely.
        #expect(painter.tilesDrawn.withLock { $0 } == 4)
        let screen = try #require(session.screen)
        for (x, y) in [(1, 1), (100, 20), (20, 100), (127, 127)] {
            #expect(Self.channels(screen.pixel(x: x, y: y)) == [0, 0, 255, 255], "(\(x), \(y))")
        }
        // At rest: no tile in flight or fading keeps the output drawing.
        let frames = output.presentedFrameCount
        try session.run(seconds: 0.5)
        #expect(output.presentedFrameCount == frames)

        // setNeedsDisplay() redraws every tile; the new colour is shown and the output rests again.
        painter.color.withLock { $0 = Color(red: 1, green: 0, blue: 0, alpha: 1) }
        tiled.setNeedsDisplay()
        Transaction.flush()
        try #require(try Self.settle(session))
        #expect(painter.tilesDrawn.withLock { $0 } == 8)
        let redrawn = try #require(session.screen)
        #expect(Self.channels(redrawn.pixel(x: 64, y: 64)) == [255, 0, 0, 255])
        #expect(Self.channels(redrawn.pixel(x: 127, y: 0)) == [255, 0, 0, 255])
    }
}
