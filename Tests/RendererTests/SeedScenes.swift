import Graphics
import LayerKit

/// The seed figures the renderer tests draw, built once here so that the Vulkan renderer and
/// `Layer.render(in:)` are checked on the same scenes.
enum SeedScene: String, CaseIterable {
    case backgroundAndBorder
    case cornerRadius
    case contentsGravity
    case shadow
    case shadowUnderMasksToBounds
    case clippingSublayersToRoundedCorners
    case anchorPointAndRotation
    case perspectiveCardFlip
    case ninePartContents
    case scaleTwoOutput

    /// The scene's root layer, anchored at the origin on a white background.
    @MainActor
    func make() throws -> Layer {
        switch self {
        case .backgroundAndBorder:
            let root = makeRoot(200, 160)
            let layer = sublayer(root, frame: Rect(x: 40, y: 30, width: 120, height: 100), background: Color(red: 0, green: 0.5, blue: 1))
            layer.borderWidth = 6
            layer.borderColor = .black
            return root
        case .cornerRadius:
            let root = makeRoot(320, 160)
            let image = try quadrantImage()
            for (i, masks) in [false, true].enumerated() {
                let layer = sublayer(root, frame: Rect(x: 20 + Double(i) * 160, y: 20, width: 120, height: 120), background: Color(red: 0.2, green: 0.6, blue: 0.2))
                layer.cornerRadius = 30
                layer.borderWidth = 4
                layer.borderColor = .black
                layer.contents = image
                layer.contentsGravity = .resize
                layer.masksToBounds = masks
            }
            return root
        case .contentsGravity:
            let root = makeRoot(4 * 80, 3 * 80)
            let image = try quadrantImage()
            for (i, gravity) in ContentsGravity.allCases.enumerated() {
                let layer = sublayer(root, frame: Rect(x: 10 + Double(i % 4) * 80, y: 10 + Double(i / 4) * 80, width: 60, height: 60), background: Color(white: 0.85))
                layer.contents = image
                layer.contentsGravity = gravity
            }
            return root
        case .shadow:
            let root = makeRoot(200, 200)
            let layer = sublayer(root, frame: Rect(x: 50, y: 50, width: 100, height: 100), background: Color(red: 1, green: 0.6, blue: 0))
            layer.shadowOpacity = 0.8
            layer.shadowOffset = Size(width: 10, height: 10)
            layer.shadowRadius = 5
            layer.cornerRadius = 10
            return root
        case .shadowUnderMasksToBounds:
            // Seed ch. 2, "Adding Shadows to Layers": three 80×80 layers whose left half is a blue
            // sublayer and right half transparent, each casting a black shadow offset (20, 20).
            // The first clips its shadow with masksToBounds; the second is the guide's two-layer
            // way, the clipping layer inside an equal one with the shadow; the third clips a
            // blurred shadow (σ 4) under a half-transparent background with rounded corners.
            let root = makeRoot(380, 130)
            for i in 0..<3 {
                let layer = sublayer(root, frame: Rect(x: 20 + Double(i) * 120, y: 20, width: 80, height: 80))
                let clipping = i == 1 ? sublayer(layer, frame: layer.bounds) : layer
                clipping.masksToBounds = true
                _ = sublayer(clipping, frame: Rect(x: 0, y: 0, width: 40, height: 80), background: .blue)
                layer.shadowOpacity = 1
                layer.shadowOffset = Size(width: 20, height: 20)
                layer.shadowRadius = i == 2 ? 4 : 0
                if i == 2 {
                    layer.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.5)
                    layer.cornerRadius = 16
                }
            }
            return root
        case .clippingSublayersToRoundedCorners:
            let root = makeRoot(220, 220)
            let parent = sublayer(root, frame: Rect(x: 20, y: 20, width: 180, height: 180), background: Color(white: 0.6))
            parent.cornerRadius = 40
            parent.masksToBounds = true
            _ = sublayer(parent, frame: Rect(x: -20, y: -20, width: 120, height: 120), background: .red)
            _ = sublayer(parent, frame: Rect(x: 100, y: 100, width: 120, height: 120), background: .blue)
            return root
        case .anchorPointAndRotation:
            let root = makeRoot(300, 200)
            let centred = sublayer(root, frame: Rect(x: 40, y: 60, width: 120, height: 80), background: Color(red: 0, green: 0.6, blue: 0))
            centred.transform = Transform3D(rotationAngle: .pi / 6, x: 0, y: 0, z: 1)
            let cornered = Layer()
            cornered.bounds = Rect(x: 0, y: 0, width: 120, height: 80)
            cornered.anchorPoint = .zero
            cornered.position = Point(x: 180, y: 40)
            cornered.backgroundColor = Color(red: 0.8, green: 0, blue: 0.4)
            cornered.transform = Transform3D(rotationAngle: .pi / 6, x: 0, y: 0, z: 1)
            root.addSublayer(cornered)
            return root
        case .perspectiveCardFlip:
            let root = makeRoot(300, 200)
            let stage = sublayer(root, frame: Rect(x: 0, y: 0, width: 300, height: 200))
            var perspective = Transform3D.identity
            perspective.m34 = -1.0 / 500
            stage.sublayerTransform = perspective
            let card = sublayer(stage, frame: Rect(x: 90, y: 40, width: 120, height: 120), background: Color(red: 0.1, green: 0.3, blue: 0.9))
            card.transform = Transform3D(rotationAngle: .pi / 3, x: 0, y: 1, z: 0)
            card.borderWidth = 4
            card.borderColor = .black
            return root
        case .ninePartContents:
            let root = makeRoot(200, 120)
            let layer = sublayer(root, frame: Rect(x: 20, y: 20, width: 160, height: 80))
            layer.contents = try quadrantImage(width: 24, height: 24)
            layer.contentsCenter = Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
            return root
        case .scaleTwoOutput:
            let root = makeRoot(100, 80)
            let layer = sublayer(root, frame: Rect(x: 10.5, y: 10, width: 40, height: 30), background: .blue)
            layer.cornerRadius = 8
            let text = sublayer(root, frame: Rect(x: 60, y: 20, width: 24, height: 16))
            text.contents = try quadrantImage(width: 48, height: 32)
            text.contentsScale = 2
            text.contentsGravity = .center
            return root
        }
    }
}
