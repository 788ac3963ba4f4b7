import Foundation
import GoldenImages
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// `Layer.render(in:)` (cairo, on the CPU) and the Vulkan renderer are two independent
/// implementations of the same drawing rules: on the seed scenes their images must agree.
///
/// Tolerance: at most 0.2% of the pixels may differ by more than 24 (of 255) in any channel. The
/// two rasterisers cover edges differently (cairo's exact area coverage against the shader's
/// distance-based antialiasing, cairo's and the GPU's bilinear filters), which moves edge pixels
/// by a few levels and very rarely by more; a misplaced, missing or wrongly coloured part
/// differs over far more than 0.2%.
@MainActor
@Suite(.serialized) struct RenderInContextAgreementTests {
    nonisolated static let channelTolerance = 24
    nonisolated static let maximumDifferingShare = 0.002

    /// The card under perspective is drawn flat and resampled through the projective map by
    /// `render(in:)`, where the shader antialiases its edges analytically (and lets a trace of the
    /// background through the border's edge pixels): its whole outline, about 1% of the image,
    /// may differ, nothing inside it.
    nonisolated static let perspectiveShare = 0.012

    @Test(arguments: SeedScene.allCases)
    func theSeedSceneMatchesTheVulkanRenderer(_ scene: SeedScene) throws {
        try expectAgreement(
            named: "\(scene)", scale: scene == .scaleTwoOutput ? 2 : 1,
            maximumDifferingShare: scene == .perspectiveCardFlip ? Self.perspectiveShare : Self.maximumDifferingShare
        ) { try scene.make() }
    }

    @Test(arguments: LayerClassScene.allCases)
    func theLayerClassSceneMatchesTheVulkanRenderer(_ scene: LayerClassScene) throws {
        try expectAgreement(named: "\(scene)", scale: 1) { try scene.make() }
    }

    /// Renders `make()`'s scene on Vulkan and through `render(in:)`, and compares.
    func expectAgreement(
        named name: String, scale: Double, maximumDifferingShare: Double = maximumDifferingShare, _ make: () throws -> Layer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let gpu = try render(try make(), scale: scale)
        let root = try make()
        let context = try GraphicsContext(width: gpu.width, height: gpu.height)
        context.scaleBy(x: scale, y: scale)
        root.render(in: context)
        let cpu = context.makeImage()
        let differing = try #require(cpu.countOfPixelsDiffering(from: gpu, byMoreThan: Self.channelTolerance))
        let share = Double(differing) / Double(gpu.width * gpu.height)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-render-in")
        if share > maximumDifferingShare {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try cpu.writePNG(to: out.appendingPathComponent("\(name)-cairo.png").path)
            try gpu.writePNG(to: out.appendingPathComponent("\(name)-vulkan.png").path)
            try GoldenImages.difference(cpu, gpu).writePNG(to: out.appendingPathComponent("\(name)-difference.png").path)
        }
        #expect(
            share <= maximumDifferingShare,
            "\(name): \(differing) pixels differ by more than \(Self.channelTolerance); images in \(out.path)",
            sourceLocation: sourceLocation)
    }
}

/// Scenes of the layer classes and offscreen effects, for the agreement test.
enum LayerClassScene: String, CaseIterable {
    case gradients
    case shapeWithDashedStroke
    case text
    case replicatorSpinner
    case maskLayer
    case groupOpacity
    case flippedGeometry
    case shadowOfSublayers

