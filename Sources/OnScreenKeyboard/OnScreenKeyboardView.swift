import Graphics
import LayerKit
import Views

/// The on-screen keyboard: a view whose key caps are layers (a rounded background and a text
/// label each), laid out by `KeyboardGeometry` for the page on show, driven by `KeyboardState`.
///
/// Touches and pointer presses on it come through the views' event dispatch; the key under a
/// finger is held (pressed colour, and a preview bubble above it unless the field hides its
/// text), follows the finger as it slides, and types when the finger lifts. Backspace deletes
/// at once and repeats while held: the owner calls `tick(now:)` from its loop, on the clock of
/// the input events' timestamps. What it types goes to `onOutput`.
///
/// The owner puts it in a view covering the output (`place(in:scale:)`), then shows it for a
/// field (`show(for:)`), sliding it up from the bottom edge, and hides it (`hide()`), sliding it
/// back down.
public final class OnScreenKeyboardView: View {
    public let configuration: OnScreenKeyboardConfiguration
    /// Called with everything typed, in order.
    public var onOutput: ((KeyboardOutput) -> Void)?
    public private(set) var state: KeyboardState
    public private(set) var purpose = ContentPurpose.normal
    /// Whether the field hides what is typed, so no preview bubble shows.
    public private(set) var hidesText = false
    public private(set) var isShown = false
    /// The keys as laid out now.
    public private(set) var geometry: KeyboardGeometry
    /// The area the keyboard slides in at the bottom of (its superview's bounds space).
    public private(set) var container = Rect.zero
    public private(set) var scale = 1.0

    /// One cap layer per key of `geometry.keys`, in the same order.
    public private(set) var keyCaps: [Layer] = []
    private var keyLabels: [TextLayer] = []
    /// The bubble above a held character key.
    public let preview = Layer()
    private let previewLabel = TextLayer()
    /// The key each touch (or the pointer) holds, by index into `geometry.keys`.
    private var held: [Int32: Int] = [:]
    /// The holding touches, oldest first: the preview follows the newest.
    private var pressOrder: [Int32] = []
    /// The pointer's entry in `held`: touch ids are slots, never negative.
    private static let pointerID: Int32 = -1

    public init(configuration: OnScreenKeyboardConfiguration = OnScreenKeyboardConfiguration()) {
        self.configuration = configuration
        state = KeyboardState(
            layoutCount: configuration.layouts.count, doubleTapInterval: configuration.doubleTapInterval, repeatDelay: configuration.repeatDelay,
            repeatRate: configuration.repeatRate)
        geometry = KeyboardGeometry(
            page: configuration.page(.letters, layoutIndex: 0, for: .normal), size: .zero, scale: 1, metrics: configuration.metrics)
        super.init()
        layer.name = "on-screen keyboard"
        layer.backgroundColor = configuration.theme.background
        preview.name = "key preview"
        preview.backgroundColor = configuration.theme.pressed
        preview.cornerRadius = configuration.keyCornerRadius
        preview.zPosition = 1
        preview.isHidden = true
        previewLabel.foregroundColor = configuration.theme.text
        previewLabel.alignmentMode = .center
        preview.addSublayer(previewLabel)
        isHidden = true
        isUserInteractionEnabled = false
    }

    /// The text of the preview bubble while it shows; nil while it does not.
    public var previewText: String? {
        preview.isHidden ? nil : previewLabel.string?.string
    }

    /// Sizes the keyboard for an output whose views' area is `container` (points) at `scale`
    /// pixels per point: the configured share of its height, its full width, at the bottom when
    /// shown and just below it when hidden.
    public func place(in container: Rect, scale: Double) {
        self.container = container
        self.scale = scale
        let height = configuration.height(forOutput: container.size, scale: scale)
        withoutAnimation {
            frame = Rect(x: container.minX, y: restingY(height: height, shown: isShown), width: container.width, height: height)
        }
        rebuildKeys()
    }

    /// Slides the keyboard up for a field of `purpose`, on the page that purpose opens on.
    /// `hidesText` (text-input's hidden_text or sensitive_data hints) turns the key preview off
    /// as a password or PIN purpose does.
    public func show(for purpose: ContentPurpose, hidesText: Bool = false, animated: Bool = true) {
        self.purpose = purpose
        self.hidesText = hidesText
        state.reset(to: purpose.initialPage)
        rebuildKeys()
        guard !isShown else { return }
        isShown = true
        isUserInteractionEnabled = true
        withoutAnimation { isHidden = false }
        slide(animated: animated)
    }

