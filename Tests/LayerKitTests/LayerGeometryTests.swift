import Foundation
import Testing
@testable import LayerKit

@MainActor
@Suite struct LayerDefaultsTests {
    @Test func aNewLayerHasCoreAnimationsDefaults() {
        let l = Layer()
        #expect(l.bounds == .zero && l.position == .zero && l.frame == .zero)  // seed ch. 4: zero size at (0, 0)
        #expect(l.anchorPoint == Point(x: 0.5, y: 0.5) && l.anchorPointZ == 0 && l.zPosition == 0)
        #expect(l.transform.isIdentity && l.sublayerTransform.isIdentity)
        #expect(l.opacity == 1 && l.contentsScale == 1 && l.contentsGravity == .resize)
        #expect(l.contentsRect == Rect(x: 0, y: 0, width: 1, height: 1))
        #expect(l.contentsCenter == Rect(x: 0, y: 0, width: 1, height: 1))
        #expect(l.shadowOpacity == 0 && l.shadowRadius == 3 && l.shadowOffset == Size(width: 0, height: -3))
        #expect(l.shadowColor == .black && l.borderColor == .black && l.shadowPath == nil)
        #expect(l.borderWidth == 0 && l.cornerRadius == 0 && l.maskedCorners == .all)
        #expect(!l.masksToBounds && !l.isHidden && !l.isOpaque && !l.isGeometryFlipped && l.isDoubleSided)
        #expect(l.speed == 1 && l.beginTime == 0 && l.timeOffset == 0 && l.fillMode == .removed)
        #expect(l.mask == nil && l.superlayer == nil && l.sublayers.isEmpty && l.contents == nil)
        #expect(l.backgroundColor == nil && l.allowsGroupOpacity && !l.needsDisplayOnBoundsChange)
        #expect(l.minificationFilter == .linear && l.magnificationFilter == .linear)
    }

    @Test func defaultValueForKeyAnswersDeclaredDefaultsAndNilForUnknownKeys() {
        #expect(Layer.defaultValue(forKey: "anchorPoint") as? Point == Point(x: 0.5, y: 0.5))
        #expect(Layer.defaultValue(forKey: "contentsScale") as? Double == 1)
        #expect(Layer.defaultValue(forKey: "shadowOffset") as? Size == Size(width: 0, height: -3))
        #expect(Layer.defaultValue(forKey: "backgroundColor") == nil)
        #expect(Layer.defaultValue(forKey: "noSuchKey") == nil)
    }

    /// ca-semantics G1: Core Animation answers nil for these three, though a new layer's bounds
    /// and position are zero (and its frame follows from them).
    @Test func defaultValueForKeyIsNilForBoundsPositionAndFrame() {
        #expect(Layer.defaultValue(forKey: "bounds") == nil)
        #expect(Layer.defaultValue(forKey: "position") == nil)
        #expect(Layer.defaultValue(forKey: "frame") == nil)
        #expect(ShapeLayer.defaultValue(forKey: "bounds") == nil)
        let l = Layer()
        #expect(l.bounds == .zero && l.position == .zero && l.frame == .zero)
    }
}

@MainActor
@Suite struct FrameTests {
    @Test func chapterFourBoundsAndPositionExample() {
        // myLayer.bounds = (0, 0, 100, 100); myLayer.position = (200, 200)
        let l = makeLayer(100, 100, at: Point(x: 200, y: 200))
        #expect(l.frame == Rect(x: 150, y: 150, width: 100, height: 100))
    }

    @Test func frameFollowsAnchorPoint() {
        let l = makeLayer(100, 50, at: Point(x: 200, y: 300))
        #expect(l.frame == Rect(x: 150, y: 275, width: 100, height: 50))
        l.anchorPoint = .zero
        #expect(l.frame == Rect(x: 200, y: 300, width: 100, height: 50))
        l.anchorPoint = Point(x: 1, y: 1)
        #expect(l.frame == Rect(x: 100, y: 250, width: 100, height: 50))
        l.anchorPoint = Point(x: 2, y: -1)
        l.position = .zero
        #expect(l.frame == Rect(x: -200, y: 50, width: 100, height: 50))
    }

