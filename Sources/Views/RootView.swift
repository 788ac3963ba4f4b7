import LayerKit

/// The view at the top of one output's view tree. Its `scaleFactor` (the output's scale) becomes
/// the `contentsScale` of every layer-backed view under it, at once when it changes and when a view
/// moves under it; layer-hosting views keep their own unless they accept it
/// (`View.layer(_:shouldInheritContentsScale:from:)`).
open class RootView: View {
    /// Pixels per point of the output.
    public var scaleFactor: Double {
        didSet {
            precondition(scaleFactor > 0, "RootView.scaleFactor must be positive, not \(scaleFactor)")
            guard scaleFactor != oldValue else { return }
            applyContentsScale(scaleFactor, from: self)
        }
    }

    /// A root covering `frame` (usually the output's size in points at the origin).
    public init(frame: Rect, scaleFactor: Double = 1) {
        precondition(scaleFactor > 0, "RootView.scaleFactor must be positive, not \(scaleFactor)")
        self.scaleFactor = scaleFactor
        super.init()
        self.frame = frame
        applyContentsScale(scaleFactor, from: self)
    }
}
