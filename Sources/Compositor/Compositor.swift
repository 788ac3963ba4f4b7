import Buffers
import CPURenderer
import DisplayBackend
import Glibc
import LayerKit
import Logging
import Renderer
import Signals
import SystemCalls
import WaylandServer

/// Owns the whole compositor on one thread: the Wayland display and its globals, the outputs of a
/// display backend with their layer trees and renderers, and the mapping of client surfaces to
/// layers. Each loop iteration dispatches clients and backends, then commits LayerKit's implicit
/// transaction (so that what clients committed reaches the render trees together), then flushes
/// the clients' events.
public final class Compositor: SurfaceObserver {
    public let display: Display
    let backend: any DisplayBackend
    var outputs: [CompositorOutput] = []
    /// Displays showing another output's picture (MirrorOutput.swift); not among `outputs`.
    var mirrors: [MirrorOutput] = []
    private(set) var nodes: [ObjectIdentifier: SurfaceNode] = [:]
    private let compositorGlobal: CompositorGlobal
    private let subcompositorGlobal: SubcompositorGlobal
    /// xdg_wm_base: its handler is the window policy.
    public let shell: XdgShellGlobal
    public let seat: SeatGlobal
    /// zwp_text_input_manager_v3: the built-in input method (the on-screen keyboard) is its handler.
    public let textInputManager: TextInputManagerGlobal
    /// zwp_input_method_manager_v2, for the clients allowed to be input methods; the compositor
    /// shows their popups (Compositor+InputMethod.swift).
    let inputMethodManager: InputMethodManagerGlobal
    /// Emitted when a client input method started or stopped serving the seat
    /// (`seat.inputMethod`): a built-in keyboard steps aside while one does.
    public let inputMethodChanged = Signal<Void>()
    /// zwlr_layer_shell_v1: its handler is the window policy.
    public let layerShell: LayerShellGlobal
    /// xwayland_shell_v1, shown only to `xwaylandClient`: the X window manager looks up the
    /// surfaces Xwayland associates by serial.
    public let xwaylandShell: XwaylandShellGlobal
    /// The Wayland connection of the Xwayland that Vitrine started, while it lasts: the one
    /// client that sees xwayland_shell_v1 and whose surfaces X windows are.
    public weak var xwaylandClient: Client?
    /// Emitted when Xwayland's commit associated a surface with a serial (`Surface.xwaylandSerial`),
    /// which the X window manager matches with a window's `WL_SURFACE_SERIAL`.
    public let xwaylandSurfaceAssociated = Signal<Surface>()
    /// Space along the primary output's edges that windows keep clear of (layer surfaces'
    /// exclusive zones), set by the window policy; `windowArea` is what is left.
    public var windowAreaInsets = EdgeInsets()
    private let extensionGlobals: [AnyObject]
    /// zwp_idle_inhibit_manager_v1; the compositor is its handler (Compositor+Idle.swift).
    private let idleInhibitManager: IdleInhibitManagerGlobal
    /// zwlr_screencopy_manager_v1, for the clients allowed screen capture, and its handler.
    private let screencopyManager: ScreencopyManagerGlobal
    /// ext-image-copy-capture: told when outputs go or change size (Compositor+Outputs.swift).
    let imageCopyCaptureManager: ImageCopyCaptureManagerGlobal
    private let outputCaptureSourceManager: OutputImageCaptureSourceManagerGlobal
    /// A constant, not a lazy property: asked every loop turn, a lazy one cost a check and a retain
    /// each time.
    let screenCapture: ScreenCapture
    /// zwlr_virtual_pointer_manager_v1, for the clients allowed virtual input; the compositor is its handler.
    private let virtualPointerManager: VirtualPointerManagerGlobal
    /// How windows are sized, placed, stacked and focused (Vitrine's: `KioskWindowPolicy`); it
    /// becomes the xdg and layer shells' handler, which they hold unowned: held here, it is
    /// cleared there when replaced, and by `detachFromGlobals()` before the compositor goes.
    /// Without one, no window is shown.
    public var windowPolicy: (any WindowManagementPolicy)? {
        didSet {
            shell.handler = windowPolicy
            layerShell.handler = windowPolicy
        }
    }
    var input = InputState()
    var inputDevices = InputDeviceState()
    var idle = IdleState()
    /// The backend's descriptors being watched (they change as outputs come and go).
    private var backendSources: [FileDescriptor: EventSource] = [:]
    /// Which renderer draws the outputs.
    public let rendererKind: RendererKind
    /// The renderer whose Vulkan device every output's renderer shares (the first output's own
    /// while it has one), so that textures made for one output, dma-buf copies and VulkanLayers,
    /// show on any; replaced, with every renderer on its device, only when the device is lost
    /// (Compositor+DeviceLoss.swift). Nil when the CPU renderer draws.
    var device: Renderer?
    /// How renderers set Vulkan up (a replacement device is made the same way).
    let rendererOptions: VulkanOptions
    /// A lost device waiting to be replaced, and the observers of its replacement.
    var deviceLoss = DeviceLossState()
    /// zwp_linux_dmabuf_v1, where the device imports client dma-bufs.
    private(set) var dmabuf: (global: LinuxDmabufGlobal, imports: DmabufImports)?
    /// Mapped windows while no output exists: the next output to appear takes them.
    var windowsWithoutOutput: [SurfaceNode] = []
    /// Emitted after each change of the primary output (it was unplugged and another one took the
    /// windows, or a more important one appeared, or the last one went and `primaryRootView` is
    /// nil), once the windows are on the new one.
    public let primaryOutputChanged = Signal<Void>()
    /// Emitted after the GPU device was replaced (Compositor+DeviceLoss.swift): `VulkanLayer`s
    /// made before belong to the lost device and show nothing any more; make them again
    /// (`makeVulkanLayer`).
    public let deviceReplaced = Signal<Void>()
    /// Emitted for every wl_surface a client creates (the X window manager pairs X windows with
    /// Xwayland's surfaces as they come).
    public let surfaceCreated = Signal<Surface>()
    /// Emitted with the kind of the seat's selection (clipboard or primary) that changed, whoever
    /// set it (the X window manager bridges them to X's CLIPBOARD and PRIMARY).
    public let selectionChanged = Signal<SelectionKind>()
    /// The compositor's hold on the backend's outputs coming, going and changing mode.
    private var backendListeners: [SignalListener] = []
    private var isStopped = false
    /// Whether the surfaces' observer calls are heard: false once the compositor detached from its
    /// globals, when those left (in `deinit`, before its clients go) still name it.
    private var surfacesAreObserved = true
    /// Commits changed what may be under the pointer: it is found again once, when this loop turn's
    /// requests are handled (a hit test per commit costs a client with thousands of subsurfaces
    /// quadratic time).
    private var pointerNeedsRefocus = false
    /// Something that decides which windows are suspended changed (Compositor+Suspension.swift).
    var windowVisibilityNeedsUpdate = false
    /// Whether a view's gesture recognizer or touch may act on time alone (Compositor+Views.swift):
    /// set by a touch on a view (the only way one gets in), cleared by the turn that finds none.
    var viewsWaitOnTime = false
    /// The time (monotonic ns) of the last turn that did not tell the views, which they catch up
    /// to when a touch comes: 0 for none.
    var viewsSkippedTime: UInt64 = 0
    /// Emitted with an output's index each time a frame reached its screen (the kiosk shell's
    /// readiness: the first one means Vitrine is up).
    public let framePresented = Signal<Int>()
    /// Called with a client's process id when it left an xdg_wm_base ping unanswered for
    /// `pingTimeoutMilliseconds`, or an X client's window left `_NET_WM_PING` so (the X window
    /// manager calls it): the kiosk shell restarts a hung app.
    public var clientUnresponsive: ((Int32) -> Void)?
    /// Who may bind the privileged globals (Compositor+Privileges.swift); none by default.
    public var privilegeRules: [PrivilegeRule] = []
    /// Clients that bind whatever xdg_wm_base version is advertised but are aborted by libwayland
    /// on wm_capabilities (built against xdg-shell 4 or without a handler for it): they see
    /// xdg_wm_base at version 4, everyone else at 6. Takes effect for registries made afterwards.
    public var clientsWithoutWindowCapabilities: [PrivilegeRule.Subject] = []
    /// The last time each client process committed a new buffer (Compositor+ClientHealth.swift).
    var lastNewBuffer: [Int32: UInt64] = [:]
    /// The loop's clock: a turn reads CLOCK_MONOTONIC once, for all that asks (frames asked for
    /// and started, new buffers, the views, the loop's own deadlines), or not at all.
    public let loopClock = LoopClock()
    /// Where `noteNewBuffer` last wrote into `lastNewBuffer`, and for which process: valid while
    /// the dictionary gains or loses no key, which only `noteNewBuffer` does (and then sets it anew).
    var lastNewBufferSlot: (process: Int32, index: Dictionary<Int32, UInt64>.Index)?
    /// Surfaces whose buffers count as another process's than their client's (Compositor+ClientHealth.swift).
    var bufferProcesses: [ObjectIdentifier: Int32] = [:]

