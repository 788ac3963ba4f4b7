import DisplayBackend
import LayerKit
import Renderer
import Signals
import SystemCalls
import Views
import WaylandServer

/// One output as the compositor drives it: the backend's display, its wl_output global, the root
/// layer of what it shows (in logical points; rendered at the output's scale factor), its renderer
/// and its frame cycle.
final class CompositorOutput: FrameInFlight.Owner {
    let backend: any BackendOutput
    let global: Output
    /// The logical output: windows, overlays and the pointer live in its coordinates.
    let root = Layer()
    /// The panel as it scans out (the mode in points); it holds `root`, turned by the output's
    /// transform, so a rotated panel needs nothing else from the renderer, and a position on the
    /// panel (a touch) converts to the logical output through the layer tree.
    let scanout = Layer()
    /// The pointer cursor and drag icons, above the windows.
    let cursor: PointerCursor
    /// The compositor's own views (the shell's overlays, an on-screen keyboard), above the windows
    /// and below the cursor, in logical points; they get input before the clients under them.
    let rootView: RootView
    let dispatcher: EventDispatcher
    /// Hosts the windows' views, bottom to top, under the compositor's own views.
    let windowsView: View
    /// Host layer-shell surfaces' views: the background and bottom layers below `windowsView`,
    /// top and overlay above it. Hidden while empty.
    let layerViews: [LayerSurface.Layer: View]
    /// Hosts the popups of background, bottom and top layer surfaces, above the top layer and
    /// under the overlay layer (as wlroots shows them): a menu of a panel under the windows is
    /// not hidden by them, and nothing covers an overlay (a lock screen). Hidden while empty.
    let layerPopupsView: View
    /// The views of windows, layer surfaces and the popups in `layerPopupsView`, by their node.
    private var windowViews: [ObjectIdentifier: SurfaceView] = [:]
    /// Layer surfaces shown on this output (their containers are in `layerViews`).
    private(set) var layerSurfaces: [SurfaceNode] = []
    /// Popups shown in `layerPopupsView`, each in a view at its layer surface's origin (by the
    /// layer surface's node), so that the position its policy gives it is relative to that surface.
    private(set) var layerPopups: [SurfaceNode] = []
    private var layerPopupOrigins: [ObjectIdentifier: (parent: SurfaceNode, view: View)] = [:]
    let context: RenderContext
    /// Draws the output; `VulkanLayer`s shown on it render through its device. Replaced only
    /// when the device is lost (`replaceRenderer`).
    private(set) var renderer: any LayerTreeRenderer
    /// Valid display links, called before each frame is drawn.
    private var displayLinks: [DisplayLink] = []
    /// Set while display links run: what they present shows in the frame being drawn.
    private var isRunningDisplayLinks = false
    /// Windows shown on this output, bottom to top (their containers are the root's sublayers).
    private(set) var windows: [SurfaceNode] = []
    /// Frame callbacks of the surfaces drawn into the frame on its way to the screen.
    private let callbacksInFlight = FrameCallbacks()
    private var lastTree: RenderTree?
    /// The frame drawn last, until the GPU is done with it and it is committed.
    private var frameInFlight: FrameInFlight?
    /// Whether a frame is on the GPU, to be committed once it is done.
    var hasFrameInFlight: Bool { frameInFlight?.isWaiting ?? false }
    /// Where the frames' completions are watched.
    private let eventLoop: EventLoop
    /// The surfaces the frame on its way shows, until it is presented (emptied then, its storage
    /// kept for the next frame's). Held, not weakly referenced: a weak reference gives a surface a
    /// side table, which sends every retain and release of it through the runtime's slow path. A
    /// surface destroyed meanwhile has no frame callbacks left, as one released had none.
    private var shownInFlight: [Surface] = []
    /// Where `withSampledSurfaces` lists a frame's surfaces, kept for the next frame's.
    private var sampledStorage: (surfaces: [Surface], seen: Set<ObjectIdentifier>) = ([], [])
    /// Errors while drawing (shown once in the log, the frame is skipped).
    var onRenderError: ((Error) -> Void)?
    /// A layer drawn without its contents, whose texture could not be made (once per image).
    var onContentsUnavailable: ((ContentsFailure) -> Void)?
    /// Called with each surface a frame is about to show (output enter, preferred scale).
    var onSurfaceShown: ((Surface) -> Void)?
    private var feedbacksInFlight: [PresentationFeedback] = []
    /// The output's hold on its display's presentations, until `stop()`.
    private var presentedListener: SignalListener?
    /// Called after each frame reached the screen, its callbacks and feedback sent.
    var onFramePresented: (() -> Void)?
    /// Called when the cursor plane's update reached the screen (the pointer moved on it).
    var onCursorPresented: (() -> Void)?
    /// When the last frame reached the screen (CLOCK_MONOTONIC), or 0 before the first.
    private(set) var lastPresentationNanoseconds: UInt64 = 0
    /// Called with the tree of each frame drawn and handed to the display (what mirrors show).
    var onFrameDrawn: ((RenderTree) -> Void)?
    /// Whether the last frame was a client's buffer scanned out directly (DirectScanout.swift).
    private(set) var isScanningOutDirectly = false
    /// Whether the layers showed the top window alone when last looked at (DirectScanout.swift).
    var scanoutLayerVerdict: ScanoutLayerVerdict?
    /// A window's buffer that the display refused to scan out at the commit (after its test took
    /// it): composed until the window shows another.
    weak var refusedScanoutBuffer: Buffer?
    /// Called when frames start or stop being a client's buffer scanned out directly.
    var onDirectScanoutChanged: ((Bool) -> Void)?
    let nodeLookup: (Surface) -> SurfaceNode?

