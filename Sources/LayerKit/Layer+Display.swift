extension Layer {
    /// Marks the contents as needing an update; the transaction's commit calls `display()` once,
    /// however many times this was called.
    public func setNeedsDisplay() {
        setNeedsDisplay(in: .infinite)
    }

    /// Marks the part `rect` (in the bounds space) of the contents as needing an update; marks
    /// before the display add up to their bounding box. A layer with one backing store redraws it
    /// whole; a `TiledLayer` redraws only the tiles the marked box touches.
    public func setNeedsDisplay(in rect: Rect) {
        needsDisplayRect = needsDisplayRect.union(rect)
        Transaction.withState { transaction in
            transaction.noteChange()
            guard !needsDisplayFlag else { return }
            needsDisplayFlag = true
            transaction.displayCandidates.append(self)
        }
    }

    public func needsDisplay() -> Bool { needsDisplayFlag }

    /// Calls `display()` now if the layer was marked with `setNeedsDisplay()`.
    public func displayIfNeeded() {
        guard needsDisplayFlag else { return }
        needsDisplayFlag = false
        display()
        needsDisplayRect = .null
    }
}
