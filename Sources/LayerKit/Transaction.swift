/// Groups model-tree changes into atomic updates (CATransaction).
///
/// Transactions nest; only when the outermost one commits does Vitrine lay out, display and
/// snapshot the changed layers into their contexts' render trees. A change made with no
/// transaction open opens an implicit one, which the owner's run loop commits by calling
/// `flush()` once per iteration (the compositor's event loop does so after every dispatch).
///
/// Values (`animationDuration`, `disableActions`, `completionBlock` and arbitrary keys) belong to
/// the innermost open transaction, start as the enclosing one's, and are restored on commit.
///
/// Transactions are per thread, as Core Animation's are: each thread has its own stack of open
/// transactions and its own implicit transaction, and `flush()` commits only the calling thread's.
/// A layer tree must be used from one thread at a time, and its changes join the transactions of
/// the thread that makes them.
public enum Transaction {
    /// Runs `body` with the calling thread's transactions, lent (see `LayerKitThreadState.withCurrent`).
    @inline(__always)
    static func withState<R>(_ body: (TransactionState) throws -> R) rethrows -> R {
        try LayerKitThreadState.withCurrent { try body($0.transaction) }
    }

    /// The default duration of implicit animations when no transaction sets one.
    public static let defaultAnimationDuration = 0.25

    /// Opens a transaction nested in the current one (if any).
    public static func begin() {
        withState { $0.push(implicit: false) }
    }

    /// Opens a transaction nested in the current one with `disableActions` set to
    /// `disablingActions`: `begin()` then the setter, finding the thread's transactions once (the
    /// compositor opens one for every client commit).
    public static func begin(disablingActions: Bool) {
        withState { $0.push(implicit: false, disableActions: disablingActions) }
    }

    /// Closes the innermost transaction; closing the outermost one commits the changes.
    /// Committing with no transaction open is a programming error: a precondition in debug builds,
    /// ignored in release builds (Vitrine's decision; Core Animation's documentation and behaviour differ).
    public static func commit() {
        withState { state in
            guard !state.stack.isEmpty else {
                assertionFailure("Transaction.commit() without a matching begin()")
                return
            }
            state.pop()
        }
    }

    /// Commits the implicit transaction, if one is open and no explicit transaction encloses work;
    /// explicit transactions still open commit when they close.
    public static func flush() {
        LayerKitThreadState.withCurrent { thread in
            // The clock is read only for running animations: it costs more than the rest of a flush.
            if thread.animationScheduler.isRunning { thread.animationScheduler.tick(now: thread.clock.now) }
            let state = thread.transaction
            if state.stack.count == 1, state.stack[0].isImplicit {
                state.pop()
            } else if state.stack.isEmpty, state.hasPendingWork {
                state.performCommit()
            }
        }
    }

    /// The duration of implicit animations started in this transaction (0.25 s by default).
    public static var animationDuration: Double {
        get { value(forKey: "animationDuration") as? Double ?? defaultAnimationDuration }
        set { setValue(newValue, forKey: "animationDuration") }
    }

    /// When true, property changes in this transaction start no implicit animations.
    public static var disableActions: Bool {
        get { withState { $0.current?.disableActions ?? false } }
        set {
            withState { state in
                state.ensureOpen()
                state.stack[state.stack.count - 1].disableActions = newValue
            }
        }
    }

    /// The timing function of implicit animations started in this transaction (nil: Core Animation's
    /// default curve).
    public static var animationTimingFunction: MediaTimingFunction? {
        get { value(forKey: "animationTimingFunction") as? MediaTimingFunction }
        set { setValue(newValue, forKey: "animationTimingFunction") }
    }

    /// Runs once the animations added in this transaction after it was set have finished, or right
    /// after the commit when none were added. Set it before adding the animations.
    public static var completionBlock: (() -> Void)? {
        get { withState { $0.current?.completion?.pendingBlock } }
        set {
            withState { state in
                state.ensureOpen()
                let index = state.stack.count - 1
                if let old = state.stack[index].completion {
                    // A replaced block no longer waits for animations added from now on.
                    old.close()
                }
                state.stack[index].completion = newValue.map { CompletionGroup(block: $0) }
            }
        }
    }

    /// Counts the calling thread's changes to layers in anything but their contents (values,
    /// sublayers, masks): the same before and after some work when that work changed nothing but
    /// contents (a client's new buffer), so that what depends on the layers' geometry alone (what
    /// lies under the pointer) need not be worked out again.
    public static var revisionExceptContents: UInt64 { withState { $0.revisionExceptContents } }

    public static func value(forKey key: String) -> (any Sendable)? {
        withState { state in
            guard let frame = state.current else { return nil }
            return key == disableActionsKey ? frame.disableActions : frame.values[key]
        }
    }