    init(
        backend: any BackendOutput, display: Display, renderer: any LayerTreeRenderer, x: Int32, y: Int32, nodeLookup: @escaping (Surface) -> SurfaceNode?
    ) {
        self.backend = backend
        self.renderer = renderer
        eventLoop = display.eventLoop
        self.nodeLookup = nodeLookup
        global = Output(display: display, description: OutputDescription(
            name: backend.name, description: backend.description, x: x, y: y,
            modeWidth: Int32(backend.mode.width), modeHeight: Int32(backend.mode.height),
            refreshMillihertz: Int32(backend.mode.refreshMillihertz), scaleFactor: backend.scaleFactor,
            transform: BufferTransform(rawValue: Int32(backend.transform.rawValue)) ?? .normal))
        scanout.name = "\(backend.name) scanout"
        scanout.anchorPoint = .zero
        scanout.bounds = Rect(
            x: 0, y: 0, width: Double(backend.mode.width) / backend.scaleFactor,
            height: Double(backend.mode.height) / backend.scaleFactor)
        root.name = backend.name
        root.bounds = Rect(x: 0, y: 0, width: Double(global.state.logicalWidth), height: Double(global.state.logicalHeight))
        root.position = Point(x: scanout.bounds.width / 2, y: scanout.bounds.height / 2)
        root.transform = Transform3D(backend.transform.contentTransform)
        root.backgroundColor = Color(white: 0)
        root.contentsScale = backend.scaleFactor
        cursor = PointerCursor(scale: backend.scaleFactor, hardware: backend as? any HardwareCursorOutput)
        rootView = OutputRootView(frame: root.bounds, scaleFactor: backend.scaleFactor)
        rootView.layer.name = "views"
        rootView.layer.zPosition = 500_000
        dispatcher = EventDispatcher(root: rootView)
        windowsView = PassThroughView(frame: rootView.bounds)
        windowsView.layer.name = "windows"
        var layerViews: [LayerSurface.Layer: View] = [:]
        for layer in LayerSurface.Layer.allCases {
            let view = PassThroughView(frame: rootView.bounds)
            view.layer.name = "\(layer) layer"
            view.isHidden = true
            layerViews[layer] = view
        }
        self.layerViews = layerViews
        layerPopupsView = PassThroughView(frame: rootView.bounds)
        layerPopupsView.layer.name = "layer popups"
        layerPopupsView.isHidden = true
        for layer in [LayerSurface.Layer.background, .bottom] { rootView.addSubview(layerViews[layer]!) }
        rootView.addSubview(windowsView)
        rootView.addSubview(layerViews[.top]!)
        rootView.addSubview(layerPopupsView)
        rootView.addSubview(layerViews[.overlay]!)
        root.addSublayer(rootView.layer)
        root.addSublayer(cursor.overlay)
        scanout.addSublayer(root)
        context = RenderContext(rootLayer: scanout)
        context.onCommit = { [backend] _ in backend.scheduleFrame() }
        self.backend.frameScheduler.onFrame = { [unowned self] request in drawFrame(request) }
        // The listener is this output's, cancelled when it goes: it never runs without it.
        // unowned(unsafe): `unowned` cost a checked retain and a release every presented frame.
        presentedListener = backend.presented.listen { [unowned(unsafe) self] timing in framePresented(timing) }
        if let hardware = backend as? any HardwareCursorOutput {
            hardware.onCursorPresented = { [unowned self] timing in cursorPresented(timing) }
            // self.backend: the parameter `backend` is the output that keeps this closure.
            hardware.onCursorPlaneLost = { [unowned self] in
                cursor.hardwareLost()
                self.backend.scheduleFrame()
            }
        }
        observe(renderer)
    }