    let logger: Logger

    /// Creates the display and globals and takes over `backend`'s outputs, each with its own
    /// renderer of `renderer`'s kind (for Vulkan, on one shared device made with `rendererOptions`).
    public init(
        backend: any DisplayBackend, renderer: RendererKind = .vulkan, rendererOptions: VulkanOptions = VulkanOptions(),
        logger: Logger = Logger(label: "vitrine")
    ) throws {
        self.backend = backend
        self.logger = logger
        display = try Display(shmFormats: PixelFormat.readable)
        display.clientRefusal = { [logger] change in
            switch change {
            case .started(let error):
                logger.error("\(error): refusing new clients until descriptors free up; connected clients are served")
            case .ended(let refused):
                logger.notice("accepting clients again; \(refused) connection(s) were refused meanwhile")
            }
        }
        compositorGlobal = CompositorGlobal(display: display)
        subcompositorGlobal = SubcompositorGlobal(display: display)
        shell = XdgShellGlobal(display: display, offeringVersionWithoutCapabilities: true)
        seat = SeatGlobal(display: display, name: "seat0", capabilities: [.pointer, .keyboard, .touch], keymapLayout: "us")
        let otherGlobals: [AnyObject] = [
            DataDeviceManagerGlobal(display: display),
            PrimarySelectionDeviceManagerGlobal(display: display),
            VirtualKeyboardManagerGlobal(display: display),
            ViewporterGlobal(display: display),
            PresentationGlobal(display: display),
            SinglePixelBufferManagerGlobal(display: display),
            FractionalScaleManagerGlobal(display: display),
            XdgDecorationGlobal(display: display),
            XdgOutputManagerGlobal(display: display),
            XdgActivationGlobal(display: display),
            SecurityContextManagerGlobal(display: display),
        ]
        idleInhibitManager = IdleInhibitManagerGlobal(display: display)
        textInputManager = TextInputManagerGlobal(display: display)
        inputMethodManager = InputMethodManagerGlobal(display: display)
        layerShell = LayerShellGlobal(display: display)
        xwaylandShell = XwaylandShellGlobal(display: display)
        extensionGlobals = otherGlobals
        screencopyManager = ScreencopyManagerGlobal(display: display)
        imageCopyCaptureManager = ImageCopyCaptureManagerGlobal(display: display)
        screenCapture = ScreenCapture(imageCopyCaptureManager: imageCopyCaptureManager)
        outputCaptureSourceManager = OutputImageCaptureSourceManagerGlobal(display: display)
        virtualPointerManager = VirtualPointerManagerGlobal(display: display)
        self.rendererOptions = rendererOptions
        rendererKind = renderer
        if renderer == .vulkan {
            let device = try Renderer(options: rendererOptions)
            device.prepareWindowPipeline()
            self.device = device
            dmabuf = DmabufImports.advertise(on: display, device: device, logger: logger)
            // Displays lay their buffers out in a tiled layout the device renders into, where one fits.
            backend.useRenderTargetFormats(device.renderTargetFormats)
        }
        screenCapture.compositor = self
        for output in backend.outputs {
            if case .mirror(let source) = output.layout {
                addMirror(output, of: source)
                continue
            }
            attach(output, renderer: try makeOutputRenderer())
        }
        compositorGlobal.surfaceCreated = { [unowned self] surface in
            // Unowned there: every client, so every surface, is gone before the compositor is
            // (`detachFromGlobals()`).
            surface.observer = self
            surfaceCreated.emit(surface)
        }
        xwaylandShell.surfaceAssociated = { [unowned self] surface in xwaylandSurfaceAssociated.emit(surface) }
        // Unowned there, cleared by `detachFromGlobals()` before the compositor goes.
        seat.handler = self
        idleInhibitManager.handler = self
        inputMethodManager.handler = self
        filterPrivilegedGlobals()
        screencopyManager.handler = screenCapture
        imageCopyCaptureManager.handler = screenCapture
        virtualPointerManager.handler = self
        try watchBackend()
        backendListeners = [
            backend.outputAdded.listen { [unowned self] output in outputAppeared(output) },
            backend.outputRemoved.listen { [unowned self] output in outputDisappeared(output) },
            backend.outputModeChanged.listen { [unowned self] output in outputModeChanged(output) },
        ]
        Transaction.flush()
    }

