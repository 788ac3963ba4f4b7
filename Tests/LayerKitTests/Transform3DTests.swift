import Foundation
import Testing
@testable import LayerKit

@Suite struct Transform3DTests {
    @Test func concatAppliesTheLeftOperandFirst() {
        let t = Transform3D(translationX: 10, y: 0).concatenating(Transform3D(scaleX: 2, y: 2, z: 2))
        #expect(t.m41 == 20)
    }

    @Test func translateScaleAndRotateApplyTheNewOperationFirst() {
        let s = Transform3D(scaleX: 2, y: 2).translatedBy(x: 10, y: 0)
        #expect(s.m41 == 20)  // translate, then the existing scale
        let r = Transform3D(translationX: 5, y: 0).rotated(by: .pi / 2, x: 0, y: 0, z: 1)
        let p = r.apply(x: 1, y: 0)!
        #expect(isClose(p.x, 5) && isClose(p.y, 1))
    }

    @Test func rotationAboutZHasCoreAnimationsRows() {
        let θ = 0.3
        let r = Transform3D(rotationAngle: θ, x: 0, y: 0, z: 1)
        #expect(isClose(r, Transform3D(rows: [[cos(θ), sin(θ), 0, 0], [-sin(θ), cos(θ), 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])))
    }

    @Test func rotationAboutXHasCoreAnimationsRows() {
        let θ = 0.7
        let r = Transform3D(rotationAngle: θ, x: 1, y: 0, z: 0)
        #expect(isClose(r, Transform3D(rows: [[1, 0, 0, 0], [0, cos(θ), sin(θ), 0], [0, -sin(θ), cos(θ), 0], [0, 0, 0, 1]])))
    }

    @Test func rotationWithAZeroAxisIsTheIdentity() {
        #expect(Transform3D(rotationAngle: 1, x: 0, y: 0, z: 0).isIdentity)
    }

    @Test func isIdentityAgreesWithComparingToTheIdentityForEveryEntry() {
        #expect(Transform3D.identity.isIdentity)
        for row in 0..<4 {
            for column in 0..<4 {
                for value in [0.5, -0.0, .nan, row == column ? 0 : 1] {
                    var rows = Transform3D.identity.rows
                    rows[row][column] = value
                    let t = Transform3D(rows: rows)
                    #expect(t.isIdentity == (t == .identity), "entry \(row + 1)\(column + 1) = \(value)")
                    #expect(t.isIdentity == (value == Transform3D.identity.rows[row][column]))
                }
            }
        }
    }

    @Test func perspectiveThenRotationGivesTheSeedsPrintout() {
        // ca-semantics G9: m34 = −1/1000 first, then Rotate(t, π/4, 1, 0, 0).
        var t = Transform3D.identity
        t.m34 = -1.0 / 1000
        t = t.rotated(by: .pi / 4, x: 1, y: 0, z: 0)
        let expected = Transform3D(rows: [
            [1, 0, 0, 0], [0, 0.70711, 0.70711, -0.00071], [0, -0.70711, 0.70711, -0.00071], [0, 0, 0, 1],
        ])
        #expect(isClose(t, expected, 5e-6))
    }

    @Test func perspectiveSetAfterTheRotationLooksOrthographic() {
        var t = Transform3D(rotationAngle: .pi / 4, x: 1, y: 0, z: 0)
        t.m34 = -1.0 / 1000
        #expect(t.m24 == 0)
        #expect(isClose(t.m34, -0.001))
    }

    @Test func perspectiveMagnifiesPointsTowardTheViewer() {
        var t = Transform3D.identity
        t.m34 = -1.0 / 500
        let p = t.apply(x: 100, y: 50, z: 100)!
        #expect(isClose(p.x, 125) && isClose(p.y, 62.5))  // d/(d−z) = 500/400
    }

    @Test func invertedUndoesAGeneralTransform() {
        var t = Transform3D(rotationAngle: 0.4, x: 1, y: 2, z: 3).scaledBy(x: 2, y: 3, z: 4).translatedBy(x: 5, y: -6, z: 7)
        t.m34 = -0.002
        #expect(isClose(t.concatenating(t.inverted()), .identity, 1e-9))
    }

    @Test func invertingASingularMatrixReturnsItUnchanged() {
        let t = Transform3D(scaleX: 0, y: 1)
        #expect(t.inverted() == t)
    }

    @Test func isAffineRejectsZScaleZTranslationXRotationAndPerspective() {
        #expect(Transform3D(AffineTransform2D(rotationAngle: 0.5)).isAffine)
        #expect(!Transform3D(scaleX: 1, y: 1, z: 2).isAffine)
        #expect(!Transform3D(translationX: 0, y: 0, z: 1).isAffine)
        #expect(!Transform3D(rotationAngle: 0.1, x: 1, y: 0, z: 0).isAffine)
        var p = Transform3D.identity
        p.m34 = -0.001
        #expect(!p.isAffine)
    }

    @Test func affineConversionFillsTheSixValues() {
        let a = AffineTransform2D(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        let t = Transform3D(a)
        #expect(t.rows == [[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 1, 0], [5, 6, 0, 1]])
        #expect(t.affineTransform == a)
    }
}
