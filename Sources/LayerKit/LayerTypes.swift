/// Where contents sit in the bounds when their size differs (CALayerContentsGravity).
///
/// Vitrine is y-down, so unlike Core Animation on iOS, `top` means the visual top (minimum y) and
/// `bottom` the visual bottom (maximum y). When `contentsAreFlipped()` is true, top and bottom swap,
/// as in Core Animation.
public enum ContentsGravity: String, CaseIterable, Hashable, Sendable {
    case center, top, bottom, left, right
    case topLeft, topRight, bottomLeft, bottomRight
    case resize, resizeAspect, resizeAspectFill

    /// The resize modes scale the contents; the nine placements never do, and contentsCenter
    /// applies only to the resize modes.
    public var isResizing: Bool { self == .resize || self == .resizeAspect || self == .resizeAspectFill }
}

/// Texture filters for contents (CALayerContentsFilter).
public enum ContentsFilter: String, Hashable, Sendable {
    case linear, nearest, trilinear
}

/// Which corners `cornerRadius` rounds (CACornerMask), with Core Animation's bit values.
/// In Vitrine's y-down space "MinY" corners are the visual top.
public struct CornerMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let minXMinYCorner = CornerMask(rawValue: 1)
    public static let maxXMinYCorner = CornerMask(rawValue: 2)
    public static let minXMaxYCorner = CornerMask(rawValue: 4)
    public static let maxXMaxYCorner = CornerMask(rawValue: 8)
    public static let all: CornerMask = [.minXMinYCorner, .maxXMinYCorner, .minXMaxYCorner, .maxXMaxYCorner]
}

/// The curve of rounded corners (CALayerCornerCurve).
public enum CornerCurve: String, Hashable, Sendable {
    case circular, continuous
}

/// Which edges are anti-aliased (CAEdgeAntialiasingMask).
public struct EdgeAntialiasingMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let minXEdge = EdgeAntialiasingMask(rawValue: 1)
    public static let maxXEdge = EdgeAntialiasingMask(rawValue: 2)
    public static let minYEdge = EdgeAntialiasingMask(rawValue: 4)
    public static let maxYEdge = EdgeAntialiasingMask(rawValue: 8)
    public static let all: EdgeAntialiasingMask = [.minXEdge, .maxXEdge, .minYEdge, .maxYEdge]
}

/// How a layer follows its superlayer's size changes (CAAutoresizingMask), with Core Animation's
/// bit values. "MinY" is the margin at minimum y, the visual top in Vitrine's y-down space.
public struct AutoresizingMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let minXMargin = AutoresizingMask(rawValue: 1)
    public static let widthSizable = AutoresizingMask(rawValue: 2)
    public static let maxXMargin = AutoresizingMask(rawValue: 4)
    public static let minYMargin = AutoresizingMask(rawValue: 8)
    public static let heightSizable = AutoresizingMask(rawValue: 16)
    public static let maxYMargin = AutoresizingMask(rawValue: 32)
}

/// What a timed object shows outside its active duration (CAMediaTimingFillMode).
public enum FillMode: String, Hashable, Sendable {
    case removed, forwards, backwards, both
}

/// A layer's identity in render trees: stable for the layer's life, never reused in a process.
public struct LayerID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: UInt64
    public static func < (a: LayerID, b: LayerID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "#\(rawValue)" }
}