    /// Slides the keyboard down out of sight, and hides its layer once there.
    public func hide(animated: Bool = true) {
        guard isShown else { return }
        isShown = false
        releaseAll()
        isUserInteractionEnabled = false
        slide(animated: animated)
    }

    /// Lets time pass for the held backspace's repeats.
    public func tick(now: Double) {
        emit(state.advance(to: now))
    }

    /// When `tick(now:)` next has a repeat to send (seconds, the input events' clock); nil: none.
    public var nextTickTime: Double? { state.nextRepeatTime }

    // MARK: - Input

    public override func touchBegan(_ touch: TouchEvent) {
        begin(id: touch.id, at: touch.location(in: self), time: touch.timestamp)
    }

    public override func touchMoved(_ touch: TouchEvent) {
        move(id: touch.id, to: touch.location(in: self), time: touch.timestamp)
    }

    public override func touchEnded(_ touch: TouchEvent) {
        end(id: touch.id, time: touch.timestamp)
    }

    public override func touchCancelled(_ touch: TouchEvent) {
        cancel(id: touch.id)
    }

    public override func pointerDown(_ event: PointerEvent) {
        guard held[Self.pointerID] == nil else { return }
        begin(id: Self.pointerID, at: event.location(in: self), time: event.timestamp)
    }

    public override func pointerDragged(_ event: PointerEvent) {
        move(id: Self.pointerID, to: event.location(in: self), time: event.timestamp)
    }

    public override func pointerUp(_ event: PointerEvent) {
        guard event.pressedButtons.isEmpty else { return }
        end(id: Self.pointerID, time: event.timestamp)
    }

    private func keyIndex(at point: Point) -> Int? {
        guard let key = geometry.key(at: point) else { return nil }
        return geometry.keys.firstIndex(of: key)
    }

    private func begin(id: Int32, at point: Point, time: Double) {
        guard let index = keyIndex(at: point) else { return }
        held[id] = index
        pressOrder.append(id)
        emit(state.press(geometry.keys[index].key.action, at: time))
        refreshCaps()
    }

    /// A sliding finger takes the key under it; a held backspace stops repeating when left. A
    /// finger that slides off the keyboard holds nothing and types nothing.
    private func move(id: Int32, to point: Point, time: Double) {
        guard let old = held[id] else { return }
        emit(state.advance(to: time))
        let new = keyIndex(at: point)
        guard new != old else { return }
        if geometry.keys[old].key.action == .backspace { state.cancel(.backspace) }
        held[id] = new
        if new == nil { pressOrder.removeAll { $0 == id } }
        refreshCaps()
    }

    /// Types the key the touch holds: the one under its last position.
    private func end(id: Int32, time: Double) {
        guard let index = held.removeValue(forKey: id) else { return }
        pressOrder.removeAll { $0 == id }
        let action = geometry.keys[index].key.action
        let before = (state.pageKind, state.layoutIndex)
        emit(state.release(action, at: time))
        if (state.pageKind, state.layoutIndex) != before { rebuildKeys() } else { refreshCaps() }
    }

    private func cancel(id: Int32) {
        guard let index = held.removeValue(forKey: id) else { return }
        pressOrder.removeAll { $0 == id }
        state.cancel(geometry.keys[index].key.action)
        refreshCaps()
    }

    private func releaseAll() {
        for index in held.values { state.cancel(geometry.keys[index].key.action) }
        held.removeAll()
        pressOrder.removeAll()
    }

    private func emit(_ outputs: [KeyboardOutput]) {
        for output in outputs { onOutput?(output) }
    }

    // MARK: - Layers

    private func restingY(height: Double, shown: Bool) -> Double {
        shown ? container.maxY - height : container.maxY
    }

    private func slide(animated: Bool) {
        let origin = Point(x: frame.minX, y: restingY(height: frame.height, shown: isShown))
        guard animated else {
            withoutAnimation {
                frame.origin = origin
                isHidden = !isShown
            }
            return
        }
        View.animate(duration: configuration.slideDuration) {
            Transaction.animationTimingFunction = .easeOut
            if !isShown {
                // Out of sight it need not be drawn; unless it was shown again meanwhile.
                Transaction.completionBlock = { [weak self] in
                    guard let self, !self.isShown else { return }
                    self.withoutAnimation { self.isHidden = true }
                }
            }
            frame.origin = origin
        }
    }

