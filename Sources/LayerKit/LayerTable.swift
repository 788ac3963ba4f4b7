/// The layers of a snapshot by id: a persistent trie on the ids' own bits, five a level from the
/// lowest. Ids are unique, so two layers always part somewhere on their way down, and finding
/// one hashes nothing: a frame looks layers up by the hundred. Copies share their nodes; a change
/// copies the nodes on its way down that another copy holds too and changes the others in place
/// (a commit that stores many layers copies each node once). Sendable as the layers are: a node
/// is changed only while one table alone holds it.
///
/// The layer stored last is kept beside the trie (`latest`), its place in the trie held by
/// `vacancy`: storing the same layer again (a client's new buffer, commit after commit) replaces
/// it there, and copies no node, while the previous snapshot still holds the trie.
struct LayerTable: @unchecked Sendable {
    private var root: Node?
    /// The layer stored last; nil when the last change was a removal.
    private var latest: RenderLayer?
    private(set) var count = 0

    init() {}

    /// Holds the place of `latest` in the trie: a layer under an id that no layer has (ids count
    /// from 1, see `Layer.init()`), so that its values live in one place and go when it is replaced.
    private static let vacancy = RenderLayer(
        id: vacancyID, properties: LayerProperties(), superlayerID: nil, sublayerIDs: [], maskID: nil, maskedLayerID: nil,
        animations: [], revisionExceptContents: 0, revisionExceptSublayers: 0)
    static let vacancyID = LayerID(rawValue: 0)

    subscript(id: LayerID) -> RenderLayer? {
        // Borrowed from the table, the root is not retained for the walk.
        get { latest?.id == id ? latest : root?.layer(id) }
        set {
            if let newValue {
                precondition(newValue.id == id && id != Self.vacancyID, "a layer is stored under its own id")
                if latest?.id == id {
                    latest = newValue
                    return
                }
                settleLatest()
                latest = newValue
                guard root != nil else {
                    (root, count) = (Node.make(layer: Self.vacancy, key: id.rawValue), 1)
                    return
                }
                if Self.set(Self.vacancy, id: id, key: id.rawValue, shift: 0, in: &root!) { count += 1 }
            } else if root != nil {
                settleLatest()
                guard Self.remove(id, key: id.rawValue, in: &root!) else { return }
                count -= 1
                if count == 0 { root = nil }
            }
        }
    }

    /// The trie's root node, for tests that check what a change copied.
    var rootIdentity: ObjectIdentifier? { root.map(ObjectIdentifier.init) }

    /// Puts `latest` into its place in the trie.
    private mutating func settleLatest() {
        guard let layer = latest else { return }
        latest = nil
        _ = Self.set(layer, id: layer.id, key: layer.id.rawValue, shift: 0, in: &root!)
    }

    /// The first layer, in no particular order, that `predicate` accepts.
    func first(where predicate: (RenderLayer) -> Bool) -> RenderLayer? {
        if let latest, predicate(latest) { return latest }
        func search(_ node: Node) -> RenderLayer? {
            var slots = node.slots.used
            for index in 0..<node.count {
                let slot = slots & ~(slots &- 1)
                slots &= slots &- 1
                if node.slots.nodes & slot == 0 {
                    let layer = node.layer(at: index)
                    if layer.id != Self.vacancyID, predicate(layer) { return layer }
                } else if let found = search(node.node(at: index)) {
                    return found
                }
            }
            return nil
        }
        return root.flatMap(search)
    }

    /// Stores `layer` (or `vacancy`) for `id` under `key` (the id without the bits of the levels
    /// above `node`, `shift` of them), in the place of the vacancy there; true when the id was not there.
    private static func set(_ layer: RenderLayer, id: LayerID, key: UInt64, shift: UInt64, in node: inout Node) -> Bool {
        let slot = Node.slotBit(of: key)
        guard let index = node.index(of: slot) else {
            node = node.inserting(layer, slot: slot)
            return true
        }
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        guard node.slots.nodes & slot != 0 else {
            let existing = node.layer(at: index)
            if existing.id == id || existing.id == Self.vacancyID {
                node.replace(at: index, with: layer)
                return false
            }
            let existingKey = existing.id.rawValue >> (shift + Node.bits)
            node.replace(at: index, with: Node.pair(existing, key: existingKey, layer, key: key >> Node.bits))
            node.slots.nodes |= slot
            return true
        }
        // Taken out of the node, a child that no other table holds is held once, and changes in place.
        var child = node.takeNode(at: index)
        let inserted = set(layer, id: id, key: key >> Node.bits, shift: shift + Node.bits, in: &child)
        node.put(child, at: index)
        return inserted
    }

    /// Removes the layer `id` under `key` (as in `set`); true when it was there. A node left with
    /// one layer gives it to its parent. Rare (a layer leaves its context): the nodes on the way
    /// down are copied.
    private static func remove(_ id: LayerID, key: UInt64, in node: inout Node) -> Bool {
        let slot = Node.slotBit(of: key)
        guard let index = node.index(of: slot) else { return false }
        guard node.slots.nodes & slot != 0 else {
            guard node.layer(at: index).id == id else { return false }
            node = node.removing(slot: slot, at: index)
            return true
        }
        var child = node.node(at: index)
        guard remove(id, key: key >> Node.bits, in: &child) else { return false }
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        // Below the root a node keeps two entries or a node: one left with a layer alone goes.
        if child.count == 1, child.slots.nodes == 0 {
            node.replace(at: index, with: child.layer(at: 0))
            node.slots.nodes &= ~slot
        } else {
            node.replace(at: index, with: child)
        }
        return true
    }

