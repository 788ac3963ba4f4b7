import WaylandProtocols

/// The placement rules of an xdg_positioner, copied into a popup when it is created or
/// repositioned. Every rectangle is in the parent's window-geometry coordinates: the space of the
/// anchor rectangle and of xdg_popup.configure.
public struct XdgPositionerRules: Equatable, Sendable {
    /// A side or corner (xdg_positioner's anchor and gravity enums, which share their values).
    public enum Direction: UInt32, Sendable, CaseIterable {
        case none = 0, top, bottom, left, right, topLeft, bottomLeft, topRight, bottomRight
    }

    /// How the popup may move or shrink when its placement leaves the constraint rectangle.
    public struct ConstraintAdjustment: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let slideX = ConstraintAdjustment(rawValue: 1)
        public static let slideY = ConstraintAdjustment(rawValue: 2)
        public static let flipX = ConstraintAdjustment(rawValue: 4)
        public static let flipY = ConstraintAdjustment(rawValue: 8)
        public static let resizeX = ConstraintAdjustment(rawValue: 16)
        public static let resizeY = ConstraintAdjustment(rawValue: 32)
        public static let all: ConstraintAdjustment = [.slideX, .slideY, .flipX, .flipY, .resizeX, .resizeY]
    }

    /// The popup's window-geometry size.
    public var size: SurfaceSize
    public var anchorRect: IntRect
    public var anchor: Direction
    public var gravity: Direction
    public var constraintAdjustment: ConstraintAdjustment
    public var offsetX: Int32
    public var offsetY: Int32
    /// Whether the compositor should place the popup again when the conditions change (v3).
    public var isReactive: Bool
    /// The parent's future window-geometry size and the parent configure this answers (v3 hints).
    public var parentSize: SurfaceSize?
    public var parentConfigureSerial: UInt32?

    public init(
        size: SurfaceSize = SurfaceSize(width: 0, height: 0), anchorRect: IntRect = IntRect(x: 0, y: 0, width: 0, height: 0),
        anchor: Direction = .none, gravity: Direction = .none, constraintAdjustment: ConstraintAdjustment = [],
        offsetX: Int32 = 0, offsetY: Int32 = 0, isReactive: Bool = false,
        parentSize: SurfaceSize? = nil, parentConfigureSerial: UInt32? = nil
    ) {
        self.size = size
        self.anchorRect = anchorRect
        self.anchor = anchor
        self.gravity = gravity
        self.constraintAdjustment = constraintAdjustment
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.isReactive = isReactive
        self.parentSize = parentSize
        self.parentConfigureSerial = parentConfigureSerial
    }

    /// Where the rules put the popup when nothing constrains it: the anchor point on the anchor
    /// rectangle, the popup on the gravity's side of it (centred on an axis without gravity),
    /// moved by the offset.
    public var unconstrainedGeometry: IntRect {
        let x = span(.horizontal, anchor: anchor, gravity: gravity)
        let y = span(.vertical, anchor: anchor, gravity: gravity)
        return IntRect(x: Int32(clamping: x.origin), y: Int32(clamping: y.origin), width: size.width, height: size.height)
    }

    /// The popup's geometry inside `constraint` (the area it must stay in, e.g. the output, in the
    /// same parent window-geometry coordinates), following xdg_positioner.constraint_adjustment:
    /// per axis, only when the popup leaves the constraint on that axis, first flip (kept only when
    /// the flipped position fits), then slide, then resize (clip to the constraint).
    ///
    /// Sliding moves the popup by the smallest distance that brings the constrained edge inside
    /// without pushing the other edge out, which is what the protocol's two slide steps amount to.
    /// When the popup is longer than the constraint (both edges out), those steps would not move
    /// it; it is then aligned with the constraint on the side it grows from (the edge nearest the
    /// anchor: right or bottom for left or top gravity, left or top otherwise), as wlroots does, so
    /// that the part next to the anchor is visible.
    public func geometry(constrainedTo constraint: IntRect) -> IntRect {
        guard !constraint.isEmpty else { return unconstrainedGeometry }
        let x = adjusted(.horizontal, within: constraint)
        let y = adjusted(.vertical, within: constraint)
        return IntRect(x: Int32(clamping: x.origin), y: Int32(clamping: y.origin),
                       width: Int32(clamping: x.length), height: Int32(clamping: y.length))
    }

    private enum Axis { case horizontal, vertical }
    /// Where on an axis a direction points: towards the lower coordinate, the middle or the higher one.
    private enum Side { case start, center, end }

    /// A placement on one axis (64-bit, so that client values cannot overflow).
    private struct Span {
        var origin: Int64
        var length: Int64
        var end: Int64 { origin + length }
    }

    private static func side(of direction: Direction, on axis: Axis) -> Side {
        switch (direction, axis) {
        case (.left, .horizontal), (.topLeft, .horizontal), (.bottomLeft, .horizontal),
             (.top, .vertical), (.topLeft, .vertical), (.topRight, .vertical):
            return .start
        case (.right, .horizontal), (.topRight, .horizontal), (.bottomRight, .horizontal),
             (.bottom, .vertical), (.bottomLeft, .vertical), (.bottomRight, .vertical):
            return .end
        default:
            return .center
        }
    }

    /// The direction mirrored on one axis (what flip_x and flip_y do to anchor and gravity).
    private static func flipped(_ direction: Direction, on axis: Axis) -> Direction {
        switch (direction, axis) {
        case (.left, .horizontal): .right
        case (.right, .horizontal): .left
        case (.topLeft, .horizontal): .topRight
        case (.topRight, .horizontal): .topLeft
        case (.bottomLeft, .horizontal): .bottomRight
        case (.bottomRight, .horizontal): .bottomLeft
        case (.top, .vertical): .bottom
        case (.bottom, .vertical): .top
        case (.topLeft, .vertical): .bottomLeft
        case (.bottomLeft, .vertical): .topLeft
        case (.topRight, .vertical): .bottomRight
        case (.bottomRight, .vertical): .topRight
        default: direction
        }
    }

    private func span(_ axis: Axis, anchor: Direction, gravity: Direction) -> Span {
        let (anchorOrigin, anchorLength, length, offset) = axis == .horizontal
            ? (Int64(anchorRect.x), Int64(anchorRect.width), Int64(size.width), Int64(offsetX))
            : (Int64(anchorRect.y), Int64(anchorRect.height), Int64(size.height), Int64(offsetY))
        let point = switch Self.side(of: anchor, on: axis) {
        case .start: anchorOrigin
        case .center: anchorOrigin + anchorLength / 2
        case .end: anchorOrigin + anchorLength
        }
        let origin = switch Self.side(of: gravity, on: axis) {
        case .start: point - length
        case .center: point - length / 2
        case .end: point
        }
        return Span(origin: origin + offset, length: length)
    }

    private func adjusted(_ axis: Axis, within constraint: IntRect) -> Span {
        let (low, high) = axis == .horizontal
            ? (Int64(constraint.x), constraint.maxX)
            : (Int64(constraint.y), constraint.maxY)
        let (flip, slide, resize): (ConstraintAdjustment, ConstraintAdjustment, ConstraintAdjustment) = axis == .horizontal
            ? (.flipX, .slideX, .resizeX)
            : (.flipY, .slideY, .resizeY)
        func isConstrained(_ span: Span) -> Bool { span.origin < low || span.end > high }

        var span = span(axis, anchor: anchor, gravity: gravity)
        guard isConstrained(span) else { return span }

        if constraintAdjustment.contains(flip) {
            let flippedSpan = self.span(axis, anchor: Self.flipped(anchor, on: axis), gravity: Self.flipped(gravity, on: axis))
            if !isConstrained(flippedSpan) { span = flippedSpan }
        }

        if isConstrained(span), constraintAdjustment.contains(slide) {
            if span.origin < low, span.end > high {
                span.origin = Self.side(of: gravity, on: axis) == .start ? high - span.length : low
            } else if span.origin < low {
                span.origin += min(low - span.origin, high - span.end)
            } else {
                span.origin -= min(span.end - high, span.origin - low)
            }
        }

        if isConstrained(span), constraintAdjustment.contains(resize) {
            let start = max(span.origin, low), end = min(span.end, high)
            // A popup wholly outside cannot be resized into the constraint; it keeps its size.
            if end > start { span = Span(origin: start, length: end - start) }
        }
        return span
    }
}

