import Graphics
import LayerKit
import SeedExamples
import Testing
@testable import Renderer

/// The distortion filters of the seed's Listing 2-6 and beside it (pinch, bump, twirl), drawn:
/// each probe's expected colour is the cell of a checkerboard (red where column + row is even)
/// that `Distortion.sourcePoint`'s formula reads the pixel centre from, worked out by hand and
/// at least 4 points from any cell edge; white where the source lies outside the layer.
@MainActor
@Suite(.serialized) struct RenderDistortionTests {
    static let red = [255, 0, 0, 255], blue = [0, 0, 255, 255], white = [255, 255, 255, 255]

    /// A layer at `frame` filled with a red and blue checkerboard of `cell`-point squares.
    func checkerboard(_ root: Layer, frame: Rect, cell: Double) -> Layer {
        let layer = sublayer(root, frame: frame)
        for row in 0..<Int(frame.height / cell) {
            for column in 0..<Int(frame.width / cell) {
                _ = sublayer(layer, frame: Rect(x: Double(column) * cell, y: Double(row) * cell, width: cell, height: cell),
                             background: (row + column) % 2 == 0 ? .red : .blue)
            }
        }
        return layer
    }

    func expect(_ image: Image, _ probes: [(Int, Int, [Int])], sourceLocation: SourceLocation = #_sourceLocation) {
        for (x, y, color) in probes {
            #expect(isNear(pixel(image, x, y), color, 2), "(\(x), \(y)): \(pixel(image, x, y))", sourceLocation: sourceLocation)
        }
    }

    /// Listing 2-6 on a 500×300 layer of 50-point squares: the pinch (centre (250, 150), radius
    /// 500, scale 1.25) reads pixel (125, 85) from (15.2, 28.4), (345, 105) from (443.8, 59.7),
    /// (305, 165) from (371.0, 183.8), (145, 185) from (40.0, 221.4), (245, 205) from
    /// (240.2, 271.2), and (385, 145) from (508.2, 141.4) and (5, 5) from (−64.6, −35.9), past
    /// the layer.
    @Test(arguments: SceneRenderer.allCases) func listingTwoSixPinchesTheLayer(_ renderer: SceneRenderer) throws {
        let root = makeRoot(500, 300)
        let layer = checkerboard(root, frame: Rect(x: 0, y: 0, width: 500, height: 300), cell: 50)
        SeedExamples.applyListing26Filter(to: layer)
        let image = try render(root, with: renderer)
        expect(image, [
            (125, 85, Self.red), (345, 105, Self.blue), (305, 165, Self.red), (145, 185, Self.red),
            (245, 205, Self.blue), (385, 145, Self.white), (5, 5, Self.white),
        ])
        try renderer.check(image, named: "filter-listing-2-6-pinch", cpu: (2, 0.002))
    }

    /// Bump (scale 0.5) and twirl (π/2) on 200×200 layers of 25-point squares, each about the
    /// layer's centre with radius 80. Bump reads (84, 48) from (86.8, 56.2), (48, 111) from
    /// (56.7, 109.7) and (129, 84) from (119.4, 89.8); twirl, turning the image clockwise by up to
    /// a quarter turn, (75, 57) from (66.3, 64.4), (75, 75) from (66.7, 90.4), (84, 93) from
    /// (86.0, 109.3) and (93, 120) from (110.9, 118.5). Past the radius nothing moves.
    @Test(arguments: SceneRenderer.allCases) func bumpAndTwirlDistortTheirCircles(_ renderer: SceneRenderer) throws {
        let root = makeRoot(440, 220)
        let bumped = checkerboard(root, frame: Rect(x: 10, y: 10, width: 200, height: 200), cell: 25)
        bumped.filters = [.bumpDistortion(center: Point(x: 100, y: 100), radius: 80, scale: 0.5)]
        let twirled = checkerboard(root, frame: Rect(x: 230, y: 10, width: 200, height: 200), cell: 25)
        twirled.filters = [.twirlDistortion(center: Point(x: 100, y: 100), radius: 80, angle: .pi / 2)]
        let image = try render(root, with: renderer)
        expect(image, [
            (10 + 84, 10 + 48, Self.blue), (10 + 48, 10 + 111, Self.red), (10 + 129, 10 + 84, Self.blue),
            (10 + 5, 10 + 5, Self.red), (10 + 190, 10 + 12, Self.blue),
            (230 + 75, 10 + 57, Self.red), (230 + 75, 10 + 75, Self.blue), (230 + 84, 10 + 93, Self.blue),
            (230 + 93, 10 + 120, Self.red), (230 + 5, 10 + 5, Self.red),
        ])
        try renderer.check(image, named: "filter-bump-and-twirl", cpu: (2, 0.002))
    }

    /// The pinch's scale set through its key path on the committed layer animates implicitly
    /// (a 1 s linear transaction, 0 to 1.25): half-way, at scale 0.625, (85, 45) reads from
    /// (28.8, 9.5), (305, 65) from (335.2, 20.3), both red where they were blue, and (85, 85)
    /// from (22.2, 60.7), blue where it was red; at the end they show past the layer, white.
    @Test(arguments: SceneRenderer.allCases) func aPinchScaleSetByKeyPathAnimatesOnScreen(_ renderer: SceneRenderer) throws {
        let clock = ManualMediaClock(startingAt: 100)
        MediaTime.clock = clock
        let root = makeRoot(500, 300)
        let layer = checkerboard(root, frame: Rect(x: 0, y: 0, width: 500, height: 300), cell: 50)
        layer.filters = [.pinchDistortion(center: Point(x: 250, y: 150), radius: 500, scale: 0, name: "pinch")]
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        Transaction.begin()
        Transaction.animationDuration = 1
        Transaction.animationTimingFunction = .linear
        layer.setValue(1.25, forKeyPath: "filters.pinch.inputScale")
        Transaction.commit()
        Transaction.flush()
        func frame(at t: Double) throws -> Image {
            try render(try #require(context.renderTree).sampled(atMediaTime: t), width: 500, height: 300, with: renderer)
        }
        let before = try frame(at: 100)
        expect(before, [(85, 45, Self.blue), (305, 65, Self.blue), (85, 85, Self.red)])
        expect(try frame(at: 100.5), [(85, 45, Self.red), (305, 65, Self.red), (85, 85, Self.blue)])
        expect(try frame(at: 101.5), [(85, 45, Self.white), (305, 65, Self.white), (85, 85, Self.white)])
    }
}
