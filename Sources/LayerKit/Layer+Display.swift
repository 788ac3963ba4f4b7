extension Layer {
    /// Marks the contents as needing an update; the transaction's commit calls `display()` once,
    /// however many times this was called.
    public func setNeedsDisplay() {
        let transaction = Transaction.state
        transaction.noteChange()
        guard !needsDisplayFlag else { return }
        needsDisplayFlag = true
        transaction.displayCandidates.append(self)
    }

    public func needsDisplay() -> Bool { needsDisplayFlag }

    /// Calls `display()` now if the layer was marked with `setNeedsDisplay()`.
    public func displayIfNeeded() {
        guard needsDisplayFlag else { return }
        needsDisplayFlag = false
        display()
    }
}
