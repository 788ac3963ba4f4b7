import Graphics
import LayerKit
import Testing
@testable import Renderer

/// The encoder alone (no GPU): which draws a scene produces, in which order, with which data.
@MainActor
@Suite struct RenderEncoderTests {
    func encode(_ root: Layer, scale: Double = 1) throws -> SceneEncoder {
        let tree = try commit(root)
        return SceneEncoder(tree: tree, scale: scale, targetSize: (Int(root.bounds.width * scale), Int(root.bounds.height * scale)))
    }

    func instance(_ e: SceneEncoder, _ draw: EncodedDraw) -> [Float] {
        let start = Int(draw.instance) * SceneEncoder.floatsPerInstance
        return Array(e.floats[start..<start + SceneEncoder.floatsPerInstance])
    }

    @Test func eachLayerDrawsShadowBodySublayersThenBorder() throws {
        let root = makeRoot(100, 100)
        let a = sublayer(root, frame: Rect(x: 10, y: 10, width: 50, height: 50), background: .red)
        a.shadowOpacity = 0.5
        a.borderWidth = 2
        _ = sublayer(a, frame: Rect(x: 5, y: 5, width: 10, height: 10), background: .blue)
        let e = try encode(root)
        // With a sublayer, the shadow's shape is the composited alpha (A5): the layer without its
        // shadow into an intermediate, blurred along x then y, then tinted under the layer.
        #expect(e.passes.map(\.intermediate) == [0, 1, 2, nil])
        #expect(e.draws.map(\.kind) == [.body, .body, .border, .blur, .blur, .body, .body, .body, .body, .border])
        #expect(e.floats.count == 10 * SceneEncoder.floatsPerInstance)
    }

    @Test func hiddenAndTransparentLayersDrawNothing() throws {
        let root = makeRoot(100, 100)
        sublayer(root, frame: Rect(x: 0, y: 0, width: 10, height: 10), background: .red).isHidden = true
        sublayer(root, frame: Rect(x: 0, y: 0, width: 10, height: 10), background: .red).opacity = 0
        _ = sublayer(root, frame: Rect(x: 0, y: 0, width: 10, height: 10))  // nothing to draw
        #expect(try encode(root).draws.count == 1)
    }

    @Test func theTransformMapsBoundsToOutputPixels() throws {
        let root = makeRoot(100, 100)
        _ = sublayer(root, frame: Rect(x: 10, y: 20, width: 30, height: 40), background: .red)
        let e = try encode(root, scale: 2)
        let m = Array(instance(e, e.draws[1]).prefix(16))
        // Row-vector matrix, row by row: scale 2, then the layer's offset (10, 20)·2.
        #expect(m == [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 20, 40, 0, 1])
    }

    @Test func coloursArePremultiplied() throws {
        let root = makeRoot(10, 10)
        _ = sublayer(root, frame: Rect(x: 0, y: 0, width: 10, height: 10), background: Color(red: 1, green: 0.5, blue: 0, alpha: 0.5))
        let e = try encode(root)
        let colour = Array(instance(e, e.draws[1]).dropFirst(32 + 12).prefix(4))
        #expect(colour == [0.5, 0.25, 0, 0.5])
    }

    @Test func nestedClipsUseTheShaderForTheInnerAndTheScissorForTheOuter() throws {
        let root = makeRoot(200, 200)
        let outer = sublayer(root, frame: Rect(x: 10, y: 10, width: 100, height: 100))
        outer.masksToBounds = true
        let inner = sublayer(outer, frame: Rect(x: 50, y: 50, width: 100, height: 100))
        inner.masksToBounds = true
        _ = sublayer(inner, frame: Rect(x: 0, y: 0, width: 200, height: 200), background: .green)
        let e = try encode(root)
        let leaf = try #require(e.draws.last)
        #expect(leaf.scissor == PixelRect(x: 60, y: 60, width: 50, height: 50))
        #expect(leaf.flags.contains(.clip))  // clipped in the shader by the inner layer
    }
}