/// xdg_positioner: placement rules a client builds for popups. A popup copies the rules when it is
/// created or repositioned, so later changes to the positioner do not move it.
final class XdgPositioner: Resource, RequestHandler {
    private(set) var rules = XdgPositionerRules()
    private var hasSize = false
    private var hasAnchorRect = false

    /// Whether set_size and set_anchor_rect were both sent. A zero-sized anchor rectangle (a point,
    /// as WLCS's zero_size_anchor_rect test uses) counts as set.
    var isComplete: Bool { hasSize && hasAnchorRect }

    func handle(_ request: Request) throws(ProtocolError) {
        let invalidInput = XdgPositionerError.invalidInput
        switch request {
        case .destroy: destroy()
        case .setSize(let width, let height):
            let size = SurfaceSize(width: ClientCoordinate.clamp(width), height: ClientCoordinate.clamp(height))
            guard size.width > 0, size.height > 0 else {
                throw ProtocolError(invalidInput, "positioner size \(size.width)×\(size.height) is not positive")
            }
            rules.size = size
            hasSize = true
        case .setAnchorRect(let x, let y, let width, let height):
            let rect = ClientCoordinate.rectangle(x: x, y: y, width: width, height: height)
            guard rect.width >= 0, rect.height >= 0 else {
                throw ProtocolError(invalidInput, "anchor rectangle \(rect) has a negative size")
            }
            rules.anchorRect = rect
            hasAnchorRect = true
        case .setAnchor(let value):
            guard let anchor = XdgPositionerRules.Direction(rawValue: value.rawValue) else {
                throw ProtocolError(invalidInput, "\(value.rawValue) is not an xdg_positioner.anchor")
            }
            rules.anchor = anchor
        case .setGravity(let value):
            guard let gravity = XdgPositionerRules.Direction(rawValue: value.rawValue) else {
                throw ProtocolError(invalidInput, "\(value.rawValue) is not an xdg_positioner.gravity")
            }
            rules.gravity = gravity
        case .setConstraintAdjustment(let value):
            let adjustment = XdgPositionerRules.ConstraintAdjustment(requestArgument: value)
            guard XdgPositionerRules.ConstraintAdjustment.all.isSuperset(of: adjustment) else {
                throw ProtocolError(invalidInput, "constraint adjustment \(adjustment.rawValue) has unknown bits")
            }
            rules.constraintAdjustment = adjustment
        case .setOffset(let x, let y):
            rules.offsetX = ClientCoordinate.clamp(x)
            rules.offsetY = ClientCoordinate.clamp(y)
        case .setReactive: rules.isReactive = true
        case .setParentSize(let width, let height):
            rules.parentSize = SurfaceSize(width: ClientCoordinate.clamp(width), height: ClientCoordinate.clamp(height))
        case .setParentConfigure(let serial): rules.parentConfigureSerial = serial
        }
    }
}

extension XdgPositionerRules.ConstraintAdjustment {
    /// From set_constraint_adjustment's argument: a plain number where the installed xdg-shell.xml
    /// does not tie the argument to the enum (Debian 12's wayland-protocols, 1.31), the generated
    /// bitfield where it does.
    init(requestArgument value: UInt32) { self.init(rawValue: value) }

    init(requestArgument value: XdgPositionerConstraintAdjustment) { self.init(rawValue: value.rawValue) }
}