    public static func setValue(_ value: (any Sendable)?, forKey key: String) {
        withState { state in
            state.ensureOpen()
            if key == disableActionsKey {
                state.stack[state.stack.count - 1].disableActions = value as? Bool
            } else {
                state.stack[state.stack.count - 1].values[key] = value
            }
        }
    }

    /// Kept beside the other values rather than among them: the compositor sets it for every
    /// client commit, and every implicit action reads it.
    private static let disableActionsKey = "disableActions"

}

/// One thread's transactions and the changes they will commit.
final class TransactionState {
    struct Frame {
        var isImplicit: Bool
        var values: [String: any Sendable]
        /// The value for `disableActions` (nil: never set).
        var disableActions: Bool?
        var completion: CompletionGroup?
    }

    var stack: [Frame] = []
    var isCommitting = false
    /// Layers whose values or hierarchy changed since the last commit (each once).
    var changedLayers: [Layer] = []
    /// The array `changedLayers` was at the last commit, emptied, for the next one.
    private var spareChangedLayers: [Layer] = []
    var layoutCandidates: [Layer] = []
    var displayCandidates: [Layer] = []
    /// Completion groups of closed transactions, closed after the outermost commit (a group with
    /// no animations runs its block then).
    var closingGroups: [CompletionGroup] = []
    /// See `Transaction.revisionExceptContents`.
    var revisionExceptContents: UInt64 = 0

    /// The completion groups of the open transactions, which animations added now join.
    var openCompletionGroups: [CompletionGroup] { stack.compactMap(\.completion) }

    var current: Frame? { stack.last }

    var hasPendingWork: Bool {
        !changedLayers.isEmpty || !layoutCandidates.isEmpty || !displayCandidates.isEmpty
    }

    /// `disableActions`: the new transaction's value (nil: the enclosing one's).
    func push(implicit: Bool, disableActions: Bool? = nil) {
        // A nested transaction starts with the enclosing one's values, but not its completion block.
        // (`Dictionary()` is the shared empty storage; an empty literal calls an initializer.)
        stack.append(Frame(
            isImplicit: implicit, values: stack.last?.values ?? Dictionary(), disableActions: disableActions ?? stack.last?.disableActions,
            completion: nil))
    }

    /// Opens the implicit transaction for a model change made while none is open.
    func noteChange() {
        guard !isCommitting, stack.isEmpty else { return }
        push(implicit: true)
    }

    func ensureOpen() {
        if stack.isEmpty { push(implicit: true) }
    }

    func pop() {
        let frame = stack.removeLast()
        if let group = frame.completion { closingGroups.append(group) }
        guard stack.isEmpty else { return }
        performCommit()
    }

    /// Lays out, then displays, until neither has work left (layout before display, as Core
    /// Animation's commit does), then snapshots every changed layer into its context and runs the
    /// completion blocks.
    func performCommit() {
        isCommitting = true
        var rounds = 0
        while !layoutCandidates.isEmpty || !displayCandidates.isEmpty {
            rounds += 1
            if rounds > 16 {
                // Layout and display that keep invalidating each other: commit what there is.
                break
            }
            let toLayOut = layoutCandidates
            layoutCandidates.removeAll(keepingCapacity: true)
            var roots = Set<ObjectIdentifier>()
            for layer in toLayOut where layer.needsLayoutFlag {
                let root = layer.rootLayer
                if roots.insert(ObjectIdentifier(root)).inserted { root.layoutSubtreeIfNeeded() }
            }
            let toDisplay = displayCandidates
            displayCandidates.removeAll(keepingCapacity: true)
            for layer in toDisplay { layer.displayIfNeeded() }
        }
        // Swapped with the last commit's emptied array: neither is copied or allocated again.
        var changed: [Layer] = []
        swap(&changed, &spareChangedLayers)
        swap(&changed, &changedLayers)
        RenderContext.commitChanges(of: changed)
        // Emptied from the end: `removeAll(keepingCapacity:)` costs some 150 instructions for the
        // one layer of the common commit (a client's new buffer).
        while changed.popLast() != nil {}
        swap(&changed, &spareChangedLayers)
        isCommitting = false
        let groups = closingGroups
        closingGroups.removeAll()
        for group in groups { group.close() }
    }
}

/// A transaction's completion block and the animations it waits for: it runs once the
/// transaction has closed and every animation added while it was open has finished or been removed.
final class CompletionGroup {
    private var block: (() -> Void)?
    private var remaining = 0
    private var isClosed = false

    init(block: @escaping () -> Void) {
        self.block = block
    }

    var pendingBlock: (() -> Void)? { block }

    func animationAdded() { remaining += 1 }

    func animationEnded() {
        remaining -= 1
        runIfDone()
    }

    func close() {
        isClosed = true
        runIfDone()
    }

    private func runIfDone() {
        guard isClosed, remaining <= 0, let block else { return }
        self.block = nil
        block()
    }
}
