import Foundation
import LayerKit
import Renderer

/// 200 layers with a rounded-rectangle `shadowPath` in a 1920×1080 scene, full frames: with the
/// blurred masks kept from the frame before (the renderer's cache), against the same frames
/// after `purgeCaches()`, when every mask is rasterised and blurred again (what each frame cost
/// before masks were kept). The two alternate so that a changing load weighs on both alike.
@MainActor
func benchmarkShadowPaths(renderer: Renderer) throws {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: 1920, height: 1080)
    root.anchorPoint = .zero
    root.backgroundColor = Color(white: 0.95)
    for i in 0..<200 {
        let card = Layer()
        card.frame = Rect(x: Double(i % 20) * 96 + 12, y: Double(i / 20) * 108 + 14, width: 72, height: 72)
        card.backgroundColor = .white
        card.cornerRadius = 10
        card.shadowPath = Path(roundedRect: card.bounds, cornerWidth: 10, cornerHeight: 10)
        card.shadowOpacity = 0.4
        card.shadowRadius = 6
        card.shadowOffset = Size(width: 0, height: 4)
        root.addSublayer(card)
    }
    let context = RenderContext(rootLayer: root)
    Transaction.flush()
    var frames: [Bool: [FrameStatistics]] = [:]
    for _ in 0..<9 {
        for kept in [false, true] {
            if !kept { renderer.purgeCaches() }
            renderer.invalidatePreviousFrame()
            _ = try renderer.render(context.renderTree!, width: 1920, height: 1080)
            frames[kept, default: []].append(renderer.lastFrameStatistics)
        }
    }
    for kept in [false, true] {
        let stats = frames[kept]!
        let encode = stats.map(\.encodeSeconds).sorted()[stats.count / 2]
        let total = stats.map(\.totalSeconds).sorted()[stats.count / 2]
        let name = kept ? "masks kept" : "masks made again"
        print("200 shadowPath \(name.padding(toLength: 17, withPad: " ", startingAt: 0)) \(String(format: "%6d", stats[0].drawCount)) \(milliseconds(encode))    \(milliseconds(total))")
    }
}
