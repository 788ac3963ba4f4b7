import Foundation
import Testing
import SeedExamples
@testable import LayerKit

/// Layer filters in the model: names, parameters, colour matrices, key paths (seed ch. 2,
/// "Filters Add Visual Effects") and the animation of a blur's radius.
@MainActor
@Suite struct FilterTests {
    @Test func aFilterIsNamedForItsKindUnlessGivenAName() {
        #expect(Filter.gaussianBlur(radius: 4).name == "gaussianBlur")
        #expect(Filter.gaussianBlur(radius: 4, name: "blur").name == "blur")
        #expect(Filter.gaussianBlur(radius: 4, name: "blur").kind == .gaussianBlur)
        #expect(Filter(.multiplyBlendMode).name == "multiplyBlendMode")
    }

    @Test func unsetParametersReadAsCoreImageDefaults() {
        let blur = Filter(.gaussianBlur)
        #expect(blur.number(forKey: "inputRadius") == 10)
        #expect(blur.blurSigma == 10)
        let controls = Filter(.colorControls)
        #expect(controls.number(forKey: "inputSaturation") == 1)
        #expect(controls.number(forKey: "inputBrightness") == 0)
        #expect(controls.number(forKey: "inputContrast") == 1)
        #expect(Filter.gaussianBlur(radius: -3).blurSigma == 0)
        #expect(Filter.brightness(0.5).blurSigma == nil)
    }

    @Test func blendModesAreNumberedForTheShaderInTheirListedOrder() {
        #expect(Filter.Kind.multiplyBlendMode.blendModeIndex == 0)
        #expect(Filter.Kind.exclusionBlendMode.blendModeIndex == 10)
        #expect(Filter.Kind.luminosityBlendMode.blendModeIndex == 14)
        #expect(Filter.Kind.gaussianBlur.blendModeIndex == nil)
        #expect(Filter.Kind.allCases.filter(\.isBlendMode).count == 15)
    }

    @Test func colorControlsAtTheirDefaultsAreTheIdentityMatrix() {
        #expect(Filter(.colorControls).colorMatrix == Filter.identityMatrix)
        #expect(Filter(.colorMatrix).colorMatrix == Filter.identityMatrix)
    }

    @Test func saturationZeroGivesEveryChannelTheRec709Luma() throws {
        let m = try #require(Filter.saturation(0).colorMatrix)
        for row in 0..<3 {
            #expect(Array(m[row * 5..<row * 5 + 5]) == [0.2126, 0.7152, 0.0722, 0, 0])
        }
        #expect(Array(m[15..<20]) == [0, 0, 0, 1, 0])
    }

    @Test func brightnessAddsAndContrastScalesAboutOneHalf() throws {
        let bright = try #require(Filter.brightness(0.25).colorMatrix)
        #expect(Array(bright[0..<5]) == [1, 0, 0, 0, 0.25])
        let contrast = try #require(Filter.contrast(2).colorMatrix)
        // (x − 0.5) × 2 + 0.5 = 2x − 0.5
        #expect(Array(contrast[5..<10]) == [0, 2, 0, 0, -0.5])
    }

    @Test func aColorMatrixOfTheWrongLengthIsNotAMatrix() {
        #expect(Filter.colorMatrix([1, 0, 0]).colorMatrix == nil)
    }

    @Test func setValueForKeyPathChangesTheNamedFiltersParameter() {
        let layer = Layer()
        layer.filters = [Filter.gaussianBlur(radius: 2, name: "blur"), Filter.gaussianBlur(radius: 3, name: "other")]
        layer.setValue(8.0, forKeyPath: "filters.blur.inputRadius")
        #expect(layer.filters[0].number(forKey: "inputRadius") == 8)
        #expect(layer.filters[1].number(forKey: "inputRadius") == 3)
        #expect(layer.value(forKeyPath: "filters.blur.inputRadius") as? Double == 8)
        layer.setValue(5, forKeyPath: "filters.other.inputRadius")
        #expect(layer.value(forKeyPath: "filters.other.inputRadius") as? Double == 5)
        #expect(layer.value(forKeyPath: "filters.missing.inputRadius") == nil)
    }