    @Test func boundsOriginDoesNotMoveTheFrame() {
        let l = makeLayer(100, 50, at: Point(x: 200, y: 300))
        l.bounds = Rect(x: 11, y: 22, width: 100, height: 50)
        #expect(l.frame == Rect(x: 150, y: 275, width: 100, height: 50))
    }

    @Test func frameIsTheBoundingBoxOfTheTransformedBounds() {
        let l = makeLayer(100, 50, at: Point(x: 200, y: 300))
        l.transform = Transform3D(scaleX: 2, y: 4)
        #expect(l.frame == Rect(x: 100, y: 200, width: 200, height: 200))
        l.transform = Transform3D(translationX: 10, y: 20)
        #expect(l.frame == Rect(x: 160, y: 295, width: 100, height: 50))
        let r = makeLayer(100, 100)
        r.transform = Transform3D(rotationAngle: .pi / 4, x: 0, y: 0, z: 1)
        let s = 50 * 2.0.squareRoot()
        #expect(isClose(r.frame, Rect(x: -s, y: -s, width: 2 * s, height: 2 * s)))
    }

    @Test func zPositionAndContentsScaleDoNotAffectFrame() {
        let l = makeLayer(10, 10, at: Point(x: 10, y: 20))
        l.zPosition = 40
        l.anchorPointZ = 3
        l.contentsScale = 2
        l.isGeometryFlipped = true
        #expect(l.frame == Rect(x: 5, y: 15, width: 10, height: 10))
        #expect(makeLayer(0, 0, at: Point(x: 10, y: 20)).frame == Rect(x: 10, y: 20, width: 0, height: 0))
    }