    private func observe(_ renderer: any LayerTreeRenderer) {
        (renderer as? Renderer)?.onDrawablePresented = { [unowned self] in
            if !isRunningDisplayLinks { backend.scheduleFrame() }
        }
        renderer.onContentsUnavailable = { [unowned self] failure in onContentsUnavailable?(failure) }
    }

    /// Draws with `new` from now on (the old one's device was lost): the scanout buffers' imports
    /// go with the old renderer, and the next frame is drawn whole.
    func replaceRenderer(with new: any LayerTreeRenderer) {
        (renderer as? Renderer)?.onDrawablePresented = nil
        renderer.onContentsUnavailable = nil
        renderer = new
        observe(new)
        backend.scheduleFrame()
    }

    /// The display went away: its frame cycle ends. Frame callbacks waiting for a frame it will
    /// never show are answered now (their clients draw again, for the output that takes their
    /// windows); presentation feedback waiting for it is discarded.
    func stop() {
        backend.frameScheduler.onFrame = nil
        cancelFrameInFlight()
        presentedListener = nil
        onFrameDrawn = nil
        context.onCommit = nil
        (renderer as? Renderer)?.onDrawablePresented = nil
        displayLinks = []
        shownInFlight = []
        for surface in visibleSurfaces() { surface.moveFrameCallbacks(to: callbacksInFlight) }
        callbacksInFlight.done(UInt32(truncatingIfNeeded: monotonicNanoseconds() / 1_000_000))
        let feedbacks = feedbacksInFlight
        feedbacksInFlight = []
        for feedback in feedbacks { feedback.discarded() }
    }

    /// The frame on the GPU, if any, is not to be committed.
    func cancelFrameInFlight() {
        frameInFlight?.cancel()
        frameInFlight = nil
    }

    func addDisplayLink(_ callback: @escaping (DisplayLink) -> Void) -> DisplayLink {
        let link = DisplayLink(
            duration: Double(backend.mode.refreshNanoseconds) / 1e9, callback: callback,
            detach: { [weak self] link in self?.displayLinks.removeAll { $0 === link } })
        displayLinks.append(link)
        backend.scheduleFrame()
        return link
    }

    /// The output's size in logical points.
    var logicalSize: Size { root.bounds.size }

    /// A position on the panel, normalized to 0…1 across the scanout as an absolute input device
    /// reports it, in logical points.
    func logicalPoint(normalizedX x: Double, y: Double) -> Point {
        scanout.convert(Point(x: x * scanout.bounds.width, y: y * scanout.bounds.height), to: root)
    }

