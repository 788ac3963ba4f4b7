/// An object that handles input (NSResponder/UIResponder). Every handler's default passes the
/// event to `next`, so an event nobody handles walks the responder chain: view → superview → … →
/// the root view → the root's `next`, which the shell sets.
open class Responder {
    /// Weak, because the shell that is a root's `next` usually owns the root.
    private weak var explicitNext: Responder?

    public init() {}

    /// The responder that gets the events this one does not handle. Held weakly; a view's is its
    /// superview, and only a topmost view's (the shell, for a root) is the one set here.
    open var next: Responder? {
        get { explicitNext }
        set { explicitNext = newValue }
    }

    // MARK: - Keyboard focus

    /// Whether `EventDispatcher.makeFirstResponder(_:)` may give this responder the keyboard focus.
    open var acceptsFirstResponder: Bool { false }

    /// Called when the responder is about to get the focus; returning false refuses it.
    open func becomeFirstResponder() -> Bool { true }

    /// Called when the responder is about to lose the focus; returning false keeps it.
    open func resignFirstResponder() -> Bool { true }

    // MARK: - Pointer

    open func pointerDown(_ event: PointerEvent) { next?.pointerDown(event) }
    open func pointerDragged(_ event: PointerEvent) { next?.pointerDragged(event) }
    open func pointerMoved(_ event: PointerEvent) { next?.pointerMoved(event) }
    open func pointerUp(_ event: PointerEvent) { next?.pointerUp(event) }
    open func pointerEntered(_ event: PointerEvent) { next?.pointerEntered(event) }
    open func pointerExited(_ event: PointerEvent) { next?.pointerExited(event) }
    open func scrolled(_ event: ScrollEvent) { next?.scrolled(event) }

    // MARK: - Touch

    open func touchBegan(_ touch: TouchEvent) { next?.touchBegan(touch) }
    open func touchMoved(_ touch: TouchEvent) { next?.touchMoved(touch) }
    open func touchEnded(_ touch: TouchEvent) { next?.touchEnded(touch) }
    open func touchCancelled(_ touch: TouchEvent) { next?.touchCancelled(touch) }

    // MARK: - Keyboard

    open func keyDown(_ event: KeyEvent) { next?.keyDown(event) }
    open func keyUp(_ event: KeyEvent) { next?.keyUp(event) }
}
