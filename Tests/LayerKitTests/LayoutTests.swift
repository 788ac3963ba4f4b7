import Testing
@testable import LayerKit
import SeedExamples

@MainActor
@Suite struct ConstraintLayoutTests {
    func listing42(superlayerSize: Size) -> (theLayer: Layer, layerA: Layer, layerB: Layer) {
        let theLayer = Layer()
        theLayer.bounds = Rect(origin: .zero, size: superlayerSize)
        let (layerA, layerB) = SeedExamples.addListing42Layers(to: theLayer)
        return (theLayer, layerA, layerB)
    }

    @Test(arguments: [Size(width: 300, height: 200), Size(width: 640, height: 480), Size(width: 1920, height: 1080)])
    func listing42LandsOnTheSeedsFrames(size: Size) {
        let (theLayer, layerA, layerB) = listing42(superlayerSize: size)
        theLayer.layoutIfNeeded()
        // layerA keeps its size, centred in the superlayer.
        #expect(layerA.frame == Rect(x: size.width / 2 - 50, y: size.height / 2 - 12.5, width: 100, height: 25))
        // layerB: layerA's width and midX; its MaxY edge 10 points short of layerA's MinY edge and
        // its MinY edge 10 points from the superlayer's. Its size was never set.
        #expect(layerB.frame == Rect(x: size.width / 2 - 50, y: 10, width: 100, height: size.height / 2 - 32.5))
        #expect(layerB.bounds.size == Size(width: 100, height: size.height / 2 - 32.5))
    }

    @Test func listing42LooksLikeFigure42InAFlippedSuperlayer() {
        // The listing was written for y-up OS X: with isGeometryFlipped the superlayer puts
        // layerB below layerA on Vitrine's y-down screen, as Figure 4-2 shows.
        let (theLayer, layerA, layerB) = listing42(superlayerSize: Size(width: 300, height: 200))
        theLayer.isGeometryFlipped = true
        theLayer.layoutIfNeeded()
        let a = layerA.convert(layerA.bounds, to: theLayer)
        let b = layerB.convert(layerB.bounds, to: theLayer)
        #expect(a == Rect(x: 100, y: 87.5, width: 100, height: 25))
        #expect(b == Rect(x: 100, y: 122.5, width: 100, height: 67.5))
        #expect(b.minY - a.maxY == 10 && theLayer.bounds.maxY - b.maxY == 10)
    }

    @Test func resizingTheSuperlayerRelaysOutAtCommit() {
        let (theLayer, layerA, layerB) = listing42(superlayerSize: Size(width: 300, height: 200))
        Transaction.flush()
        #expect(layerB.frame == Rect(x: 100, y: 10, width: 100, height: 67.5))
        theLayer.bounds = Rect(x: 0, y: 0, width: 500, height: 400)
        #expect(layerA.frame == Rect(x: 100, y: 87.5, width: 100, height: 25))  // not until the commit
        Transaction.flush()
        #expect(layerA.frame == Rect(x: 200, y: 187.5, width: 100, height: 25))
        #expect(layerB.frame == Rect(x: 200, y: 10, width: 100, height: 167.5))
    }

    @Test func oneEdgeKeepsTheSizeAndTwoEdgesSetIt() {
        let parent = makeLayer(200, 100)
        parent.layoutManager = ConstraintLayoutManager()
        let left = makeLayer(30, 40, name: "left")
        left.addConstraint(Constraint(attribute: .maxX, relativeTo: "superlayer", attribute: .maxX, offset: -5))
        let stretched = makeLayer(1, 1)
        stretched.addConstraint(Constraint(attribute: .minX, relativeTo: "superlayer", attribute: .minX))
        stretched.addConstraint(Constraint(attribute: .maxX, relativeTo: "left", attribute: .minX))
        stretched.addConstraint(Constraint(attribute: .height, relativeTo: "superlayer", attribute: .height, scale: 0.5))
        stretched.addConstraint(Constraint(attribute: .maxY, relativeTo: "superlayer", attribute: .maxY))
        parent.sublayers = [stretched, left]  // a sibling listed later is still solved first
        parent.layoutIfNeeded()
        #expect(left.frame == Rect(x: 165, y: -20, width: 30, height: 40))
        #expect(stretched.frame == Rect(x: 0, y: 50, width: 165, height: 50))
    }

    @Test func docExampleFillsTheLeftAndRightHalves() {
        let parent = makeLayer(300, 120)
        parent.layoutManager = ConstraintLayoutManager()
        let l = Layer(), r = Layer()
        for (layer, edge) in [(l, ConstraintAttribute.minX), (r, .maxX)] {
            layer.addConstraint(Constraint(attribute: .height, relativeTo: "superlayer", attribute: .height))
            layer.addConstraint(Constraint(attribute: .width, relativeTo: "superlayer", attribute: .width, scale: 0.5))
            layer.addConstraint(Constraint(attribute: edge, relativeTo: "superlayer", attribute: edge))
            layer.addConstraint(Constraint(attribute: .minY, relativeTo: "superlayer", attribute: .minY))
            parent.addSublayer(layer)
        }
        parent.layoutIfNeeded()
        #expect(l.frame == Rect(x: 0, y: 0, width: 150, height: 120))
        #expect(r.frame == Rect(x: 150, y: 0, width: 150, height: 120))
    }
}

