/// Contents that a module other than LayerKit draws and the renderer shows directly, the role
/// that an IOSurface or a CAMetalLayer's drawable plays for Core Animation.
///
/// LayerKit knows only the size of what such contents show; what they are (a Vulkan image, and
/// how to wait for it) is known to the renderer that made them, which recognises its own objects
/// in a render tree and ignores any other. Compared by identity, as images are.
public protocol ExternalContents: AnyObject, Sendable {
    /// The size in pixels of what the contents show now, for `contentsGravity` (an image's width
    /// and height), or nil while they show nothing.
    var pixelSize: (width: Int, height: Int)? { get }
    /// What the contents show now as an image, for drawing them outside the renderer
    /// (`render(in:)`: printing, export, captures at another scale); nil where only the renderer
    /// can read them, and then nothing is drawn there.
    func snapshot() -> Image?
}

extension ExternalContents {
    public func snapshot() -> Image? { nil }
}

/// A layer whose contents are `ExternalContents`: the base of a renderer's drawable layers (see
/// Renderer's `VulkanLayer`). While `externalContents` shows something it is drawn in place of
/// `contents`, with contentsGravity, contentsRect, contentsScale and the rest applied as to an image.
open class ExternalContentsLayer: Layer {
    public override init() {
        super.init()
    }

    public required init(layer: Layer) {
        super.init(layer: layer)
    }

    /// Set by the module that draws the contents. A new object is a change of contents for the
    /// next commit; it is not animated (a drawable layer's frames replace each other).
    public final var externalContents: (any ExternalContents)? {
        get { properties.externalContents }
        set {
            guard newValue !== properties.externalContents else { return }
            properties.externalContents = newValue
            markChanged(contentsOnly: true)
        }
    }
}

extension LayerProperties {
    /// An `ExternalContentsLayer`'s contents, drawn in place of `contents`; nil on other layers.
    public var externalContents: (any ExternalContents)? {
        get {
            guard case .externalContents(let contents)? = classProperties else { return nil }
            return contents
        }
        set {
            if let newValue {
                classProperties = .externalContents(newValue)
            } else if externalContents != nil {
                classProperties = nil
            }
        }
    }
}
