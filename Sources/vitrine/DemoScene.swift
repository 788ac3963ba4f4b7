import LayerKit
import Renderer
import SeedExamples

/// The demo's scene: Listing 4-2's constraint layout, Figure 1-6's rotation about an anchor
/// point, and Listing 2-4's curve drawn by a delegate, rendered with Vulkan into a screenshot.
enum DemoScene {
    static func run(rootSize: Size, scale: Double, pngPath: String) throws -> [String] {
        let root = Layer()
        root.name = "root"
        root.bounds = Rect(origin: .zero, size: rootSize)
        root.anchorPoint = .zero
        root.isGeometryFlipped = true
        root.backgroundColor = Color(white: 0.96)

        _ = SeedExamples.addListing42Layers(to: root)

        let rotated = Layer()
        rotated.name = "rotated"
        rotated.bounds = Rect(x: 0, y: 0, width: 120, height: 80)
        rotated.anchorPoint = .zero
        rotated.position = Point(x: 40, y: 60)
        rotated.transform = Transform3D(rotationAngle: .pi / 6, x: 0, y: 0, z: 1)
        rotated.backgroundColor = Color(red: 0.2, green: 0.5, blue: 0.9)
        rotated.cornerRadius = 12
        rotated.shadowOpacity = 0.4
        rotated.shadowOffset = Size(width: 0, height: 4)
        root.addSublayer(rotated)

        let curveDelegate = SeedExamples.CurveDelegate()
        let curve = Layer()
        curve.name = "curve"
        curve.bounds = Rect(x: 0, y: 0, width: 310, height: 200)
        curve.position = Point(x: rootSize.width - 160, y: rootSize.height - 105)
        curve.contentsScale = scale
        curve.delegate = curveDelegate
        curve.setNeedsDisplay()
        root.addSublayer(curve)

        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        guard let tree = context.renderTree else { return ["nothing was committed"] }

        var lines = ["render tree generation \(tree.generation), \(tree.count) layers, drawing order:"]
        for item in tree.drawList() {
            let p = item.layer.properties
            let indent = String(repeating: "  ", count: item.depth)
            let onScreen = Rect(boundingPoints: p.bounds.corners.compactMap { c in
                item.transform.apply(x: c.x, y: c.y).map { Point(x: $0.x, y: $0.y) }
            })
            lines.append("\(indent)\(p.name ?? "\(item.layer.id)"): frame \(p.frame) bounds \(p.bounds) on screen \(onScreen)")
        }
        let renderer = try Renderer()
        let screenshot = try renderer.render(
            tree, width: Int((rootSize.width * scale).rounded()), height: Int((rootSize.height * scale).rounded()),
            scale: scale)
        try screenshot.writePNG(to: pngPath)
        lines.append("wrote \(pngPath): a \(screenshot.width)×\(screenshot.height) screenshot at scale \(scale), rendered on \(renderer.deviceName)")
        return lines
    }
}