    deinit {
        // Released without `shutdown()`: being deinitialized, it may not be handed to the window
        // policy or its handlers while its clients are disconnected, so they stop calling it first
        // (weak references to it read nil here once, to the same effect).
        detachFromGlobals()
        shutdown()
    }

    /// Disconnects every client while the compositor is whole (their surfaces unmap through the
    /// window policy), then detaches it from its globals and stops watching the backend. Safe to
    /// call more than once.
    public func shutdown() {
        display.disconnectAllClients()
        detachFromGlobals()
        backendListeners = []
        backendSources.values.forEach { $0.remove() }
        backendSources = [:]
        inputDevices.sources.forEach { $0.remove() }
        inputDevices.sources = []
        inputDevices.contexts = []
    }

    /// Clears what refers to the compositor, or to what it owns, without holding it: its globals'
    /// handlers, the window policy's place as the shells' handler, the observer of surfaces made
    /// from now on. Those references are unowned rather than weak (a weak reference gives its object
    /// a side table, which puts every retain and release of it on the runtime's slow path: the
    /// compositor is retained several times a frame); this is what makes them safe. Called once no
    /// client is left (`shutdown()`) or before the last ones are disconnected (`deinit`), so no
    /// surface or other client object calls the compositor after it; a global can outlive the
    /// compositor (`seat`, `shell` and `layerShell` are public) but then no longer names it.
    private func detachFromGlobals() {
        windowPolicy = nil
        compositorGlobal.surfaceCreated = nil
        surfacesAreObserved = false
        seat.handler = nil
        idleInhibitManager.handler = nil
        inputMethodManager.handler = nil
        virtualPointerManager.handler = nil
        screencopyManager.handler = nil
        imageCopyCaptureManager.handler = nil
    }

