import Testing
@testable import LayerKit

@MainActor
@Suite struct HierarchyTests {
    func names(_ layers: [Layer]) -> [String] { layers.map { $0.name ?? "?" } }

    @Test func addAndInsertPlaceSublayersAsTable41Says() {
        let root = Layer()
        let a = makeLayer(1, 1, name: "a"), b = makeLayer(1, 1, name: "b"), c = makeLayer(1, 1, name: "c")
        let d = makeLayer(1, 1, name: "d"), e = makeLayer(1, 1, name: "e")
        root.addSublayer(a)
        root.addSublayer(b)
        root.insertSublayer(c, at: 0)
        root.insertSublayer(d, above: c)
        root.insertSublayer(e, below: b)
        #expect(names(root.sublayers) == ["c", "d", "a", "e", "b"])
        #expect(root.sublayers.allSatisfy { $0.superlayer === root })
    }

    @Test func addingALayerElsewhereRemovesItFromItsOldTree() {
        let old = Layer(), new = Layer()
        let child = makeLayer(1, 1, name: "child")
        old.addSublayer(child)
        new.addSublayer(child)
        #expect(old.sublayers.isEmpty && new.sublayers.count == 1 && child.superlayer === new)
    }

    @Test func reinsertingASublayerMovesItWithinTheArray() {
        let root = Layer()
        let a = makeLayer(1, 1, name: "a"), b = makeLayer(1, 1, name: "b"), c = makeLayer(1, 1, name: "c")
        root.sublayers = [a, b, c]
        root.addSublayer(a)
        #expect(names(root.sublayers) == ["b", "c", "a"])
        root.insertSublayer(a, at: 0)
        #expect(names(root.sublayers) == ["a", "b", "c"])
        root.insertSublayer(a, above: b)
        #expect(names(root.sublayers) == ["b", "a", "c"])
    }

    @Test func removeFromSuperlayerDetaches() {
        let root = Layer()
        let a = Layer()
        root.addSublayer(a)
        a.removeFromSuperlayer()
        #expect(root.sublayers.isEmpty && a.superlayer == nil)
        a.removeFromSuperlayer()
        #expect(a.superlayer == nil)
    }

    @Test func replaceSublayerPutsTheNewLayerInTheOldOnesPlace() {
        let root = Layer(), elsewhere = Layer()
        let a = makeLayer(1, 1, name: "a"), b = makeLayer(1, 1, name: "b"), c = makeLayer(1, 1, name: "c")
        root.sublayers = [a, b]
        elsewhere.addSublayer(c)
        root.replaceSublayer(a, with: c)
        #expect(names(root.sublayers) == ["c", "b"])
        #expect(a.superlayer == nil && elsewhere.sublayers.isEmpty && c.superlayer === root)
    }

    @Test func drawingOrderIsZPositionThenArrayOrder() {
        let root = Layer()
        let a = makeLayer(1, 1, name: "a"), b = makeLayer(1, 1, name: "b"), c = makeLayer(1, 1, name: "c")
        let d = makeLayer(1, 1, name: "d")
        root.sublayers = [a, b, c, d]
        #expect(names(root.sublayersInDrawingOrder) == ["a", "b", "c", "d"])
        a.zPosition = 1
        c.zPosition = -1
        d.zPosition = 1
        #expect(names(root.sublayersInDrawingOrder) == ["c", "b", "a", "d"])
        #expect(names(root.sublayers) == ["a", "b", "c", "d"])
    }

    @Test func aMaskHasNoSuperlayerAndLeavesWithRemoveFromSuperlayer() {
        let layer = makeLayer(10, 10)
        let mask = makeLayer(5, 5)
        layer.mask = mask
        #expect(mask.superlayer == nil && layer.mask === mask && mask.rootLayer === layer)
        mask.removeFromSuperlayer()
        #expect(layer.mask == nil && mask.rootLayer === mask)
    }