    @Test func setValueForKeyPathReachesBackgroundFilters() {
        let layer = Layer()
        layer.backgroundFilters = [Filter.gaussianBlur(radius: 20, name: "frost")]
        layer.setValue(12.0, forKeyPath: "backgroundFilters.frost.inputRadius")
        #expect(layer.backgroundFilters[0].blurSigma == 12)
        let matrix = [0.0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0]
        layer.backgroundFilters.append(Filter.colorMatrix(Filter.identityMatrix, name: "tint"))
        layer.setValue(matrix, forKeyPath: "backgroundFilters.tint.inputMatrix")
        #expect(layer.backgroundFilters[1].colorMatrix == matrix)
    }

    @Test func setValueForKeyPathWritesPartsOfOtherProperties() {
        let layer = makeLayer(100, 100, at: Point(x: 10, y: 20))
        layer.setValue(70.0, forKeyPath: "position.x")
        #expect(layer.position == Point(x: 70, y: 20))
        layer.setValue(Double.pi / 2, forKeyPath: "transform.rotation.z")
        #expect(isClose(layer.transform, Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)))
        #expect(isClose(layer.value(forKeyPath: "transform.rotation.z") as? Double ?? 0, .pi / 2))
        layer.setValue(0.5, forKeyPath: "opacity")
        #expect(layer.opacity == 0.5)
    }

    @Test func anExplicitAnimationInterpolatesTheBlurRadius() {
        let s = AnimationScene()
        s.layer.filters = [Filter.gaussianBlur(radius: 2, name: "blur"), Filter.brightness(0.1)]
        Transaction.flush()
        let a = BasicAnimation(keyPath: "filters.blur.inputRadius")
        (a.fromValue, a.toValue, a.duration) = (0.0, 20.0, 1)
        s.run(a)
        #expect(s.shown(at: 100.25).filters[0].number(forKey: "inputRadius") == 5)
        #expect(s.shown(at: 100.5).filters[0].number(forKey: "inputRadius") == 10)
        // The other filter and the model are untouched; after the animation the model shows.
        #expect(s.shown(at: 100.5).filters[1] == Filter.brightness(0.1))
        #expect(s.layer.filters[0].number(forKey: "inputRadius") == 2)
        #expect(s.shown(at: 102).filters[0].number(forKey: "inputRadius") == 2)
    }

    @Test func aBackgroundBlurRadiusAnimatesByItsKeyPath() {
        let s = AnimationScene()
        s.layer.backgroundFilters = [Filter.gaussianBlur(radius: 0, name: "frost")]
        Transaction.flush()
        let a = BasicAnimation(keyPath: "backgroundFilters.frost.inputRadius")
        (a.fromValue, a.toValue, a.duration) = (4.0, 8.0, 1)
        s.run(a)
        #expect(s.shown(at: 100.75).backgroundFilters[0].number(forKey: "inputRadius") == 7)
    }

    /// Listing 2-6 as written: CIFilter(name:) with setValue(_:forKey:), then assigned.
    @Test func listingTwoSixConfiguresAPinchDistortion() throws {
        let layer = Layer()
        SeedExamples.applyListing26Filter(to: layer)
        let pinch = try #require(layer.filters.first)
        #expect(pinch.kind == .pinchDistortion && pinch.name == "pinchDistortion")
        #expect(pinch.distortion == Distortion(kind: .pinch, center: Point(x: 250, y: 150), radius: 500, amount: 1.25))
        #expect(layer.value(forKeyPath: "filters.pinchDistortion.inputScale") as? Double == 1.25)
        #expect(layer.value(forKeyPath: "filters.pinchDistortion.inputCenter") as? Point == Point(x: 250, y: 150))
    }