    @Test func contentsAndGravityDoNotChangeGeometryOrHitTesting() {
        // Contents that overflow the bounds (center gravity on a small layer) are drawn outside
        // them, but frame, conversion and hit testing stay those of the bounds.
        let root = makeLayer(200, 200, at: Point(x: 100, y: 100))
        let l = makeLayer(20, 20, at: Point(x: 100, y: 100))
        root.addSublayer(l)
        let before = (l.frame, l.convert(Point.zero, to: root))
        l.contents = Image(width: 80, height: 80, fill: PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255))
        for gravity in ContentsGravity.allCases {
            l.contentsGravity = gravity
            #expect(l.frame == before.0 && l.convert(Point.zero, to: root) == before.1)
            #expect(root.hitTest(Point(x: 85, y: 85)) === root)  // on the overflowing contents only
            #expect(root.hitTest(Point(x: 95, y: 95)) === l)
        }
    }

    @Test func settingFrameSetsBoundsSizeAndPosition() {
        let l = Layer()
        l.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(l.bounds == Rect(x: 0, y: 0, width: 100, height: 50) && l.position == Point(x: 60, y: 45))
        let a = Layer()
        a.anchorPoint = .zero
        a.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(a.position == Point(x: 10, y: 20))
        let b = Layer()
        b.anchorPoint = Point(x: 1, y: 1)
        b.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(b.position == Point(x: 110, y: 70))
    }

    @Test func settingANegativeFrameStandardizesIt() {
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: -100, height: -50)
        #expect(l.bounds == Rect(x: 0, y: 0, width: 100, height: 50) && l.position == Point(x: -50, y: -25))
    }

    @Test func settingFrameUnderATransformCorrectsForIt() {
        let s = Layer()
        s.transform = Transform3D(scaleX: 2, y: 4)
        s.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(s.bounds == Rect(x: 0, y: 0, width: 50, height: 12.5) && s.position == Point(x: 60, y: 45))
        #expect(s.frame == Rect(x: 10, y: 20, width: 100, height: 50))
        let t = Layer()
        t.transform = Transform3D(translationX: 10, y: 20)
        t.frame = Rect(x: 10, y: 20, width: 100, height: 50)
        #expect(t.bounds.size == Size(width: 100, height: 50) && t.position == Point(x: 50, y: 25))
    }

    @Test func movingTheAnchorPointMovesPositionNotTheLayer() {
        // Figure 1-5: the layer stays where it is; its position follows the anchor to the bounds origin.
        let l = Layer()
        l.frame = Rect(x: 40, y: 60, width: 120, height: 80)
        #expect(l.position == Point(x: 100, y: 100))
        let frame = l.frame
        l.anchorPoint = .zero
        l.frame = frame
        #expect(l.position == Point(x: 40, y: 60))
        #expect(l.frame == Rect(x: 40, y: 60, width: 120, height: 80))
    }

    @Test func rotationTurnsTheLayerAboutItsAnchorPoint() {
        // Figure 1-6: a quarter turn about the centre keeps the centre; about the origin keeps the corner.
        let centred = makeLayer(120, 80, at: Point(x: 100, y: 100))
        centred.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        #expect(isClose(centred.frame, Rect(x: 60, y: 40, width: 80, height: 120)))
        let cornered = makeLayer(120, 80, at: Point(x: 40, y: 60))
        cornered.anchorPoint = .zero
        cornered.transform = Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)
        #expect(isClose(cornered.frame, Rect(x: -40, y: 60, width: 80, height: 120)))
        let parent = makeLayer(400, 400, at: Point(x: 200, y: 200))
        parent.addSublayer(cornered)
        #expect(isClose(cornered.convert(.zero, to: parent), Point(x: 40, y: 60)))
    }

    @Test func affineTransformReadsIdentityForANonAffineTransform() {
        let l = Layer()
        l.affineTransform = AffineTransform2D(scaleX: 2, y: 3)
        #expect(l.transform.rows == [[2, 0, 0, 0], [0, 3, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        l.transform = Transform3D(rotationAngle: 0.3, x: 1, y: 0, z: 0)
        #expect(l.affineTransform == .identity)
    }
}

@MainActor
@Suite struct ConversionTests {
    func parentAndChild() -> (Layer, Layer) {
        let parent = makeLayer(200, 200, at: Point(x: 100, y: 100))
        let child = makeLayer(50, 50, at: Point(x: 100, y: 50))
        parent.addSublayer(child)
        return (parent, child)
    }

    @Test func pointsConvertBetweenChildAndParent() {
        let (parent, child) = parentAndChild()
        #expect(child.convert(.zero, to: parent) == Point(x: 75, y: 25))
        #expect(child.convert(Point(x: 50, y: 50), to: parent) == Point(x: 125, y: 75))
        #expect(child.convert(.zero, from: parent) == Point(x: -75, y: -25))
        #expect(parent.convert(.zero, to: child) == Point(x: -75, y: -25))
    }

    @Test func parentBoundsOriginDoesNotChangeChildToParent() {
        let (parent, child) = parentAndChild()
        parent.bounds = Rect(x: 10, y: 20, width: 200, height: 200)
        #expect(child.convert(.zero, to: parent) == Point(x: 75, y: 25))
    }

    @Test func childScaleAppliesAboutItsAnchor() {
        let (parent, child) = parentAndChild()
        child.transform = Transform3D(scaleX: 2, y: 2)
        #expect(child.convert(.zero, to: parent) == Point(x: 50, y: 0))
        #expect(child.convert(Rect(x: 0, y: 0, width: 10, height: 20), to: parent) == Rect(x: 50, y: 0, width: 20, height: 40))
    }