    @Test func rootLayerAndDescendantQueries() {
        let root = Layer(), mid = Layer(), leaf = Layer()
        root.addSublayer(mid)
        mid.addSublayer(leaf)
        #expect(leaf.rootLayer === root && leaf.isDescendant(of: root) && !root.isDescendant(of: leaf))
    }
}

@MainActor
@Suite struct HitTestTests {
    func scene() -> (root: Layer, box: Layer, child: Layer) {
        let root = makeLayer(400, 400, at: Point(x: 200, y: 200), name: "root")
        let box = makeLayer(100, 100, at: Point(x: 100, y: 100), name: "box")
        let child = makeLayer(40, 40, at: Point(x: 0, y: 0), name: "child")  // hangs over box's top-left corner
        root.addSublayer(box)
        box.addSublayer(child)
        return (root, box, child)
    }

    @Test func hitTestFindsTheDeepestLayerAndSublayersOutsideTheirParent() {
        let (root, box, child) = scene()
        #expect(root.hitTest(Point(x: 120, y: 120)) === box)
        #expect(root.hitTest(Point(x: 55, y: 55)) === child)   // inside box and child
        #expect(root.hitTest(Point(x: 35, y: 35)) === child)   // outside box, inside child
        #expect(root.hitTest(Point(x: 300, y: 300)) === root)
        #expect(root.hitTest(Point(x: 401, y: 10)) == nil)
    }

    @Test func masksToBoundsCutsOffSublayersOutsideTheBounds() {
        let (root, box, _) = scene()
        box.masksToBounds = true
        #expect(root.hitTest(Point(x: 35, y: 35)) === root)
        #expect(root.hitTest(Point(x: 55, y: 55)) !== box)
    }

    @Test func masksToBoundsWithCornerRadiusMissesTheRoundedCorners() {
        let (root, box, child) = scene()
        child.removeFromSuperlayer()
        box.cornerRadius = 20
        #expect(root.hitTest(Point(x: 52, y: 52)) === box)  // cornerRadius alone does not clip hit testing
        box.masksToBounds = true
        #expect(root.hitTest(Point(x: 52, y: 52)) === root)  // in the rounded-off corner
        #expect(root.hitTest(Point(x: 57, y: 57)) === box)   // inside the arc (distance 18.4 < 20)
        #expect(root.hitTest(Point(x: 51, y: 100)) === box)  // on the straight edge
        box.maskedCorners = [.maxXMaxYCorner]
        #expect(root.hitTest(Point(x: 52, y: 52)) === box)   // that corner is no longer rounded
        #expect(root.hitTest(Point(x: 148, y: 148)) === root)
    }

    @Test func hiddenAndTransparentLayersAreNotHit() {
        let (root, box, child) = scene()
        child.isHidden = true
        #expect(root.hitTest(Point(x: 55, y: 55)) === box)
        box.opacity = 0.005
        #expect(root.hitTest(Point(x: 55, y: 55)) === root)
    }

    @Test func frontmostSiblingWinsByZPosition() {
        let root = makeLayer(100, 100, at: Point(x: 50, y: 50))
        let back = makeLayer(50, 50, at: Point(x: 50, y: 50), name: "back")
        let front = makeLayer(50, 50, at: Point(x: 50, y: 50), name: "front")
        root.sublayers = [back, front]
        #expect(root.hitTest(Point(x: 50, y: 50)) === front)
        back.zPosition = 1
        #expect(root.hitTest(Point(x: 50, y: 50)) === back)
    }

    @Test func hitTestingFollowsTransforms() {
        let root = makeLayer(400, 400, at: Point(x: 200, y: 200))
        let bar = makeLayer(200, 20, at: Point(x: 200, y: 200))
        bar.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        root.addSublayer(bar)
        #expect(root.hitTest(Point(x: 200, y: 290)) === bar)  // the bar now runs vertically
        #expect(root.hitTest(Point(x: 290, y: 200)) === root)
    }

    @Test func containsUsesHalfOpenBounds() {
        let l = makeLayer(10, 10)
        #expect(l.contains(.zero) && l.contains(Point(x: 9.99, y: 9.99)) && !l.contains(Point(x: 10, y: 5)))
    }
}
