import Testing
@testable import LayerKit

/// Where contents land for each gravity (ca-semantics C1, with Vitrine's y-down top and bottom):
/// a 40×20-point image in a 100×100 layer whose bounds start at (10, 20).
@MainActor
@Suite struct ContentsGravityTests {
    func frame(_ gravity: ContentsGravity, flipped: Bool = false, imageScale: Double = 1) -> Rect? {
        var p = LayerProperties()
        p.bounds = Rect(x: 10, y: 20, width: 100, height: 100)
        p.contents = Image(width: 40, height: 20, fill: .clear)
        p.contentsScale = imageScale
        p.contentsGravity = gravity
        return p.contentsFrame(contentsAreFlipped: flipped)
    }

    @Test func everyGravityPlacesTheContentsAsCoreAnimationDoes() {
        let expected: [ContentsGravity: Rect] = [
            .resize: Rect(x: 10, y: 20, width: 100, height: 100),
            .resizeAspect: Rect(x: 10, y: 45, width: 100, height: 50),       // scale min(100/40, 100/20) = 2.5
            .resizeAspectFill: Rect(x: -40, y: 20, width: 200, height: 100), // scale max = 5, centred
            .center: Rect(x: 40, y: 60, width: 40, height: 20),
            .top: Rect(x: 40, y: 20, width: 40, height: 20),
            .bottom: Rect(x: 40, y: 100, width: 40, height: 20),
            .left: Rect(x: 10, y: 60, width: 40, height: 20),
            .right: Rect(x: 70, y: 60, width: 40, height: 20),
            .topLeft: Rect(x: 10, y: 20, width: 40, height: 20),
            .topRight: Rect(x: 70, y: 20, width: 40, height: 20),
            .bottomLeft: Rect(x: 10, y: 100, width: 40, height: 20),
            .bottomRight: Rect(x: 70, y: 100, width: 40, height: 20),
        ]
        #expect(expected.count == ContentsGravity.allCases.count)
        for gravity in ContentsGravity.allCases {
            #expect(frame(gravity) == expected[gravity], "\(gravity)")
        }
    }

    @Test func flippedContentsSwapTopAndBottom() {
        #expect(frame(.top, flipped: true) == frame(.bottom))
        #expect(frame(.bottomRight, flipped: true) == frame(.topRight))
        #expect(frame(.left, flipped: true) == frame(.left))
    }

    @Test func contentsScaleSetsTheLogicalSize() {
        #expect(frame(.center, imageScale: 2) == Rect(x: 50, y: 65, width: 20, height: 10))
    }

    @Test func contentsRectSelectsPartOfTheImage() {
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        p.contents = Image(width: 40, height: 20, fill: .clear)
        p.contentsRect = Rect(x: 0.5, y: 0, width: 0.5, height: 1)
        p.contentsGravity = .topLeft
        #expect(p.contentsFrame() == Rect(x: 0, y: 0, width: 20, height: 20))
    }

    @Test func noContentsNoFrame() {
        #expect(LayerProperties().contentsFrame() == nil)
    }
}
