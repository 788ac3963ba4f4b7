/// Lays out a layer's sublayers (CALayoutManager). A layer uses its manager from the default
/// `layoutSublayers()` when its delegate does not lay out.
public protocol LayoutManager: AnyObject {
    func layoutSublayers(of layer: Layer)
}

extension Layer {
    /// Marks the layer as needing layout; the current transaction's commit (or `layoutIfNeeded()`)
    /// lays it out.
    public func setNeedsLayout() {
        Transaction.withState { transaction in
            transaction.noteChange()
            if !needsLayoutFlag {
                needsLayoutFlag = true
                transaction.layoutCandidates.append(self)
            }
        }
        var layer = parentInTree
        while let l = layer, !l.descendantNeedsLayout {
            l.descendantNeedsLayout = true
            layer = l.parentInTree
        }
    }

    /// Core Animation skips the layout requests that a layer's own changes imply while that layer
    /// is running its `layoutSublayers()`.
    func setNeedsLayoutImplicitly() {
        guard !isInLayout else { return }
        setNeedsLayout()
    }

    public func needsLayout() -> Bool { needsLayoutFlag }

    /// Walks up while the superlayer needs layout, then lays out everything that needs it beneath
    /// that ancestor, parents before children.
    public func layoutIfNeeded() {
        var top = self
        while let parent = top.parentInTree, parent.needsLayoutFlag { top = parent }
        top.layoutSubtreeIfNeeded()
    }

    /// Lays out this layer if it needs it, then the descendants that need it. Only the paths that
    /// lead to layers needing layout are visited, so the cost follows the change, not the tree.
    func layoutSubtreeIfNeeded() {
        if needsLayoutFlag {
            needsLayoutFlag = false
            isInLayout = true
            layoutSublayers()
            isInLayout = false
        }
        guard descendantNeedsLayout else { return }
        descendantNeedsLayout = false
        for sublayer in sublayers where sublayer.needsLayoutFlag || sublayer.descendantNeedsLayout {
            sublayer.layoutSubtreeIfNeeded()
        }
        if let mask, mask.needsLayoutFlag || mask.descendantNeedsLayout {
            mask.layoutSubtreeIfNeeded()
        }
    }

    static func autoresize(
        origin: Double, length: Double, delta: Double,
        flexibleLow: Bool, flexibleLength: Bool, flexibleHigh: Bool
    ) -> (origin: Double, length: Double) {
        let parts = [flexibleLow, flexibleLength, flexibleHigh].filter { $0 }.count
        guard parts > 0, delta != 0 else { return (origin, length) }
        let share = delta / Double(parts)
        return (origin + (flexibleLow ? share : 0), max(0, length + (flexibleLength ? share : 0)))
    }
}
