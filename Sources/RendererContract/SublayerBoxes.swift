import LayerKit

/// One layer's sublayers in drawing order, each with the box its subtree may draw in, mapped into
/// the layer's bounds space, and a bounding-box tree over them, so that the few sublayers that
/// reach a small rectangle are found without looking at every one. A changed sublayer's box is
/// replaced in place and the tree's boxes above it are made again from their children (a few dozen
/// unions for ten thousand sublayers).
final class SublayerBoxes {
    /// Back to front.
    let order: [LayerID]
    /// Each sublayer's place in `order`.
    let position: [LayerID: Int]
    /// The zPosition each sublayer was sorted by: another one means another order.
    let zPositions: [Double]
    /// Per sublayer: its subtree's box in the layer's space (null: it draws nothing), or nil when
    /// that is not known (it is always drawn).
    private(set) var boxes: [Rect?]
    /// The sublayers with no box, in no order.
    private var unbounded: Set<Int> = []
    /// Level 0 groups `fanout` consecutive entries of `slots` (the sublayers by place, grouped so
    /// that each group's members lie near each other); each further level groups `fanout` boxes of
    /// the level below. The last level has one box: the union of all.
    private var levels: [[Rect]] = []
    /// The sublayers grouped by place (sort-tile-recursive packing), and each one's slot there.
    private var slots: [Int] = []
    private var slotOf: [Int] = []

    static let fanout = 16

    init(order: [RenderLayer], boxes: [Rect?]) {
        self.order = order.map(\.id)
        var position: [LayerID: Int] = [:]
        position.reserveCapacity(order.count)
        for (i, layer) in order.enumerated() { position[layer.id] = i }
        self.position = position
        zPositions = order.map(\.properties.zPosition)
        self.boxes = boxes
        for (i, box) in boxes.enumerated() where box == nil { unbounded.insert(i) }
        pack()
    }

    /// The union of every sublayer's box; nil when one has none.
    var union: Rect? {
        guard unbounded.isEmpty else { return nil }
        return levels.last?.first ?? .null
    }

    /// Replaces sublayer `i`'s box.
    func setBox(_ box: Rect?, at i: Int) {
        guard boxes[i] != box else { return }
        boxes[i] = box
        if box == nil { unbounded.insert(i) } else { unbounded.remove(i) }
        var node = slotOf[i] / Self.fanout
        levels[0][node] = groupBox(level: nil, node)
        for level in 1..<levels.count {
            node /= Self.fanout
            levels[level][node] = groupBox(level: level - 1, node)
        }
    }

    /// The places (in drawing order) of the sublayers whose box meets `query` or is not known.
    func places(meeting query: Rect) -> [Int] {
        if let all = levels.last?.first, !all.isNull, query.contains(all) {
            // A full frame: every sublayer that draws, without a search or a sort.
            return boxes.indices.filter { boxes[$0].map { !$0.isNull } ?? true }
        }
        var found = Array(unbounded)
        func descend(level: Int, node: Int) {
            let start = node * Self.fanout
            if level < 0 {
                for slot in start..<min(start + Self.fanout, slots.count) {
                    if let box = boxes[slots[slot]], Self.overlap(box, query) { found.append(slots[slot]) }
                }
                return
            }
            for child in start..<min(start + Self.fanout, levels[level].count) where Self.overlap(levels[level][child], query) {
                descend(level: level - 1, node: child)
            }
        }
        if let top = levels.last, top.count == 1, Self.overlap(top[0], query) { descend(level: levels.count - 2, node: 0) }
        return found.sorted()
    }

    /// Whether two boxes share an area (a null box shares none).
    static func overlap(_ a: Rect, _ b: Rect) -> Bool {
        !a.isNull && !b.isNull && a.minX < b.maxX && b.minX < a.maxX && a.minY < b.maxY && b.minY < a.maxY
    }

    /// Sort-tile-recursive packing: the sublayers by the x of their centres into vertical slices
    /// of about √(n / fanout) groups each, each slice by y, cut into groups of `fanout`; then the
    /// groups' boxes level by level.
    private func pack() {
        let count = boxes.count
        func centre(_ i: Int) -> (Double, Double) {
            guard let box = boxes[i], !box.isNull else { return (0, 0) }
            return (box.midX, box.midY)
        }
        let byX = (0..<count).sorted { centre($0).0 < centre($1).0 }
        let groups = (count + Self.fanout - 1) / Self.fanout
        let slices = max(1, Int(Double(groups).squareRoot().rounded(.up)))
        let perSlice = slices * Self.fanout
        slots = []
        slots.reserveCapacity(count)
        for start in stride(from: 0, to: count, by: perSlice) {
            slots += byX[start..<min(start + perSlice, count)].sorted { centre($0).1 < centre($1).1 }
        }
        slotOf = Array(repeating: 0, count: count)
        for (slot, i) in slots.enumerated() { slotOf[i] = slot }
        levels = [(0..<max(1, groups)).map { groupBox(level: nil, $0) }]
        while levels[levels.count - 1].count > 1 {
            let below = levels.count - 1
            let nodes = (levels[below].count + Self.fanout - 1) / Self.fanout
            levels.append((0..<nodes).map { groupBox(level: below, $0) })
        }
    }

    /// The union of group `node`'s members: sublayer boxes (`level` nil) or boxes of `level`.
    private func groupBox(level: Int?, _ node: Int) -> Rect {
        let start = node * Self.fanout
        var box = Rect.null
        if let level {
            for child in start..<min(start + Self.fanout, levels[level].count) { box = box.union(levels[level][child]) }
        } else {
            for slot in start..<min(start + Self.fanout, slots.count) {
                if let member = boxes[slots[slot]] { box = box.union(member) }
            }
        }
        return box
    }
}