    /// Up to 32 entries, one per value of the ids' bits at its level, stored in slot order without
    /// gaps: a layer, or the node of the layers whose ids agree with its slot's in more bits.
    /// Changed only while one table alone holds it.
    private final class Node: ManagedBuffer<Node.Slots, AnyObject> {
        struct Slots {
            /// A bit per slot in use.
            var used: UInt32
            /// A bit per slot that holds a node.
            var nodes: UInt32
        }

        static var bits: UInt64 { 5 }

        static func slotBit(of key: UInt64) -> UInt32 { 1 << UInt32(truncatingIfNeeded: key & 31) }

        /// A node with `slots`, its entries written by `initialize` (all of them, in slot order).
        static func make(slots: Slots, initialize: (UnsafeMutablePointer<AnyObject>) -> Void) -> Node {
            let node = unsafeDowncast(create(minimumCapacity: slots.used.nonzeroBitCount) { _ in slots }, to: Node.self)
            node.withUnsafeMutablePointerToElements(initialize)
            return node
        }

        static func make(layer: RenderLayer, key: UInt64) -> Node {
            make(slots: Slots(used: slotBit(of: key), nodes: 0)) { $0.initialize(to: layer) }
        }

        /// The node of two layers whose ids agreed in every bit above this level.
        static func pair(_ a: RenderLayer, key keyA: UInt64, _ b: RenderLayer, key keyB: UInt64) -> Node {
            let (slotA, slotB) = (slotBit(of: keyA), slotBit(of: keyB))
            if slotA == slotB {
                let below = pair(a, key: keyA >> bits, b, key: keyB >> bits)
                return make(slots: Slots(used: slotA, nodes: slotA)) { $0.initialize(to: below) }
            }
            return make(slots: Slots(used: slotA | slotB, nodes: 0)) { entries in
                entries.initialize(to: slotA < slotB ? a : b)
                (entries + 1).initialize(to: slotA < slotB ? b : a)
            }
        }

        deinit {
            // One entry at a time: the runtime's generic array functions would look the type up.
            withUnsafeMutablePointers { slots, entries in
                for offset in 0..<slots.pointee.used.nonzeroBitCount { _ = (entries + offset).move() }
            }
        }

        var slots: Slots {
            get { header }
            set { header = newValue }
        }

        var count: Int { header.used.nonzeroBitCount }

        /// The layer `id` in this node's subtree (of the ids whose lower bits lead here).
        func layer(_ id: LayerID) -> RenderLayer? {
            // Held by this node, the nodes on the way down are not retained one by one.
            unowned(unsafe) var node = self
            var key = id.rawValue
            while true {
                let slot = Node.slotBit(of: key)
                guard let index = node.index(of: slot) else { return nil }
                if node.slots.nodes & slot == 0 {
                    let layer = node.layer(at: index)
                    return layer.id == id ? layer : nil
                }
                node = node.node(at: index)
                key >>= Node.bits
            }
        }

        /// Where `slot`'s entry is, when the slot is in use.
        func index(of slot: UInt32) -> Int? {
            header.used & slot == 0 ? nil : (header.used & (slot &- 1)).nonzeroBitCount
        }

        func layer(at index: Int) -> RenderLayer {
            withUnsafeMutablePointerToElements { unsafeDowncast($0[index], to: RenderLayer.self) }
        }

        func node(at index: Int) -> Node {
            withUnsafeMutablePointerToElements { unsafeDowncast($0[index], to: Node.self) }
        }

        func replace(at index: Int, with entry: AnyObject) {
            withUnsafeMutablePointerToElements { $0[index] = entry }
        }

        /// Moves the child at `index` out, leaving its place empty until `put` fills it.
        func takeNode(at index: Int) -> Node {
            withUnsafeMutablePointerToElements { unsafeDowncast(($0 + index).move(), to: Node.self) }
        }

        func put(_ child: Node, at index: Int) {
            withUnsafeMutablePointerToElements { ($0 + index).initialize(to: child) }
        }

        func copy() -> Node {
            withUnsafeMutablePointerToElements { source in
                Node.make(slots: header) { destination in
                    for offset in 0..<count { (destination + offset).initialize(to: source[offset]) }
                }
            }
        }

        func inserting(_ layer: RenderLayer, slot: UInt32) -> Node {
            let index = (header.used & (slot &- 1)).nonzeroBitCount
            return withUnsafeMutablePointerToElements { source in
                Node.make(slots: Slots(used: header.used | slot, nodes: header.nodes)) { destination in
                    for offset in 0..<index { (destination + offset).initialize(to: source[offset]) }
                    (destination + index).initialize(to: layer)
                    for offset in index..<count { (destination + offset + 1).initialize(to: source[offset]) }
                }
            }
        }

        func removing(slot: UInt32, at index: Int) -> Node {
            withUnsafeMutablePointerToElements { source in
                Node.make(slots: Slots(used: header.used & ~slot, nodes: header.nodes & ~slot)) { destination in
                    for offset in 0..<index { (destination + offset).initialize(to: source[offset]) }
                    for offset in index + 1..<count { (destination + offset - 1).initialize(to: source[offset]) }
                }
            }
        }
    }
}