    /// Listens for clients on `name` (or the first free wayland-N) in `runtimeDirectory` (nil:
    /// `$XDG_RUNTIME_DIR`); returns the name.
    public func listen(socketName: String? = nil, in runtimeDirectory: String? = nil) throws -> String {
        try display.addSocket(named: socketName, in: runtimeDirectory)
    }

    /// Runs one loop iteration, waiting up to `timeoutMilliseconds` for something to happen.
    public func dispatch(timeoutMilliseconds: Int32) throws {
        loopClock.nextTurn()
        try display.eventLoop.dispatch(timeoutMilliseconds: timeoutMilliseconds)
        // Asked here, without a call every turn, as `inputFlushed()` below is.
        if deviceLoss.cause != nil { replaceLostDevice() }
        if pointerNeedsRefocus {
            pointerNeedsRefocus = false
            refocusPointer()
        }
        if windowVisibilityNeedsUpdate { updateSuspendedToplevels() }
        if outputs.contains(where: \.cursor.clientNeedsPlacing) {
            withoutAnimation { for output in outputs { output.cursor.placeClientCursor() } }
        }
        if screenCapture.watchesPointer { screenCapture.pointerIs(at: input.pointer) }
        advanceViews()
        Transaction.flush()
        display.flushClients()
        if inputDevices.readNanoseconds != nil { inputFlushed() }
    }

