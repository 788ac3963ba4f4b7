/// An event that any number of parties listen to, as libwayland's `wl_signal` is: the owner
/// emits, and each listener keeps the `SignalListener` that `listen(_:)` returns for as long as it
/// wants to hear (releasing it, or `cancel()`, stops it), so that no party can take another's
/// place or stop it listening. Listeners are called in the order they started listening. Used on
/// one thread (the compositor's).
///
/// Inlinable, so that each module emits it specialized for its values: unspecialized, every emit
/// looked its listener tuples' type metadata up at run time (a presented frame emits twice).
public final class Signal<Value> {
    /// Each listener's callback and its `SignalListener`, unowned: a listener is in this list
    /// exactly while its `SignalListener` lives uncancelled (its cancel, which its deinit calls,
    /// takes it out), and a signal that goes first tells its listeners (`deinit`).
    @usableFromInline var listeners: [(id: Int, holder: Unmanaged<SignalListener>, callback: (Value) -> Void)] = []
    @usableFromInline var lastID = 0
    /// Counts cancellations, so that an emit during which none happened calls every listener it
    /// started with without looking each up in the list again.
    @usableFromInline var cancellations = 0

    @inlinable public init() {}

    /// Calls `callback` with every value emitted from now on, until the listener is cancelled or
    /// released.
    @inlinable public func listen(_ callback: @escaping (Value) -> Void) -> SignalListener {
        lastID += 1
        let id = lastID
        // Unowned, not weak (docs/architecture.md: a weak reference would give the signal, which
        // a presented frame retains, a side table): the signal's deinit clears this closure.
        let holder = SignalListener { [unowned(unsafe) self] in
            cancellations += 1
            listeners.removeAll { $0.id == id }
        }
        listeners.append((id, Unmanaged.passUnretained(holder), callback))
        return holder
    }

    deinit {
        for listener in listeners { listener.holder.takeUnretainedValue().signalWentAway() }
    }

    /// Calls every listener with `value`. A listener that an earlier one cancels meanwhile is not
    /// called; one that starts listening meanwhile hears from the next value on.
    @inlinable public func emit(_ value: Value) {
        let cancellationsBefore = cancellations
        for listener in listeners where cancellations == cancellationsBefore || listeners.contains(where: { $0.id == listener.id }) {
            listener.callback(value)
        }
    }
}

extension Signal where Value == Void {
    @inlinable public func emit() {
        emit(())
    }
}

/// One listener's hold on a `Signal` (`wl_listener`'s role): its callback runs until `cancel()`
/// or until this object is released.
public final class SignalListener {
    private var remove: (() -> Void)?

    @usableFromInline init(remove: @escaping () -> Void) {
        self.remove = remove
    }

    deinit {
        cancel()
    }

    /// Stops the callback; safe to call more than once, from the callback itself, and after the
    /// signal went away.
    public func cancel() {
        remove?()
        remove = nil
    }

    /// The signal is being deinitialized: there is nothing left to remove the callback from.
    @usableFromInline func signalWentAway() {
        remove = nil
    }
}