    func addWindow(_ node: SurfaceNode) {
        guard !windows.contains(where: { $0 === node }) else { return }
        windows.append(node)
        let view = SurfaceView(node: node, lookup: nodeLookup)
        windowViews[ObjectIdentifier(node)] = view
        windowsView.addSubview(view)
    }

    func removeWindow(_ node: SurfaceNode) {
        windows.removeAll { $0 === node }
        windowViews.removeValue(forKey: ObjectIdentifier(node))?.removeFromSuperview()
    }

    /// Shows `node` on `layer` (moving it there from another layer), above that layer's others.
    func addLayerSurface(_ node: SurfaceNode, on layer: LayerSurface.Layer) {
        let view = windowViews[ObjectIdentifier(node)] ?? SurfaceView(node: node, lookup: nodeLookup)
        windowViews[ObjectIdentifier(node)] = view
        if !layerSurfaces.contains(where: { $0 === node }) { layerSurfaces.append(node) }
        guard let host = layerViews[layer], view.superview !== host else { return }
        let previous = view.superview
        host.addSubview(view)
        host.isHidden = false
        if let previous, previous.subviews.isEmpty { previous.isHidden = true }
    }

    func removeLayerSurface(_ node: SurfaceNode) {
        guard layerSurfaces.contains(where: { $0 === node }) else { return }
        layerSurfaces.removeAll { $0 === node }
        guard let view = windowViews.removeValue(forKey: ObjectIdentifier(node)) else { return }
        let host = view.superview
        view.removeFromSuperview()
        if let host, host.subviews.isEmpty { host.isHidden = true }
    }

    /// Shows `popup`, a popup of the layer surface `parent`, in `layerPopupsView` above the
    /// popups shown there before.
    func addLayerPopup(_ popup: SurfaceNode, of parent: SurfaceNode) {
        guard !layerPopups.contains(where: { $0 === popup }) else { return }
        let key = ObjectIdentifier(parent)
        let origin = layerPopupOrigins[key]?.view ?? PassThroughView(frame: .zero)
        layerPopupOrigins[key] = (parent, origin)
        let view = SurfaceView(node: popup, lookup: nodeLookup)
        windowViews[ObjectIdentifier(popup)] = view
        layerPopups.append(popup)
        origin.addSubview(view)
        layerPopupsView.addSubview(origin)
        layerPopupsView.isHidden = false
        moveLayerPopups(of: parent)
    }

    func removeLayerPopup(_ popup: SurfaceNode) {
        guard layerPopups.contains(where: { $0 === popup }) else { return }
        layerPopups.removeAll { $0 === popup }
        windowViews.removeValue(forKey: ObjectIdentifier(popup))?.removeFromSuperview()
        for (key, entry) in layerPopupOrigins where entry.view.subviews.isEmpty {
            entry.view.removeFromSuperview()
            layerPopupOrigins[key] = nil
        }
        layerPopupsView.isHidden = layerPopupsView.subviews.isEmpty
    }

    /// The popups of the layer surface `parent` shown in `layerPopupsView`, oldest first.
    func layerPopups(of parent: SurfaceNode) -> [SurfaceNode] {
        guard let origin = layerPopupOrigins[ObjectIdentifier(parent)]?.view else { return [] }
        return layerPopups.filter { windowViews[ObjectIdentifier($0)]?.superview === origin }
    }

    /// Puts the popups of the layer surface `parent` where it is now.
    func moveLayerPopups(of parent: SurfaceNode) {
        guard let origin = layerPopupOrigins[ObjectIdentifier(parent)]?.view else { return }
        origin.frame = Rect(origin: parent.container.convert(Point.zero, to: layerPopupsView.layer), size: parent.container.bounds.size)
    }

    func raiseWindow(_ node: SurfaceNode) {
        guard windows.last !== node, windows.contains(where: { $0 === node }), let view = windowViews[ObjectIdentifier(node)] else { return }
        windows.removeAll { $0 === node }
        windows.append(node)
        windowsView.addSubview(view)
    }

