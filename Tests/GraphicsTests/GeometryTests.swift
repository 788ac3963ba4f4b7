import Testing

import Graphics

@Suite struct RectTests {
    let r = Rect(x: 1, y: 2, width: 3, height: 4)

    @Test func unionWithNullIsTheOtherRectStandardized() {
        #expect(Rect.null.union(r) == r)
        #expect(r.union(.null) == r)
        let negative = Rect(x: 4, y: 6, width: -3, height: -4)
        #expect(Rect.null.union(negative) == r)
        #expect(r.union(Rect(x: 10, y: 0, width: 1, height: 1)) == Rect(x: 1, y: 0, width: 10, height: 6))
    }

    @Test func intersectionOfDisjointRectsIsNull() {
        let far = Rect(x: 10, y: 10, width: 1, height: 1)
        #expect(r.intersection(far).isNull)
        #expect(r.intersection(far) == .null)
        #expect(!r.intersects(far))
        #expect(r.intersection(Rect(x: 2, y: 3, width: 10, height: 10)) == Rect(x: 2, y: 3, width: 2, height: 3))
        // Rects that only share an edge intersect in an empty, non-null rect.
        let touching = r.intersection(Rect(x: 4, y: 2, width: 1, height: 1))
        #expect(!touching.isNull && touching.isEmpty)
        #expect(!r.intersects(Rect(x: 4, y: 2, width: 1, height: 1)))
    }

    @Test func insetByShrinksEachSideAndOverInsettingGivesNull() {
        #expect(Rect(x: 0, y: 0, width: 10, height: 10).insetBy(dx: 2, dy: 3) == Rect(x: 2, y: 3, width: 6, height: 4))
        #expect(Rect(x: 0, y: 0, width: 10, height: 10).insetBy(dx: -1, dy: 0) == Rect(x: -1, y: 0, width: 12, height: 10))
        #expect(Rect(x: 0, y: 0, width: 10, height: 10).insetBy(dx: 6, dy: 0).isNull)
        #expect(Rect.null.insetBy(dx: 1, dy: 1).isNull)
    }

    @Test func standardizedMakesNegativeSizesPositive() {
        let negative = Rect(x: 10, y: 10, width: -4, height: -6)
        #expect(negative.standardized == Rect(x: 6, y: 4, width: 4, height: 6))
        #expect(negative.minX == 6 && negative.maxX == 10 && negative.width == 4)
        #expect(Rect.null.standardized.isNull)
    }

    @Test func containsIsHalfOpen() {
        let square = Rect(x: 0, y: 0, width: 10, height: 10)
        #expect(square.contains(Point(x: 0, y: 0)))
        #expect(square.contains(Point(x: 9.999, y: 9.999)))
        #expect(!square.contains(Point(x: 10, y: 5)))
        #expect(!square.contains(Point(x: 5, y: 10)))
        #expect(!square.contains(Point(x: -0.001, y: 5)))
        #expect(!Rect.null.contains(Point(x: 0, y: 0)))
        #expect(square.contains(Rect(x: 0, y: 0, width: 10, height: 10)))
        #expect(!square.contains(Rect(x: 1, y: 1, width: 10, height: 1)))
    }

    @Test func applyingATransformBoundsTheTransformedCorners() {
        let rotated = Rect(x: 0, y: 0, width: 2, height: 1).applying(AffineTransform2D(rotationAngle: .pi / 2))
        #expect(abs(rotated.minX + 1) < 1e-12 && abs(rotated.maxX) < 1e-12)
        #expect(abs(rotated.minY) < 1e-12 && abs(rotated.maxY - 2) < 1e-12)
    }
}

@Suite struct AffineTransformTests {
    @Test func concatenatingAppliesTheReceiverFirst() {
        let t = AffineTransform2D(translationX: 10, y: 0).concatenating(AffineTransform2D(scaleX: 2, y: 2))
        #expect(Point.zero.applying(t) == Point(x: 20, y: 0))
        #expect(Point(x: 1, y: 1).applying(t) == Point(x: 22, y: 2))
    }

    @Test func translatedByAndScaledByApplyTheNewStepFirst() {
        let t = AffineTransform2D(translationX: 10, y: 0).scaledBy(x: 2, y: 2)
        #expect(Point.zero.applying(t) == Point(x: 10, y: 0))
        #expect(Point(x: 1, y: 1).applying(t) == Point(x: 12, y: 2))
        #expect(Point.zero.applying(AffineTransform2D(scaleX: 2, y: 2).translatedBy(x: 10, y: 0)) == Point(x: 20, y: 0))
    }

    @Test func rotationTurnsXTowardsY() {
        let p = Point(x: 1, y: 0).applying(AffineTransform2D.identity.rotated(by: .pi / 2))
        #expect(abs(p.x) < 1e-12 && abs(p.y - 1) < 1e-12)
    }

    @Test func invertedOfASingularTransformReturnsItself() {
        let singular = AffineTransform2D(a: 1, b: 2, c: 2, d: 4, tx: 5, ty: 6)
        #expect(singular.determinant == 0)
        #expect(singular.inverted() == singular)
        #expect(AffineTransform2D(scaleX: 0, y: 1).inverted() == AffineTransform2D(scaleX: 0, y: 1))
    }

    @Test func invertedUndoesAnInvertibleTransform() {
        let t = AffineTransform2D(rotationAngle: 0.3).scaledBy(x: 2, y: -3).translatedBy(x: 4, y: 5)
        let roundTrip = t.concatenating(t.inverted())
        for (value, expected) in [
            (roundTrip.a, 1.0), (roundTrip.b, 0), (roundTrip.c, 0), (roundTrip.d, 1), (roundTrip.tx, 0), (roundTrip.ty, 0),
        ] {
            #expect(abs(value - expected) < 1e-12)
        }
        #expect(AffineTransform2D.identity.isIdentity && !t.isIdentity)
    }
}
