/// What wl_output tells clients about a display.
public struct OutputDescription: Equatable, Sendable {
    public var name: String
    public var description: String
    public var make: String
    public var model: String
    /// Position in the compositor's global space (logical pixels).
    public var x: Int32
    public var y: Int32
    public var physicalWidthMillimetres: Int32
    public var physicalHeightMillimetres: Int32
    /// The current mode in hardware pixels and millihertz.
    public var modeWidth: Int32
    public var modeHeight: Int32
    public var refreshMillihertz: Int32
    /// The output's scale factor (contentsScale of what it shows; may be fractional, e.g. 1.5).
    public var scaleFactor: Double
    /// The integer scale wl_output reports: the scale factor rounded up, so clients that only know
    /// integer scales render at least as sharp as needed (fractional scales go through wp_fractional_scale).
    public var scale: Int32 { Int32(scaleFactor.rounded(.up)) }
    public var transform: BufferTransform

    /// The output's size in the global (logical) space: the mode after transform, over the scale factor.
    public var logicalWidth: Int32 {
        Int32((Double(transform.swapsAxes ? modeHeight : modeWidth) / scaleFactor).rounded())
    }
    public var logicalHeight: Int32 {
        Int32((Double(transform.swapsAxes ? modeWidth : modeHeight) / scaleFactor).rounded())
    }

    public init(
        name: String, description: String, make: String = "Vitrine", model: String = "Virtual",
        x: Int32 = 0, y: Int32 = 0, physicalWidthMillimetres: Int32 = 0, physicalHeightMillimetres: Int32 = 0,
        modeWidth: Int32, modeHeight: Int32, refreshMillihertz: Int32, scaleFactor: Double = 1, transform: BufferTransform = .normal
    ) {
        self.name = name
        self.description = description
        self.make = make
        self.model = model
        self.x = x
        self.y = y
        self.physicalWidthMillimetres = physicalWidthMillimetres
        self.physicalHeightMillimetres = physicalHeightMillimetres
        self.modeWidth = modeWidth
        self.modeHeight = modeHeight
        self.refreshMillihertz = refreshMillihertz
        self.scaleFactor = scaleFactor
        self.transform = transform
    }
}

/// A wl_output global (version 4) for one display; every bound resource hears about changes.
public final class Output {
    private var global: Global?
    private var bound: [OutputResource] = []
    public private(set) var state: OutputDescription
    /// Extensions (zxdg_output) that follow changes of the description.
    var updateHandlers: [() -> Void] = []

    public init(display: Display, description: OutputDescription) {
        state = description
        global = Global(display: display, interface: OutputResource.interface, version: 4) { [weak self] client, version, id in
            guard let self else { return }
            let resource = OutputResource(client: client, version: version, id: id, owner: self)
            bound.append(resource)
            resource.sendAll(state)
        }
    }

    /// Changes the description and tells every client: wl_output's events, then the extensions'
    /// (zxdg_output's logical size), then one `done` that applies them together.
    public func update(_ description: OutputDescription) {
        state = description
        for resource in bound { resource.sendAll(description, done: false) }
        for handler in updateHandlers { handler() }
        for resource in bound { resource.send(.done) }
    }

    /// Withdraws the global (the display was unplugged); bound resources stay inert.
    public func remove() {
        global?.remove()
        global = nil
    }

    /// Withdraws the global as an unplugged display's: clients hear wl_registry.global_remove now,
    /// the global is destroyed a few seconds later (see `Global.withdraw`); bound resources stay inert.
    public func withdraw(destroyingAfterMilliseconds milliseconds: Int32 = 5000) {
        global?.withdraw(destroyingAfterMilliseconds: milliseconds)
    }

    /// Whether clients were told the output is gone.
    public var isWithdrawn: Bool { global?.isWithdrawn ?? true }

    /// The client's resources bound to this output (for wl_surface.enter/leave and friends).
    func resources(of client: Client) -> [OutputResource] {
        bound.filter { $0.client === client && $0.isAlive }
    }

    fileprivate func forget(_ resource: OutputResource) {
        bound.removeAll { $0 === resource }
    }
}

/// One client's binding of an output.
final class OutputResource: Resource, RequestHandler {
    private(set) weak var owner: Output?

    init(client: Client, version: UInt32, id: UInt32, owner: Output) {
        self.owner = owner
        super.init(OutputResource.self, client: client, version: version, id: id)
    }

    func sendAll(_ state: OutputDescription, done: Bool = true) {
        send(.geometry(x: state.x, y: state.y, physicalWidth: state.physicalWidthMillimetres,
                       physicalHeight: state.physicalHeightMillimetres, subpixel: .unknown, make: state.make,
                       model: state.model, transform: state.transform.protocolValue))
        send(.mode(flags: [.current, .preferred], width: state.modeWidth, height: state.modeHeight, refresh: state.refreshMillihertz))
        send(.scale(factor: state.scale))
        send(.name(name: state.name))
        send(.description(description: state.description))
        if done { send(.done) }
    }

    func handle(_ request: Request) {
        switch request {
        case .release: destroy()
        }
    }

    override func destroyed() {
        owner?.forget(self)
    }
}