@MainActor
@Suite struct LayoutTests {
    final class Recorder: LayerLayoutDelegate {
        var calls: [String] = []
        func layoutSublayers(of layer: Layer) { calls.append(layer.name ?? "?") }
    }

    final class CountingLayer: Layer {
        var layouts = 0
        override func layoutSublayers() { layouts += 1 }
    }

    @Test func boundsSizeChangeLaysOutTheLayerAndItsSuperlayer() {
        let recorder = Recorder()
        let parent = makeLayer(100, 100, name: "parent"), child = makeLayer(10, 10, name: "child")
        parent.addSublayer(child)
        parent.delegate = recorder
        child.delegate = recorder
        Transaction.flush()
        recorder.calls = []
        child.bounds = Rect(x: 0, y: 0, width: 20, height: 10)
        #expect(child.needsLayout() && parent.needsLayout())
        Transaction.flush()
        #expect(recorder.calls == ["parent", "child"])  // parents before children
        child.position = Point(x: 5, y: 5)
        Transaction.flush()
        #expect(recorder.calls == ["parent", "child"])  // moving is not a reason to lay out
    }

    @Test func layoutIfNeededLaysOutFromTheTopmostAncestorThatNeedsIt() {
        let top = CountingLayer(), mid = CountingLayer(), leaf = CountingLayer()
        top.addSublayer(mid)
        mid.addSublayer(leaf)
        top.layoutIfNeeded()
        (top.layouts, mid.layouts, leaf.layouts) = (0, 0, 0)
        top.setNeedsLayout()
        leaf.setNeedsLayout()
        leaf.layoutIfNeeded()  // mid does not need layout, so the walk stops at leaf
        #expect(top.layouts == 0 && mid.layouts == 0 && leaf.layouts == 1)
        #expect(top.needsLayout() && !leaf.needsLayout())
        mid.setNeedsLayout()
        leaf.setNeedsLayout()
        leaf.layoutIfNeeded()
        #expect(top.layouts == 1 && mid.layouts == 1 && leaf.layouts == 2)
        #expect(!top.needsLayout() && !mid.needsLayout() && !leaf.needsLayout())
    }

    @Test func anOverriddenLayoutSublayersReplacesTheLayoutManager() {
        let parent = CountingLayer()
        parent.bounds = Rect(x: 0, y: 0, width: 100, height: 100)
        parent.layoutManager = ConstraintLayoutManager()
        let child = makeLayer(10, 10)
        child.addConstraint(Constraint(attribute: .minX, relativeTo: "superlayer", attribute: .minX, offset: 7))
        parent.addSublayer(child)
        parent.layoutIfNeeded()
        #expect(parent.layouts == 1 && child.frame.minX == -5)
    }

    @Test func aLayoutDelegateTakesThePlaceOfTheLayoutManager() {
        let recorder = Recorder()
        let parent = makeLayer(100, 100, name: "p")
        parent.layoutManager = ConstraintLayoutManager()
        parent.delegate = recorder
        let child = makeLayer(10, 10)
        child.addConstraint(Constraint(attribute: .minX, relativeTo: "superlayer", attribute: .minX, offset: 7))
        parent.addSublayer(child)
        parent.layoutIfNeeded()
        #expect(recorder.calls == ["p"] && child.frame.minX == -5)
    }

    @Test func autoresizingSplitsTheChangeEvenlyBetweenFlexibleParts() {
        let parent = makeLayer(100, 100)
        let child = Layer()
        child.frame = Rect(x: 10, y: 10, width: 20, height: 30)
        child.autoresizingMask = [.minXMargin, .widthSizable, .maxXMargin, .heightSizable]
        parent.addSublayer(child)
        parent.layoutIfNeeded()
        parent.bounds = Rect(x: 0, y: 0, width: 200, height: 140)
        parent.layoutIfNeeded()
        #expect(isClose(child.frame, Rect(x: 10 + 100.0 / 3, y: 10, width: 20 + 100.0 / 3, height: 70)))
    }

    @Test func autoresizingWidthAndRightMarginShareTheChange() {
        // NSView's documented example: width and maxX margin flexible, +10 → each +5.
        let parent = makeLayer(100, 100)
        let child = Layer()
        child.frame = Rect(x: 10, y: 20, width: 50, height: 30)
        child.autoresizingMask = [.widthSizable, .maxXMargin, .minYMargin]
        parent.addSublayer(child)
        parent.layoutIfNeeded()
        parent.bounds = Rect(x: 0, y: 0, width: 110, height: 90)
        parent.layoutIfNeeded()
        #expect(child.frame == Rect(x: 10, y: 10, width: 55, height: 30))
    }

    @Test func autoresizingRunsBeforeTheDelegatesLayout() {
        final class Checker: LayerLayoutDelegate {
            var widthSeen: Double?
            func layoutSublayers(of layer: Layer) { widthSeen = layer.sublayers[0].frame.width }
        }
        let checker = Checker()
        let parent = makeLayer(100, 100)
        parent.delegate = checker
        let child = Layer()
        child.frame = Rect(x: 0, y: 0, width: 100, height: 10)
        child.autoresizingMask = [.widthSizable]
        parent.addSublayer(child)
        parent.layoutIfNeeded()
        parent.bounds = Rect(x: 0, y: 0, width: 300, height: 100)
        parent.layoutIfNeeded()
        #expect(checker.widthSeen == 300)
    }
}