    /// The view hosting `node`'s window or layer surface (the one that `node`, or an ancestor of
    /// its, is).
    func windowView(containing node: SurfaceNode) -> SurfaceView? {
        var layer: Layer? = node.container
        while let current = layer {
            if let view = (windows + layerSurfaces + layerPopups).first(where: { $0.container === current }).flatMap({ windowViews[ObjectIdentifier($0)] }) {
                return view
            }
            layer = current.superlayer
        }
        return nil
    }

    /// Whether `surface` (a window, a popup, or any subsurface of one) is drawn on this output.
    /// Whether `surface` is drawn: no container from its own up to a window's (or the cursor's) is
    /// hidden. Walks up the surface's layers rather than listing every visible surface, so that a
    /// commit costs the depth of its surface, not the number of surfaces.
    func shows(_ surface: Surface) -> Bool {
        guard let node = nodeLookup(surface) else { return false }
        return shows(node)
    }

    /// Whether the surface of `node` is drawn (`shows(_:)`), for a caller that has its node.
    func shows(_ node: SurfaceNode) -> Bool {
        var layer: Layer? = node.container
        while let current = layer, !current.isHidden {
            if isShownRoot(current) { return true }
            layer = current.superlayer
        }
        return false
    }

    /// Whether `layer` is the container of a window, layer surface, layer popup or cursor surface
    /// of this output: asked without collecting them, since every commit asks.
    private func isShownRoot(_ layer: Layer) -> Bool {
        windows.contains { $0.container === layer } || layerSurfaces.contains { $0.container === layer }
            || layerPopups.contains { $0.container === layer } || cursor.shownSurfaces.contains { nodeLookup($0)?.container === layer }
    }

    func scheduleFrame() {
        backend.scheduleFrame()
    }

    /// Whether the output shows the latest commit and nothing animates on it: the moment a black
    /// screen can be powered down without losing a frame.
    var isSettled: Bool {
        guard !hasFrameInFlight else { return false }
        guard context.renderTree != nil else { return true }
        return !hasUnshownCommit && !context.hasVisibleAnimations && displayLinks.isEmpty
    }

    /// Whether the latest commit made a tree that no frame drawn showed yet. Reads the trees'
    /// generations where they are: copying a tree out retains each of its parts.
    private var hasUnshownCommit: Bool {
        guard let generation = context.renderTree?.generation else { return false }
        return generation != lastTree?.generation
    }

    /// Every surface drawn in the current tree: visible windows, their mapped subsurfaces and
    /// their popups (with theirs).
    private func visibleSurfaces() -> [Surface] {
        var result: [Surface] = []
        func visit(_ surface: Surface) {
            guard let node = nodeLookup(surface), !node.container.isHidden else { return }
            result.append(surface)
            for member in surface.stack where member !== surface { visit(member) }
            for popup in node.popups { visit(popup.surface) }
        }
        for window in windows + layerSurfaces + layerPopups { visit(window.surface) }
        // A client's cursor and a drag icon get frame callbacks too (animated cursors wait for them).
        for surface in cursor.shownSurfaces { visit(surface) }
        return result
    }

    private func drawFrame(_ request: FrameRequest) {
        isRunningDisplayLinks = true
        // A link invalidated by an earlier one's callback is skipped.
        for link in displayLinks { link.fire(targetNanoseconds: request.targetPresentationNanoseconds) }
        isRunningDisplayLinks = false
        guard let tree = context.renderTree else {
            backend.frameScheduler.frameSkipped()
            return
        }
        do {
            // One path for every frame: a state (the client's buffer scanned out as it is, or a
            // swapchain buffer drawn into) committed once what it shows is done.
            var state = OutputState()
            var completion: (any RenderCompletion)?
            if scansOutDirectly(tree, in: &state) {
                // The top window, without an array made for it each frame.
                frameWillShow(tree, showing: windows.suffix(1).lazy.map(\.surface))
                scanningOutDirectly(true)
            } else {
                let target = Double(request.targetPresentationNanoseconds) / 1e9
                // Tiles fade in over sample time, so a tree with tiled layers is sampled too.
                let frameTree = tree.animatedLayerIDs.isEmpty && tree.tiledLayerIDs.isEmpty ? tree : tree.sampled(atMediaTime: target)
                // Taken apart as it is matched: a tuple bound first was copied out, its state and
                // completion retained and the tuple destroyed, every composed frame.
                guard case let (drawnState, drawnCompletion)? = try backend.draw(frameTree, with: renderer, scale: backend.scaleFactor) else {
                    backend.frameScheduler.frameSkipped()
                    return
                }
                state = drawnState
                completion = drawnCompletion
                withSampledSurfaces { frameWillShow(tree, showing: $0) }
                onFrameDrawn?(frameTree)
                // A drawn frame is a swapchain buffer's.
                scanningOutDirectly(false)
            }
            frameInFlight = FrameInFlight.send(state, completion: completion, on: backend, loop: eventLoop, owner: self)
        } catch {
            onRenderError?(error)
            backend.frameScheduler.frameSkipped()
        }
    }

