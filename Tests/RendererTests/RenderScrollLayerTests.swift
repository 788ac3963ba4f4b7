import Foundation
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// ScrollLayer: scrolling moves what shows through the layer, which clips it.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment)) struct RenderScrollLayerTests {
    @Test func aScrolledLayerShowsItsBoundsOriginAtItsTopLeftAndClipsTheRest() throws {
        let root = makeRoot(100, 80)
        root.backgroundColor = .black
        let scroll = ScrollLayer()
        scroll.frame = Rect(x: 20, y: 20, width: 60, height: 40)
        root.addSublayer(scroll)
        // Three columns of two 40×40 squares: 120×80 of content behind a 60×40 window.
        let colors: [Color] = [.red, .green, .blue, Color(red: 1, green: 1, blue: 0), Color(red: 0, green: 1, blue: 1), .white]
        for (i, color) in colors.enumerated() {
            _ = sublayer(scroll, frame: Rect(x: Double(i % 3) * 40, y: Double(i / 3) * 40, width: 40, height: 40), background: color)
        }
        scroll.scroll(to: Point(x: 30, y: 20))
        let image = try render(root)
        // Content (35, 25) is red and lands at (25, 25); (45, 25) green at (35, 25); (85, 25) blue
        // at (75, 25); (35, 45) yellow at (25, 45); (45, 45) cyan at (35, 45).
        #expect(isNear(pixel(image, 25, 25), [255, 0, 0, 255]))
        #expect(isNear(pixel(image, 35, 25), [0, 255, 0, 255]))
        #expect(isNear(pixel(image, 75, 25), [0, 0, 255, 255]))
        #expect(isNear(pixel(image, 25, 45), [255, 255, 0, 255]))
        #expect(isNear(pixel(image, 35, 45), [0, 255, 255, 255]))
        // Content that lies outside the window stays hidden: (85, 30) would be blue, (30, 65) cyan.
        #expect(isNear(pixel(image, 85, 30), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 30, 65), [0, 0, 0, 255]))
        #expect(isNear(pixel(image, 10, 10), [0, 0, 0, 255]))
        try golden.check(image, named: "scroll-layer-scrolled")
    }
}
