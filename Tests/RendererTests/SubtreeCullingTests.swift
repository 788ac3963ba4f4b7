import CPURenderer
import Graphics
import LayerKit
import RendererContract
import Testing
@testable import Renderer

/// Both renderers skip the subtrees whose box (`SubtreeBounds`) misses what a frame redraws, by
/// the same answer, and make again only the boxes of changed layers and their ancestors.
@MainActor
@Suite(.serialized) struct SubtreeCullingTests {
    /// A 1000×1000 root with 9,999 blue 5×5 tiles, one in each 10×10 cell of a 100×100 grid (at
    /// 2 points into the cell): 10,000 layers.
    func grid() -> (root: Layer, tiles: [Layer], context: RenderContext) {
        let root = makeRoot(1000, 1000)
        let tiles = (0..<9_999).map { i in
            sublayer(root, frame: Rect(x: Double(i % 100) * 10 + 2, y: Double(i / 100) * 10 + 2, width: 5, height: 5), background: .blue)
        }
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        return (root, tiles, context)
    }

    /// After a full frame, a tile's colour changes: the frame redraws the tile's pixels and a pixel
    /// around (501…508 in x and y for the tile at 502…507), places the root and that tile only
    /// (its neighbours' boxes, a point around them, end 4 points away, past the two pixels the
    /// region's preimage adds), and makes the tile's box and the root's again. Its pixels are a
    /// full frame's.
    @Test(arguments: SceneRenderer.allCases) func aDamagedFrameOfTenThousandLayersPlacesAndMeasuresOnlyTheChangedTile(
        _ kind: SceneRenderer
    ) throws {
        let scene = grid()
        let renderer = try kind.makeRenderer()
        _ = try renderer.render(try #require(scene.context.renderTree), width: 1000, height: 1000, scale: 1, clearColor: .clear)
        #expect(renderer.lastFrameStatistics.placedLayerCount == 10_000)
        #expect(renderer.lastFrameStatistics.measuredLayerCount == 10_000)
        change { scene.tiles[5050].backgroundColor = .green }
        let tree = try #require(scene.context.renderTree)
        let image = try renderer.render(tree, width: 1000, height: 1000, scale: 1, clearColor: .clear)
        let stats = renderer.lastFrameStatistics
        #expect(stats.damage == .region(x: 501, y: 501, width: 7, height: 7))
        #expect(stats.placedLayerCount == 2)
        #expect(stats.measuredLayerCount == 2)
        // CPU: the root's background (it hides the region, so drawing starts there) and the tile.
        // Vulkan: the tile; the root's background becomes the pass's clear.
        #expect(stats.drawCount == (kind == .cpu ? 2 : 1))
        let reference = try kind.makeRenderer().render(tree, width: 1000, height: 1000, scale: 1, clearColor: .clear)
        #expect(image.maximumChannelDifference(from: reference) == 0)
        #expect(pixel(image, 504, 504) == [0, 255, 0, 255])
    }

    /// The boxes hold everything a layer draws, so a frame that redraws a small region over layers
    /// it does not change draws their pixels there as a full frame does: a shadow offset far from
    /// its layer, a shadow path past the bounds, contents overflowing their bounds upright under a
    /// flipped superlayer, a layer turned by its superlayer's sublayerTransform, one tilted in
    /// perspective, a masked group, a shadow of composited alpha, a clip; each under a translucent
    /// veil whose colour changes.
    @Test(arguments: SceneRenderer.allCases) func damagedFramesOverUnchangedEffectsEqualFullFrames(_ kind: SceneRenderer) throws {
        let root = makeRoot(400, 300)
        var veils: [Layer] = []
        func veil(_ frame: Rect) {
            veils.append(sublayer(root, frame: frame, background: Color(red: 1, green: 0, blue: 0, alpha: 0.4)))
        }
        // A shadow 60 points below its layer.
        let shadowed = sublayer(root, frame: Rect(x: 10, y: 10, width: 30, height: 20), background: .blue)
        (shadowed.shadowOpacity, shadowed.shadowRadius, shadowed.shadowOffset) = (1, 2, Size(width: 0, height: 60))
        // A shadow path reaching 50 points right of the bounds.
        let pathed = sublayer(root, frame: Rect(x: 60, y: 10, width: 20, height: 20), background: .green)
        (pathed.shadowOpacity, pathed.shadowRadius) = (1, 1)
        pathed.shadowPath = Path(rect: Rect(x: 50, y: 0, width: 20, height: 20))
        // Contents 60 points tall in 20-point bounds, gravity top: under the flipped superlayer
        // they stay upright, so they hang from the bounds' top edge on screen (the layer's bottom,
        // y 80…100) down to y 140, where unflipped they would have reached up to y 40.
        let flipped = sublayer(root, frame: Rect(x: 160, y: 10, width: 60, height: 100))
        flipped.isGeometryFlipped = true
        let overflowing = sublayer(flipped, frame: Rect(x: 10, y: 10, width: 40, height: 20))
        overflowing.contents = try quadrantImage(width: 40, height: 60)
        overflowing.contentsGravity = .top
        // Turned by the superlayer's sublayerTransform.
        let turning = sublayer(root, frame: Rect(x: 240, y: 10, width: 80, height: 80))
        turning.sublayerTransform = Transform3D(rotationAngle: .pi / 5, x: 0, y: 0, z: 1)
        _ = sublayer(turning, frame: Rect(x: 30, y: 0, width: 40, height: 20), background: .blue)
        // Tilted in perspective about y.
        let tilted = sublayer(root, frame: Rect(x: 20, y: 120, width: 80, height: 60), background: .green)
        var perspective = Transform3D.identity
        perspective.m34 = -1 / 100
        tilted.transform = Transform3D(rotationAngle: 1.1, x: 0, y: 1, z: 0).concatenating(perspective)
        // A masked group with a sublayer.
        let group = sublayer(root, frame: Rect(x: 120, y: 130, width: 60, height: 60), background: .blue)
        group.opacity = 0.7
        _ = sublayer(group, frame: Rect(x: 40, y: 40, width: 40, height: 40), background: .green)
        let mask = Layer()
        mask.frame = Rect(x: 0, y: 0, width: 70, height: 70)
        mask.cornerRadius = 35
        mask.backgroundColor = .black
        group.mask = mask
        // A shadow of composited alpha: contents with a sublayer overhanging them.
        let composited = sublayer(root, frame: Rect(x: 220, y: 150, width: 40, height: 40))
        composited.contents = try quadrantImage(width: 40, height: 40)
        (composited.shadowOpacity, composited.shadowRadius, composited.shadowOffset) = (1, 3, Size(width: 30, height: 0))
        _ = sublayer(composited, frame: Rect(x: 30, y: 30, width: 30, height: 30), background: .green)
        // A clip cutting a sublayer.
        let clip = sublayer(root, frame: Rect(x: 300, y: 200, width: 60, height: 60), background: .white)
        clip.masksToBounds = true
        clip.cornerRadius = 12
        _ = sublayer(clip, frame: Rect(x: 30, y: 30, width: 60, height: 60), background: .blue)
        veil(Rect(x: 15, y: 75, width: 20, height: 10))  // over the offset shadow
        veil(Rect(x: 115, y: 15, width: 10, height: 10))  // over the shadow path's end
        veil(Rect(x: 175, y: 110, width: 20, height: 12))  // over the contents' overflow
        veil(Rect(x: 240, y: 60, width: 20, height: 20))  // over the turned sublayer
        veil(Rect(x: 30, y: 140, width: 12, height: 12))  // over the tilted layer
        veil(Rect(x: 165, y: 175, width: 10, height: 10))  // over the group's sublayer
        veil(Rect(x: 305, y: 188, width: 8, height: 8))  // over the sublayer's part of the composited shadow
        veil(Rect(x: 330, y: 230, width: 40, height: 40))  // over the clip's edge
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let renderer = try kind.makeRenderer()
        _ = try renderer.render(try #require(context.renderTree), width: 400, height: 300, scale: 1, clearColor: .clear)
        for (i, layer) in veils.enumerated() {
            change { layer.backgroundColor = Color(red: 0, green: 0, blue: 1, alpha: 0.4) }
            let tree = try #require(context.renderTree)
            let image = try renderer.render(tree, width: 400, height: 300, scale: 1, clearColor: .clear)
            guard case .region = renderer.lastFrameStatistics.damage else {
                Issue.record("veil \(i): a full frame")
                continue
            }
            let reference = try kind.makeRenderer().render(tree, width: 400, height: 300, scale: 1, clearColor: .clear)
            #expect(image.maximumChannelDifference(from: reference) == 0, "veil \(i)")
        }
    }

    /// A layer's sublayers near a small region come from its index, in drawing order; a sublayer
    /// moved, or raised by its zPosition, is found where and when it draws now, and only the
    /// changed layer's box and its superlayer's are made again. Two contexts drawn in turn keep
    /// their own boxes.
    @Test func sublayersNearARegionFollowMovesAndDrawingOrder() throws {
        let root = makeRoot(1000, 1000)
        let tiles = (0..<100).map { i in
            sublayer(root, frame: Rect(x: Double(i % 10) * 100, y: Double(i / 10) * 100, width: 50, height: 50), background: .blue)
        }
        let context = RenderContext(rootLayer: root)
        let other = RenderContext(rootLayer: makeRoot(10, 10))
        Transaction.flush()
        let bounds = SubtreeBounds()
        func near(_ region: PixelBox) throws -> [LayerID] {
            let tree = try #require(context.renderTree)
            bounds.update(for: tree)
            return bounds.sublayers(of: try #require(tree.root), in: tree, transform: .identity, within: region).map(\.id)
        }
        // Tiles 11 (100…150, 100…150) and 12 (200…250): their boxes reach a point further.
        #expect(try near(PixelBox(minX: 140, minY: 120, maxX: 210, maxY: 130)) == [tiles[11].id, tiles[12].id])
        #expect(bounds.measuredCount == 101)
        bounds.update(for: try #require(other.renderTree))
        #expect(bounds.measuredCount == 101)
        change { tiles[99].position = Point(x: 175, y: 125) }
        #expect(try near(PixelBox(minX: 140, minY: 120, maxX: 210, maxY: 130)) == [tiles[11].id, tiles[12].id, tiles[99].id])
        #expect(try near(PixelBox(minX: 940, minY: 940, maxX: 960, maxY: 960)) == [])
        #expect(bounds.measuredCount == 103)
        change { tiles[11].zPosition = 1 }
        #expect(try near(PixelBox(minX: 140, minY: 120, maxX: 210, maxY: 130)) == [tiles[12].id, tiles[99].id, tiles[11].id])
    }

    /// A walk of a layer's sublayers hands on each one's entry (`known`), from which that
    /// sublayer's own walk starts: it finds what a walk without it finds, after a change too; the
    /// entry of another layer is ignored.
    @Test func aWalkHandsOnItsSublayersEntries() throws {
        let root = makeRoot(100, 100)
        let left = sublayer(root, frame: Rect(x: 0, y: 0, width: 50, height: 100), background: .blue)
        let right = sublayer(root, frame: Rect(x: 50, y: 0, width: 50, height: 100), background: .blue)
        let dots = (0..<4).map { i in sublayer(left, frame: Rect(x: 0, y: Double(i) * 25, width: 10, height: 10), background: .red) }
        let bar = sublayer(right, frame: Rect(x: 0, y: 40, width: 50, height: 20), background: .red)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let bounds = SubtreeBounds()
        let region = PixelBox(minX: 0, minY: 20, maxX: 100, maxY: 45)
        /// Each sublayer of the root with its sublayers in `region`, found from the entry the
        /// root's walk handed on (or from `swapped`'s entry: the other sublayer's).
        func walk(swapped: Bool = false) throws -> [LayerID: [LayerID]] {
            let tree = try #require(context.renderTree)
            bounds.update(for: tree)
            var found: [LayerID: [LayerID]] = [:]
            var known: [LayerID: SubtreeBounds.Known] = [:]
            var sublayers = bounds.sublayerIDs(of: try #require(tree.root), in: tree, transform: .identity, within: region)
            while let id = sublayers.next() { known[id] = sublayers.known }
            for (id, other) in [(left.id, right.id), (right.id, left.id)] {
                let layer = try #require(tree[id])
                let transform = layer.transformToSuperlayer(in: try #require(tree.root).sublayerSpace)
                var inner = bounds.sublayerIDs(
                    of: layer, in: tree, transform: transform, within: region, known: known[swapped ? other : id])
                var ids: [LayerID] = []
                while let sub = inner.next() { ids.append(sub) }
                found[id] = ids
            }
            return found
        }
        #expect(try walk() == [left.id: [dots[1].id], right.id: [bar.id]])
        #expect(try walk(swapped: true) == [left.id: [dots[1].id], right.id: [bar.id]])
        change { dots[3].position = Point(x: 5, y: 35) }
        #expect(try walk() == [left.id: [dots[1].id, dots[3].id], right.id: [bar.id]])
        #expect(try walk(swapped: true) == [left.id: [dots[1].id, dots[3].id], right.id: [bar.id]])
    }

    /// A walk says whether its layer maps the sublayers as they are (no sublayerTransform, not
    /// flipped), as the layer's index was made: the CPU renderer's painter places them without
    /// the 4×4 products then, and asks nothing of the layer's values. A change of the space in a
    /// later commit is known to the next walk.
    @Test func aWalkKnowsWhetherItsLayerMapsTheSublayersAsTheyAre() throws {
        let root = makeRoot(100, 100)
        let turned = sublayer(root, frame: Rect(x: 0, y: 0, width: 50, height: 50))
        let flipped = sublayer(root, frame: Rect(x: 50, y: 0, width: 50, height: 50))
        for layer in [turned, flipped] { _ = sublayer(layer, frame: Rect(x: 10, y: 10, width: 10, height: 10), background: .red) }
        turned.sublayerTransform = Transform3D(rotationAngle: 0.2, x: 0, y: 0, z: 1)
        flipped.isGeometryFlipped = true
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let bounds = SubtreeBounds()
        func mapsAsTheyAre() throws -> [Bool] {
            let tree = try #require(context.renderTree)
            bounds.update(for: tree)
            return try [root, turned, flipped].map { layer in
                let walk = bounds.sublayerIDs(
                    of: try #require(tree[layer.id]), in: tree, transform: .identity, within: PixelBox(x: 0, y: 0, width: 100, height: 100))
                return walk.mapsSublayersAsTheyAre
            }
        }
        #expect(try mapsAsTheyAre() == [true, false, false])
        change {
            turned.sublayerTransform = .identity
            flipped.isGeometryFlipped = false
        }
        #expect(try mapsAsTheyAre() == [true, true, true])
        change { root.sublayerTransform = Transform3D(scaleX: 2, y: 2) }
        #expect(try mapsAsTheyAre() == [false, true, true])
    }
}