    func frameFailed(_ failure: FrameInFlight.Failure) {
        switch failure {
        case .scanoutRefused:
            // The display took the state in its test but not at the commit: the window's
            // buffer is composed from the next frame on, until it commits another.
            refusedScanoutBuffer = windows.last?.scanoutCandidate
            backend.scheduleFrame()
        case .error(let error):
            onRenderError?(error)
        }
    }

    private func scanningOutDirectly(_ direct: Bool) {
        guard direct != isScanningOutDirectly else { return }
        isScanningOutDirectly = direct
        onDirectScanoutChanged?(direct)
    }

    /// Calls `body` with the surfaces whose buffers the renderer's last frame showed, in the order
    /// it drew them: listed in storage kept from frame to frame, where a new set and array cost
    /// two allocations every composed frame.
    private func withSampledSurfaces(_ body: ([Surface]) -> Void) {
        var surfaces: [Surface] = []
        swap(&surfaces, &sampledStorage.surfaces)
        let owners = renderer.sampledSurfaceOwners
        // A frame that sampled one buffer (a window alone, the common frame) lists its surface
        // without the set, whose emptying and insertion cost some 270 instructions.
        let mayRepeat = owners.count > 1
        if mayRepeat { sampledStorage.seen.removeAll(keepingCapacity: true) }
        for owner in owners {
            guard let node = owner as? SurfaceNode, !mayRepeat || sampledStorage.seen.insert(ObjectIdentifier(node)).inserted else { continue }
            surfaces.append(node.surface)
        }
        body(surfaces)
        // Kept empty: the storage holds no surface from one frame to the next.
        surfaces.removeAllKeepingCapacity()
        sampledStorage.surfaces = surfaces
    }

    /// The frame of `tree` goes to the display showing the buffers of `shown`: those surfaces hear
    /// of it, and their frame callbacks and presentation feedback wait for it to be presented.
    /// Added to what waits already: a frame that was drawn but not shown (a session switched away)
    /// leaves its callbacks for the next one that is.
    private func frameWillShow(_ tree: RenderTree, showing shown: some Collection<Surface>) {
        // Replaced, not added to: a frame drawn but never presented no longer shows its surfaces.
        shownInFlight.removeAllKeepingCapacity()
        for surface in shown {
            onSurfaceShown?(surface)
            surface.moveFrameCallbacks(to: callbacksInFlight)
            surface.discardSupersededPresentationFeedbacks()
            feedbacksInFlight.append(adopting: surface.takePresentationFeedbacks())
            shownInFlight.append(surface)
        }
        lastTree = tree
    }

    /// What the output shows, as its last frame drew it, without the pointer cursor: rendered
    /// apart from the frames (by the renderer's own image, which nothing else draws into) for a
    /// capture that leaves out a cursor drawn into them. Nil before the first frame.
    func renderedWithoutCursor() throws -> Image? {
        guard let tree = lastTree else { return nil }
        return try renderer.render(
            tree.hiding(cursor.imageLayerIDs), width: backend.mode.width, height: backend.mode.height, scale: backend.scaleFactor,
            clearColor: Color(white: 0))
    }