    /// Runs the loop until `stop()` is called or `condition` becomes true (checked each iteration).
    /// Between iterations the loop sleeps until something happens (a client, input, a frame, a
    /// signal, a child's exit through its pidfd) or `nextDeadline` (monotonic ns, asked after
    /// `condition`; `loopClock` is the time they see) passes; with no deadline it sleeps until something happens, so whatever
    /// `condition` checks must come with an event or a deadline. An idle kiosk does not wake.
    public func run(until condition: () -> Bool = { false }, nextDeadline: () -> UInt64? = { nil }) throws {
        isStopped = false
        while !isStopped && !condition() {
            try dispatch(timeoutMilliseconds: Self.waitMilliseconds(until: nextDeadline(), now: loopClock.now))
        }
    }

    /// How long the loop may sleep at `now` to wake at `deadline` or after it (rounded up to the
    /// next millisecond, at most `Int32.max`); 0 once it passed, -1 (until something happens)
    /// without one. The clock (`now`) is read only for a deadline: a kiosk with nothing due, the
    /// common turn, has none.
    static func waitMilliseconds(until deadline: UInt64?, now readNow: @autoclosure () -> UInt64) -> Int32 {
        guard let deadline else { return -1 }
        let now = readNow()
        guard deadline > now else { return 0 }
        let milliseconds = (deadline - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, UInt64(Int32.max)))
    }

    public func stop() {
        isStopped = true
    }

    /// Whether every output shows its latest commit with nothing animating.
    public var outputsAreSettled: Bool { outputs.allSatisfy(\.isSettled) }

    // MARK: - Surfaces

    /// Watches the backend's descriptors and its outputs' frame timers as they are now: new ones
    /// are added, those that went (with an unplugged output, still open at this point) are
    /// removed. A frame timer's expiry goes straight to its scheduler.
    func watchBackend() throws {
        let schedulers = Dictionary(backend.outputs.map { ($0.frameScheduler.timer.fileDescriptor, $0.frameScheduler) }) { a, _ in a }
        let current = Set(backend.fileDescriptors).union(schedulers.keys)
        for (fd, source) in backendSources where !current.contains(fd) {
            source.remove()
            backendSources[fd] = nil
        }
        for fd in current where backendSources[fd] == nil {
            // The scheduler held by its timer's source, which goes with its output (removed
            // above): a weak reference would give it a side table, putting every retain and
            // release of it on the runtime's slow path, several times a frame.
            let handler: (FileDescriptorEvents) -> Void
            if let scheduler = schedulers[fd] {
                // Its frames take their times from this loop's turns.
                scheduler.loopClock = loopClock
                handler = { _ in scheduler.timerExpired() }
            } else {
                handler = { [unowned self] _ in backend.dispatch(fileDescriptor: fd) }
            }
            backendSources[fd] = try display.eventLoop.addFileDescriptor(fd, events: .readable, handler: handler)
        }
    }

    /// The first frame that shows a surface tells its client which output it is on, at what scale
    /// and with what transform.
    func surfaceShown(_ surface: Surface, on output: CompositorOutput) {
        guard let node = node(for: surface), node.enteredOutputIdentity != ObjectIdentifier(output.global) else { return }
        if let previous = node.enteredOutput { surface.leave(previous) }
        node.enteredOutput = output.global
        surface.enter(output.global)
        surface.sendPreferredScale(output.global.state.scaleFactor)
        surface.sendPreferredBuffer(scale: output.global.state.scale, transform: output.global.state.transform)
    }

    /// The surfaces that were told (wl_surface.enter) they are on `output`.
    func nodesShown(on output: Output) -> [SurfaceNode] {
        nodes.values.filter { $0.enteredOutput === output }
    }

    /// The node a surface keeps as its `userData` (set by `makeNode`): found without hashing,
    /// since every commit and every frame asks.
    func node(for surface: Surface) -> SurfaceNode? {
        surface.userData as? SurfaceNode
    }

    /// A renderer for a new output: with Vulkan, on the shared device (the device's own renderer
    /// when no output draws with it).
    func makeOutputRenderer() throws -> any LayerTreeRenderer {
        guard let device else { return CPURenderer() }
        return outputs.contains { $0.renderer === device } ? try Renderer(sharingDeviceOf: device) : device
    }

    func makeNode(for surface: Surface) -> SurfaceNode {
        if let existing = node(for: surface) { return existing }
        let made = SurfaceNode(surface: surface)
        nodes[ObjectIdentifier(surface)] = made
        surface.userData = made
        return made
    }

    /// The protocols (and versions) Vitrine advertises, as WLCS's integration descriptor lists them.
    public static let advertisedProtocols: [(name: String, version: UInt32)] = [
        ("wl_compositor", 6), ("wl_subcompositor", 1), ("wl_shm", 2), ("wl_output", 4), ("wl_seat", 9),
        ("wl_data_device_manager", 3), ("xdg_wm_base", 6), ("wp_viewporter", 1), ("wp_presentation", 1),
        ("wp_single_pixel_buffer_manager_v1", 1), ("wp_fractional_scale_manager_v1", 1),
        ("zxdg_decoration_manager_v1", 1), ("zxdg_output_manager_v1", 3), ("xdg_activation_v1", 1),
        ("zwp_idle_inhibit_manager_v1", 1), ("zwp_text_input_manager_v3", 1),
        ("zwp_primary_selection_device_manager_v1", 1), ("zwlr_layer_shell_v1", LayerShellGlobal.version),
        ("zwp_virtual_keyboard_manager_v1", 1), ("zwlr_screencopy_manager_v1", 3),
        ("ext_image_copy_capture_manager_v1", 1), ("ext_output_image_capture_source_manager_v1", 1), ("zwlr_virtual_pointer_manager_v1", 2),
        ("wp_security_context_manager_v1", 1),
        ("zwp_input_method_manager_v2", 1),
    ]

    public func surfaceDidCommit(_ surface: Surface) {
        if surface.current.bufferWasAttached, surface.current.buffer != nil {
            noteNewBuffer(from: bufferProcesses[ObjectIdentifier(surface)] ?? surface.client.processID)
        }
        // Client content never animates implicitly: what a client commits is what the next frame shows.
        Transaction.begin(disablingActions: true)
        let revision = Transaction.revisionExceptContents
        let node = makeNode(for: surface)
        let inputRegion = node.inputRegion
        let wasOpaque = node.showsOpaquePixels
        node.apply(dmabufs: dmabuf?.imports)
        // Not escaping: no reference counted for the closure's `self`.
        node.restack { member in
            member.subsurface == nil ? nil : self.makeNode(for: member)
        }
        // The parent's commit applies its subsurfaces' pending positions, whether or not they
        // committed themselves. A surface without subsurfaces (its stack is itself) skips the walk,
        // which retained the list and the surface to find none.
        if surface.stack.count > 1 {
            for member in surface.stack where member !== surface {
                if let position = member.subsurface?.position, let child = self.node(for: member) {
                    child.container.position = Point(x: Double(position.x), y: Double(position.y))
                }
            }
        }
        windowPolicy?.surfaceCommitted(surface)
        for output in outputs { output.cursor.surfaceCommitted(node) }
        // A new size, place, input region, opacity or subsurface may change what is under the
        // pointer, and which windows are covered; new contents alone (the common commit) do not.
        if Transaction.revisionExceptContents != revision || node.inputRegion != inputRegion || node.showsOpaquePixels != wasOpaque {
            pointerNeedsRefocus = true
            windowVisibilityNeedsUpdate = true
        }
        Transaction.commit()
        for output in outputs where output.shows(node) { output.scheduleFrame() }
    }

    public func surfaceWillBeDestroyed(_ surface: Surface) {
        guard surfacesAreObserved else { return }
        bufferProcesses[ObjectIdentifier(surface)] = nil
        surfaceLeftTheScreen(surface)
        guard let node = nodes.removeValue(forKey: ObjectIdentifier(surface)) else { return }
        surface.userData = nil
        node.surfaceDestroyed()
        Transaction.begin(disablingActions: true)
        for output in outputs {
            output.removeWindow(node)
            output.cursor.forget(node)
        }
        windowsWithoutOutput.removeAll { $0 === node }
        node.container.removeFromSuperlayer()
        // Its subsurfaces and popups leave the screen with it, all at once: a disconnecting client
        // destroys its surfaces one by one, and removing each from a parent with thousands of
        // sublayers would cost quadratic time.
        node.container.sublayers = []
        Transaction.commit()
    }
}