    private func withoutAnimation(_ changes: () -> Void) {
        Transaction.begin()
        Transaction.disableActions = true
        changes()
        Transaction.commit()
    }

    /// Makes the caps for the page on show at the current size and scale. Keys still held on the
    /// old page are let go without typing: they are gone from under the fingers.
    private func rebuildKeys() {
        releaseAll()
        geometry = KeyboardGeometry(
            page: configuration.page(state.pageKind, layoutIndex: state.layoutIndex, for: purpose), size: bounds.size, scale: scale,
            metrics: configuration.metrics)
        withoutAnimation {
            keyCaps.forEach { $0.removeFromSuperlayer() }
            keyCaps = []
            keyLabels = []
            for placed in geometry.keys {
                let cap = Layer()
                cap.frame = placed.frame
                cap.cornerRadius = min(configuration.keyCornerRadius, placed.frame.height / 4)
                let label = TextLayer()
                label.contentsScale = scale
                label.foregroundColor = configuration.theme.text
                label.alignmentMode = .center
                cap.addSublayer(label)
                layer.insertSublayer(cap, below: preview)
                keyCaps.append(cap)
                keyLabels.append(label)
            }
            if preview.superlayer !== layer { layer.addSublayer(preview) }
            previewLabel.contentsScale = scale
        }
        refreshCaps()
    }

    /// Puts labels and colours on the caps for the shift state and the keys held, and the preview
    /// bubble over the most recently pressed key when it is a character.
    private func refreshCaps() {
        let theme = configuration.theme
        let heldKeys = Set(held.values)
        withoutAnimation {
            for (index, placed) in geometry.keys.enumerated() {
                let key = placed.key
                let cap = keyCaps[index]
                let isActiveShift = key.action == .shift && state.shift == .locked
                cap.name = "key \(key.label(shifted: false))"
                cap.backgroundColor = heldKeys.contains(index) ? theme.pressed
                    : isActiveShift ? theme.active : key.isSpecial ? theme.specialKey : theme.key
                let text = key.label(shifted: state.isShifted, capsLocked: state.shift == .locked)
                let size = Self.fontSize(for: key, height: placed.frame.height)
                place(keyLabels[index], text: text, fontSize: size, in: Rect(origin: .zero, size: placed.frame.size))
            }
            updatePreview()
        }
    }

    private func updatePreview() {
        guard purpose.showsKeyPreview, !hidesText,
              let newest = pressOrder.last, let index = held[newest],
              case .character = geometry.keys[index].key.action else {
            preview.isHidden = true
            return
        }
        let placed = geometry.keys[index]
        let width = (placed.frame.width * 1.4 * scale).rounded() / scale
        let height = (placed.frame.height * 1.3 * scale).rounded() / scale
        let x = ((placed.frame.midX - width / 2) * scale).rounded() / scale
        let y = ((placed.frame.minY - height - 4) * scale).rounded() / scale
        preview.frame = Rect(x: x, y: y, width: width, height: height)
        let text = placed.key.label(shifted: state.isShifted, capsLocked: state.shift == .locked)
        place(previewLabel, text: text, fontSize: Self.fontSize(for: placed.key, height: placed.frame.height) * 1.5,
              in: Rect(x: 0, y: 0, width: width, height: height))
        preview.isHidden = false
    }

    /// Sets a label's text and centres its line box vertically in `box`, on a device pixel.
    private func place(_ label: TextLayer, text: String, fontSize: Double, in box: Rect) {
        label.string = AttributedText(text)
        label.fontSize = fontSize
        // Without Pango (logged once) the label draws nothing, in a box as high as the font's size.
        let lineHeight = (try? TextLayout(AttributedText(text.isEmpty ? " " : text), font: Font(size: fontSize)))?.size.height ?? fontSize
        let y = ((box.midY - lineHeight / 2) * scale).rounded() / scale
        label.frame = Rect(x: box.minX, y: y, width: box.width, height: lineHeight)
    }

    /// Characters at about half the key's height, the function symbols smaller, words smaller still.
    static func fontSize(for key: Key, height: Double) -> Double {
        let share = switch key.action {
        case .character: 0.45
        case .space, .page, .nextLayout: 0.3
        case .shift, .backspace, .enter: 0.4
        }
        return max(8, (height * share).rounded())
    }
}