    /// The cursor plane's update reached the screen: a client's cursor surface on it gets its
    /// frame callbacks (and learns the output it is on) without a frame being drawn.
    private func cursorPresented(_ timing: PresentationTiming) {
        onCursorPresented?()
        if let surface = cursor.surfaceOnHardware { onSurfaceShown?(surface) }
        cursor.answerPlaneCallbacks(milliseconds: UInt32(truncatingIfNeeded: timing.nanoseconds / 1_000_000))
    }

    private func framePresented(_ timing: PresentationTiming) {
        lastPresentationNanoseconds = timing.nanoseconds
        cursor.moveLeftoverCallbacks(to: callbacksInFlight)
        let answersCallbacks = !callbacksInFlight.isEmpty
        callbacksInFlight.done(UInt32(truncatingIfNeeded: timing.nanoseconds / 1_000_000))
        var feedbacks: [PresentationFeedback] = []
        swap(&feedbacks, &feedbacksInFlight)
        for feedback in feedbacks {
            feedback.presented(
                on: global, seconds: timing.nanoseconds / 1_000_000_000, nanoseconds: UInt32(timing.nanoseconds % 1_000_000_000),
                refreshNanoseconds: UInt32(clamping: timing.refreshNanoseconds), sequence: timing.sequence,
                flags: PresentationFeedback.Kind(rawValue: timing.flags))
        }
        // Clients told of this frame may draw the next at once: it keeps the refresh cadence.
        if answersCallbacks || !feedbacks.isEmpty { backend.frameScheduler.markPresentationAwaited() }
        onFramePresented?()
        // Running animations and commits that arrived meanwhile need the next refresh too.
        if !displayLinks.isEmpty {
            backend.scheduleFrame()
        } else if hasUnshownCommit || context.hasVisibleAnimations {
            backend.scheduleFrame()
        } else if shownInFlight.contains(where: \.hasPendingFrameCallbacks) {
            backend.scheduleFrame()
        }
        // Its storage serves the next frame's surfaces.
        shownInFlight.removeAllKeepingCapacity()
    }
}

/// Holds surface views (one layer's, or the windows'): input goes through it to its surfaces or
/// to what lies below (the windows' host must not hide the bottom and background layers). It
/// draws nothing: it updates its layer (with nothing) instead of drawing, so that no graphics
/// context is made to find that out.
private final class PassThroughView: View {
    override func point(inside point: Point) -> Bool { false }
    override var wantsUpdateLayer: Bool { true }
}

/// An output's root view, which only holds the others and draws nothing, like PassThroughView.
private final class OutputRootView: RootView {
    override var wantsUpdateLayer: Bool { true }
}

extension BackendOutput {
    /// Draws `tree` at `scale` with `renderer` into the next swapchain buffer and returns the state
    /// that shows it, with the frame's completion (at once for the CPU renderer, on the GPU for
    /// Vulkan); nil when no buffer is free. A buffer the renderer cannot draw into (a GBM buffer
    /// object it cannot import, or any dma-buf for the CPU renderer) turns the output to simpler
    /// buffers (tiled, then linear GBM buffers, then buffers the CPU maps) until one takes the
    /// frame. Every drawn frame of an output or a mirror starts here.
    func draw(
        _ tree: RenderTree, with renderer: any LayerTreeRenderer, scale: Double
    ) throws -> (state: OutputState, completion: any RenderCompletion)? {
        guard var buffer = nextBuffer() else { return nil }
        while true {
            do {
                let completion = try renderer.render(tree, into: buffer, scale: scale, clearColor: Color(white: 0))
                // Where the renderer exports the frame's completion, the display waits for it, not we.
                return (OutputState(buffer: .swapchain(buffer), acquireFence: completion.takeAcquireFence()), completion)
            } catch let refusal as UnwritableBuffer {
                guard try useSimplerBuffers(because: "the renderer cannot draw into its \(buffer.kind)s: \(refusal)") else { throw refusal }
                guard let simpler = nextBuffer() else { return nil }
                buffer = simpler
            }
        }
    }
}