    @Test func coreImageNamesMakeTheirFiltersWithCoreImagesDefaults() {
        #expect(Filter(name: "CIGaussianBlur")?.kind == .gaussianBlur)
        #expect(Filter(name: "CIMultiplyBlendMode")?.kind == .multiplyBlendMode)
        #expect(Filter(name: "CIBumpDistortion")?.distortion == Distortion(
            kind: .bump, center: Point(x: 150, y: 150), radius: 300, amount: 0.5))
        #expect(Filter(name: "CITwirlDistortion")?.distortion == Distortion(
            kind: .twirl, center: Point(x: 150, y: 150), radius: 300, amount: .pi))
        #expect(Filter(name: "CIPinchDistortion")?.number(forKey: "inputScale") == 0.5)
        #expect(Filter(name: "CIKaleidoscope") == nil && Filter(name: "gaussianBlur") == nil)
    }

    /// Distortion.sourcePoint, on a circle of radius 100 about the origin, at hand-computed
    /// points: pinch 1.25 at (50, 0) reads from 50 × 2.25^(0.75³) = 70.396, at (10, 0) from
    /// 10 × 2.25^(0.99³) = 21.965; bump 0.5 at (50, 0) from 50 × (1 − 0.5 × 0.75²) = 35.9375, and
    /// −0.5 at (0, 50) from 64.0625; twirl π/2 at (50, 0) turns back by π/2 × 0.5² = π/8. The
    /// centre stays, and nothing moves at or past the radius.
    @Test func distortionsReadTheirSourcesByTheirFormulas() {
        func d(_ kind: Distortion.Kind, _ amount: Double) -> Distortion {
            Distortion(kind: kind, center: .zero, radius: 100, amount: amount)
        }
        #expect(isClose(d(.pinch, 1.25).sourcePoint(for: Point(x: 50, y: 0)), Point(x: 70.3958, y: 0), 1e-4))
        #expect(isClose(d(.pinch, 1.25).sourcePoint(for: Point(x: 10, y: 0)), Point(x: 21.9646, y: 0), 1e-4))
        #expect(d(.bump, 0.5).sourcePoint(for: Point(x: 50, y: 0)) == Point(x: 35.9375, y: 0))
        #expect(d(.bump, -0.5).sourcePoint(for: Point(x: 0, y: 50)) == Point(x: 0, y: 64.0625))
        #expect(isClose(
            d(.twirl, .pi / 2).sourcePoint(for: Point(x: 50, y: 0)),
            Point(x: 50 * cos(Double.pi / 8), y: -50 * sin(Double.pi / 8)), 1e-9))
        for kind in [Distortion.Kind.pinch, .bump, .twirl] {
            #expect(d(kind, 1).sourcePoint(for: .zero) == .zero)
            #expect(d(kind, 1).sourcePoint(for: Point(x: 0, y: 100)) == Point(x: 0, y: 100))
            #expect(d(kind, 1).sourcePoint(for: Point(x: 120, y: -30)) == Point(x: 120, y: -30))
        }
        // inputScale beyond Core Image's ranges is clamped.
        #expect(Filter.pinchDistortion(center: .zero, radius: 1, scale: 5).distortion?.amount == 2)
        #expect(Filter.bumpDistortion(center: .zero, radius: 1, scale: -3).distortion?.amount == -1)
    }

    /// The guide: a filter's parameters change after it is attached through the layer's key path,
    /// which also makes them animatable. Set on a committed layer, a number and a point animate
    /// implicitly from what is shown (here over a 1 s linear transaction); an explicit animation
    /// takes the point key path too; a matrix does not animate.
    @Test func filterParametersAnimateImplicitlyAndExplicitlyByKeyPath() throws {
        let s = AnimationScene()
        s.layer.filters = [
            .pinchDistortion(center: Point(x: 50, y: 50), radius: 40, scale: 0, name: "pinch"),
            .colorMatrix(Filter.identityMatrix, name: "tint"),
        ]
        Transaction.flush()
        Transaction.begin()
        Transaction.animationDuration = 1
        Transaction.animationTimingFunction = .linear
        s.layer.setValue(1.25, forKeyPath: "filters.pinch.inputScale")
        s.layer.setValue(Point(x: 70, y: 30), forKeyPath: "filters.pinch.inputCenter")
        s.layer.setValue([0.5, 0, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0, 1, 0], forKeyPath: "filters.tint.inputMatrix")
        Transaction.commit()
        Transaction.flush()
        #expect(s.layer.animationKeys() == ["filters.pinch.inputScale", "filters.pinch.inputCenter"])
        let halfway = try #require(s.shown(at: 100.5).filters.first?.distortion)
        #expect(halfway.amount == 0.625 && halfway.center == Point(x: 60, y: 40))
        #expect(s.shown(at: 102).filters.first?.distortion?.amount == 1.25)

        let move = BasicAnimation(keyPath: "filters.pinch.inputCenter")
        (move.fromValue, move.toValue, move.duration) = (Point(x: 0, y: 0), Point(x: 100, y: 200), 1)
        s.run(move)
        #expect(s.shown(at: 100.25).filters.first?.distortion?.center == Point(x: 25, y: 50))
    }
}
