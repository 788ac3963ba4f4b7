import Benchmark
import LayerKit

// Commits of a 10,000-layer tree (the whole first commit, then after one and after 100 changes)
// and point conversion across 20 levels. Run: swift run -c release LayerKitBenchmarks

/// A tree of `count` layers: a root with 100 groups of 99 leaves (depth 3, as a dashboard's
/// panels and their widgets would be).
func makeTree(count: Int = 10_000) -> (root: Layer, leaves: [Layer]) {
    let root = Layer()
    root.bounds = Rect(x: 0, y: 0, width: 1920, height: 1080)
    var leaves: [Layer] = []
    var made = 1
    while made < count {
        let group = Layer()
        group.bounds = Rect(x: 0, y: 0, width: 190, height: 100)
        group.position = Point(x: Double(made % 10) * 192 + 96, y: Double(made / 1000) * 108 + 54)
        root.addSublayer(group)
        made += 1
        for i in 0..<99 where made < count {
            let leaf = Layer()
            leaf.bounds = Rect(x: 0, y: 0, width: 18, height: 9)
            leaf.position = Point(x: Double(i % 10) * 19 + 9, y: Double(i / 10) * 10 + 5)
            leaf.backgroundColor = Color(red: 0.2, green: 0.4, blue: Double(i) / 99)
            group.addSublayer(leaf)
            leaves.append(leaf)
            made += 1
        }
    }
    return (root, leaves)
}

/// A chain of `depth` nested layers, each moved, scaled and rotated a little.
func makeChain(depth: Int) -> (top: Layer, bottom: Layer) {
    let top = Layer()
    top.bounds = Rect(x: 0, y: 0, width: 1000, height: 1000)
    var bottom = top
    for i in 0..<depth - 1 {
        let l = Layer()
        l.bounds = Rect(x: 0, y: 0, width: 900, height: 900)
        l.position = Point(x: 480 + Double(i), y: 470)
        l.transform = Transform3D(rotationAngle: 0.01, x: 0, y: 0, z: 1).scaledBy(x: 1.01, y: 0.99)
        bottom.addSublayer(l)
        bottom = l
    }
    return (top, bottom)
}

final class CommitFixture {
    let root: Layer
    let leaves: [Layer]
    let context: RenderContext
    var tick = 0.0

    init() {
        (root, leaves) = makeTree()
        context = RenderContext(rootLayer: root)
        Transaction.flush()
    }

    /// Changes `n` layers with implicit animations off (as the compositor's own layers have them),
    /// so the figure is the commit's cost alone.
    func change(_ n: Int) {
        tick += 1
        let stride = leaves.count / n
        Transaction.begin()
        Transaction.disableActions = true
        for i in 0..<n { leaves[i * stride].opacity = 0.5 + 0.5 * ((tick + Double(i)).truncatingRemainder(dividingBy: 2)) / 2 }
        Transaction.commit()
    }
}

/// Keeps a result alive so the optimiser cannot drop the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {}

do {
    let fixture = CommitFixture()
    let chain = makeChain(depth: 20)

    benchmark("commit 10,000 layers: full first commit") { state in
        let (root, _) = makeTree()
        let context = RenderContext(rootLayer: root)
        try state.measure { Transaction.flush() }
        precondition(context.renderTree?.count == 10_000)
        context.invalidate()
        Transaction.flush()
    }

    benchmark("commit 10,000 layers: after 1 change") {
        fixture.change(1)
    }

    benchmark("commit 10,000 layers: after 100 changes") {
        fixture.change(100)
    }

    // Each of the 10,000 layers runs one endless animation: keyframes on position for half of
    // them, an eased, autoreversing opacity pulse for the other half.
    let animated = makeTree()
    let animatedContext = RenderContext(rootLayer: animated.root)
    Transaction.flush()
    let everyLayer = [animated.root] + animated.root.sublayers + animated.leaves
    for (i, layer) in everyLayer.enumerated() {
        if i % 2 == 0 {
            let wobble = KeyframeAnimation(keyPath: "position")
            let p = layer.position
            wobble.values = [p, Point(x: p.x + 3, y: p.y), Point(x: p.x, y: p.y + 3), p]
            wobble.duration = 1 + Double(i % 7) / 10
            wobble.repeatCount = .infinity
            layer.add(wobble, forKey: "wobble")
        } else {
            let pulse = BasicAnimation(keyPath: "opacity")
            (pulse.fromValue, pulse.toValue, pulse.duration, pulse.autoreverses, pulse.repeatCount) = (1.0, 0.3, 0.8, true, .infinity)
            pulse.timingFunction = .easeInEaseOut
            layer.add(pulse, forKey: "pulse")
        }
    }
    Transaction.flush()
    let animatedTree = animatedContext.renderTree!
    precondition(animatedTree.animatedLayerIDs.count == 10_000)
    var frameTime = MediaTime.now

    benchmark("sample 10,000 running animations for one frame") {
        frameTime += 1.0 / 60
        blackHole(animatedTree.sampled(atMediaTime: frameTime))
    }

    benchmark("convert(_:to:) across 20 levels") {
        blackHole(chain.bottom.convert(Point(x: 10, y: 20), to: chain.top))
    }
}

Benchmark.main()