    @MainActor
    func make() throws -> Layer {
        let root = makeRoot(240, 160)
        switch self {
        case .gradients:
            for (i, type) in [GradientType.axial, .radial, .conic].enumerated() {
                let gradient = GradientLayer()
                gradient.frame = Rect(x: 10 + Double(i) * 78, y: 20, width: 70, height: 120)
                gradient.colors = [.red, Color(red: 0, green: 0, blue: 1, alpha: 0.2), .green]
                gradient.locations = [0, 0.4, 1]
                gradient.type = type
                if type != .axial { gradient.startPoint = Point(x: 0.5, y: 0.5) }
                gradient.endPoint = type == .axial ? Point(x: 1, y: 1) : Point(x: 1, y: 0.8)
                gradient.cornerRadius = 12
                root.addSublayer(gradient)
            }
        case .shapeWithDashedStroke:
            let shape = ShapeLayer()
            shape.frame = Rect(x: 20, y: 20, width: 200, height: 120)
            var path = Path(ellipseIn: Rect(x: 10, y: 10, width: 180, height: 100))
            path.addRect(Rect(x: 70, y: 40, width: 60, height: 40))
            shape.path = path
            shape.fillRule = .evenOdd
            shape.fillColor = Color(red: 0.9, green: 0.6, blue: 0.1)
            shape.strokeColor = Color(red: 0.1, green: 0.2, blue: 0.6)
            shape.lineWidth = 6
            shape.lineDashPattern = [20, 8]
            shape.lineCap = .round
            root.addSublayer(shape)
        case .text:
            let text = TextLayer()
            text.frame = Rect(x: 10, y: 10, width: 220, height: 140)
            text.string = "Ticket 42 — Gleis 7\nمرحبا שלום 你好"
            text.fontSize = 22
            text.foregroundColor = Color(red: 0.1, green: 0.1, blue: 0.4)
            text.isWrapped = true
            text.alignmentMode = .center
            root.addSublayer(text)
        case .replicatorSpinner:
            root.backgroundColor = .black
            let replicator = ReplicatorLayer()
            replicator.frame = Rect(x: 70, y: 30, width: 100, height: 100)
            let dot = sublayer(replicator, frame: Rect(x: 45, y: 5, width: 10, height: 10), background: .white)
            dot.cornerRadius = 5
            replicator.instanceCount = 8
            replicator.instanceTransform = Transform3D(rotationAngle: 2 * Double.pi / 8, x: 0, y: 0, z: 1)
            replicator.instanceColor = .red
            replicator.instanceGreenOffset = 0.125
            replicator.instanceAlphaOffset = -0.1
            root.addSublayer(replicator)
        case .maskLayer:
            let layer = sublayer(root, frame: Rect(x: 20, y: 20, width: 200, height: 120), background: Color(red: 0.2, green: 0.5, blue: 0.9))
            _ = sublayer(layer, frame: Rect(x: 100, y: 0, width: 100, height: 60), background: .red)
            let mask = Layer()
            mask.frame = Rect(x: 20, y: 10, width: 160, height: 100)
            mask.cornerRadius = 50
            mask.backgroundColor = Color(white: 0, alpha: 0.7)
            layer.mask = mask
        case .groupOpacity:
            let group = sublayer(root, frame: Rect(x: 20, y: 20, width: 140, height: 100), background: .blue)
            _ = sublayer(group, frame: Rect(x: 60, y: 40, width: 140, height: 100), background: .red)
            group.opacity = 0.5
        case .flippedGeometry:
            let flipped = sublayer(root, frame: Rect(x: 20, y: 20, width: 200, height: 120), background: Color(white: 0.9))
            flipped.isGeometryFlipped = true
            let top = sublayer(flipped, frame: Rect(x: 10, y: 10, width: 60, height: 40), background: .red)
            top.contents = try quadrantImage()
            let label = TextLayer()
            label.frame = Rect(x: 80, y: 10, width: 110, height: 40)
            label.string = "upright"
            label.fontSize = 20
            label.foregroundColor = .black
            flipped.addSublayer(label)
        case .shadowOfSublayers:
            let holder = sublayer(root, frame: Rect(x: 30, y: 30, width: 120, height: 80))
            holder.shadowOpacity = 1
            holder.shadowRadius = 4
            holder.shadowOffset = Size(width: 8, height: 8)
            _ = sublayer(holder, frame: Rect(x: 0, y: 0, width: 60, height: 60), background: .green)
            let ring = ShapeLayer()
            ring.frame = Rect(x: 60, y: 10, width: 70, height: 70)
            ring.path = Path(ellipseIn: Rect(x: 5, y: 5, width: 60, height: 60))
            ring.fillColor = nil
            ring.strokeColor = .blue
            ring.lineWidth = 8
            holder.addSublayer(ring)
        }
        return root
    }
}