    @Test func sublayerTransformPivotsAboutTheParentsAnchor() {
        let (parent, child) = parentAndChild()
        parent.sublayerTransform = Transform3D(translationX: 10, y: 20)
        #expect(child.convert(.zero, to: parent) == Point(x: 85, y: 45))
        parent.sublayerTransform = Transform3D(scaleX: 2, y: 2, z: 2)
        child.transform = Transform3D(translationX: 5, y: 6)
        // ca-semantics G7: ((80, 31) − (100, 100))·2 + (100, 100), only right with the pivot at the anchor.
        #expect(child.convert(.zero, to: parent) == Point(x: 60, y: -38))
    }

    @Test func rotatedChildRectConvertsToItsBoundingBox() {
        let parent = makeLayer(200, 200, at: Point(x: 100, y: 100))
        let child = makeLayer(100, 100, at: Point(x: 100, y: 100))
        child.transform = Transform3D(rotationAngle: .pi / 4, x: 0, y: 0, z: 1)
        parent.addSublayer(child)
        let s = 50 * 2.0.squareRoot()
        #expect(isClose(child.convert(child.bounds, to: parent), Rect(x: 100 - s, y: 100 - s, width: 2 * s, height: 2 * s)))
        #expect(isClose(child.convert(Point(x: 50, y: 50), to: parent), Point(x: 100, y: 100)))
    }

    @Test func conversionsComposeThroughGrandchildrenAndSiblings() {
        let root = makeLayer(300, 300, at: Point(x: 150, y: 150))
        let s1 = makeLayer(50, 50, at: Point(x: 25, y: 25))
        let s2 = makeLayer(50, 50, at: Point(x: 125, y: 25))
        root.addSublayer(s1)
        root.addSublayer(s2)
        #expect(s1.convert(.zero, to: s2) == Point(x: -100, y: 0))
        let grandchild = makeLayer(10, 10, at: Point(x: 5, y: 5))
        s2.addSublayer(grandchild)
        #expect(grandchild.convert(.zero, to: root) == Point(x: 100, y: 0))
        #expect(grandchild.convert(.zero, to: s1) == Point(x: 100, y: 0))
    }

    @Test func layersInDifferentTreesMeetInTheRootsParentSpace() {
        let a = makeLayer(100, 100, at: Point(x: 50, y: 50))
        let b = makeLayer(100, 100, at: Point(x: 250, y: 50))
        #expect(a.convert(.zero, to: b) == Point(x: -200, y: 0))
        #expect(a.convert(Point(x: 10, y: 10), to: nil) == Point(x: 10, y: 10))
        #expect(b.convert(Point(x: 200, y: 0), from: nil) == Point(x: 0, y: 0))
    }

    @Test func geometryFlippedFlipsTheSublayersVertically() {
        let parent = makeLayer(200, 100, at: Point(x: 100, y: 50))
        parent.isGeometryFlipped = true
        let child = makeLayer(20, 10, at: Point(x: 10, y: 5))
        child.anchorPoint = .zero
        parent.addSublayer(child)
        #expect(child.convert(.zero, to: parent) == Point(x: 10, y: 95))
        #expect(child.convert(child.bounds, to: parent) == Rect(x: 10, y: 85, width: 20, height: 10))
        #expect(child.contentsAreFlipped() && !parent.contentsAreFlipped())
        #expect(child.convert(Point(x: 10, y: 95), from: parent) == .zero)
    }

    @Test func perspectiveSublayerTransformProjectsPointsByDepth() {
        let parent = makeLayer(200, 200, at: Point(x: 100, y: 100))
        var p = Transform3D.identity
        p.m34 = -1.0 / 500
        parent.sublayerTransform = p
        let child = makeLayer(100, 100, at: Point(x: 100, y: 100))
        child.zPosition = 100
        parent.addSublayer(child)
        // The child's corner is 50 points from the vanishing point (the parent's centre), magnified 500/400.
        #expect(isClose(child.convert(.zero, to: parent), Point(x: 37.5, y: 37.5)))
        #expect(isClose(child.convert(Point(x: 37.5, y: 37.5), from: parent), .zero))
    }
}
