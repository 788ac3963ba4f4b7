import WaylandProtocols

/// zwp_input_popup_surface_v2: a surface of an input method (candidates, a key preview) that the
/// compositor shows near the text input's cursor rectangle while the input method is active and
/// the surface has a buffer, and tells where that rectangle lies in the surface's coordinates.
public final class InputPopupSurface: Resource, RequestHandler, SurfaceRole {
    static let roleName = "zwp_input_popup_surface_v2"
    var roleName: String { Self.roleName }

    public let surface: Surface
    private weak var inputMethod: InputMethod?
    private var surfaceDestruction: ResourceDestructionListener?
    /// Whether the compositor was asked to show it (and not yet to hide it).
    public private(set) var isShown = false
    /// The text_input_rectangle last sent.
    private var sentRectangle: IntRect?

    init(client: Client, version: UInt32, id: UInt32, surface: Surface, inputMethod: InputMethod) {
        self.surface = surface
        self.inputMethod = inputMethod
        super.init(InputPopupSurface.self, client: client, version: version, id: id)
    }

    func didAttach() {
        // A surface destroyed before its role object leaves the screen with it.
        surfaceDestruction = ResourceDestructionListener(surface) { [unowned self] in end() }
    }

    /// The enabled text input to show it by: its input method's while that is active and the
    /// popup has a buffer and a surface; nil when it is not to be shown.
    public var textInput: TextInput? {
        guard isAlive, surfaceDestruction != nil, surface.current.buffer != nil, let inputMethod, inputMethod.isActive,
              let textInput = inputMethod.textInput, textInput.surface != nil else { return nil }
        return textInput
    }

    /// Tells the client where the text input's cursor rectangle lies, in the popup surface's
    /// coordinates (once per change).
    public func setTextInputRectangle(_ rectangle: IntRect) {
        guard rectangle != sentRectangle else { return }
        sentRectangle = rectangle
        send(.textInputRectangle(x: rectangle.x, y: rectangle.y, width: rectangle.width, height: rectangle.height))
    }

    /// Asks the compositor to show it, place it again, or hide it, for its input method's state.
    func update() {
        if textInput != nil {
            isShown = true
            inputMethod?.handler?.inputPopupNeedsPlacing(self)
        } else if isShown {
            isShown = false
            inputMethod?.handler?.inputPopupHidden(self)
        }
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        }
    }

    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError) {}

    func surfaceDidCommit(_ surface: Surface) {
        update()
    }

    /// The popup or its surface goes away: hidden once, forgotten by its input method.
    private func end() {
        surfaceDestruction = nil
        update()
        inputMethod?.removed(self)
        surface.clearRole(self)
    }

    override func destroyed() {
        end()
    }
}
