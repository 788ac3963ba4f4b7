import DisplayBackend
import Glibc
import LayerKit
import Logging
import Renderer
import WaylandServer

/// Owns the whole compositor on one thread: the Wayland display and its globals, the outputs of a
/// display backend with their layer trees and renderers, and the mapping of client surfaces to
/// layers. Each loop iteration dispatches clients and backends, then commits LayerKit's implicit
/// transaction (so that what clients committed reaches the render trees together), then flushes
/// the clients' events.
public final class Compositor: SurfaceObserver {
    public let display: Display
    let backend: any DisplayBackend
    private(set) var outputs: [CompositorOutput] = []
    private var nodes: [ObjectIdentifier: SurfaceNode] = [:]
    private let compositorGlobal: CompositorGlobal
    private let subcompositorGlobal: SubcompositorGlobal
    private var backendSources: [EventSource] = []
    private var isStopped = false
    let logger: Logger

    /// Creates the display and globals and takes over `backend`'s outputs, each with its own renderer.
    public init(backend: any DisplayBackend, rendererOptions: VulkanOptions = VulkanOptions(), logger: Logger = Logger(label: "vitrine")) throws {
        self.backend = backend
        self.logger = logger
        display = try Display(shmFormats: ShmImporter.additionalFormats)
        compositorGlobal = CompositorGlobal(display: display)
        subcompositorGlobal = SubcompositorGlobal(display: display)
        var x: Int32 = 0
        for output in backend.outputs {
            let renderer = try Renderer(options: rendererOptions)
            let managed = CompositorOutput(backend: output, display: display, renderer: renderer, x: x) { [unowned self] surface in
                node(for: surface)
            }
            managed.onRenderError = { [logger] error in logger.error("frame failed on \(output.name): \(error)") }
            x += managed.global.state.logicalWidth
            outputs.append(managed)
        }
        compositorGlobal.surfaceCreated = { [unowned self] surface in
            surface.observer = self
        }
        for fd in backend.fileDescriptors {
            backendSources.append(try display.eventLoop.addFileDescriptor(fd, events: .readable) { [unowned self] _ in
                self.backend.dispatch(fileDescriptor: fd)
            })
        }
        Transaction.flush()
    }

    deinit {
        backendSources.forEach { $0.remove() }
        display.disconnectAllClients()
    }

    /// Listens for clients on `$XDG_RUNTIME_DIR/name` (or the first free wayland-N); returns the name.
    public func listen(socketName: String? = nil) throws -> String {
        try display.addSocket(named: socketName)
    }

    /// Runs one loop iteration, waiting up to `timeoutMilliseconds` for something to happen.
    public func dispatch(timeoutMilliseconds: Int32) throws {
        try display.dispatch(timeoutMilliseconds: timeoutMilliseconds)
        Transaction.flush()
        display.flushClients()
    }

    /// Runs the loop until `stop()` is called or `condition` becomes true (checked each iteration).
    public func run(until condition: () -> Bool = { false }) throws {
        isStopped = false
        while !isStopped && !condition() {
            try dispatch(timeoutMilliseconds: 100)
        }
    }

    public func stop() {
        isStopped = true
    }

    /// What output `index` shows now (the headless backend keeps its last frame).
    public func capture(outputAt index: Int = 0) -> Image? {
        outputs[index].backend.lastShownImage
    }

    // MARK: - Surfaces

    func node(for surface: Surface) -> SurfaceNode? {
        nodes[ObjectIdentifier(surface)]
    }

    func makeNode(for surface: Surface) -> SurfaceNode {
        if let existing = node(for: surface) { return existing }
        let made = SurfaceNode(surface: surface)
        nodes[ObjectIdentifier(surface)] = made
        return made
    }

    public func surfaceDidCommit(_ surface: Surface) {
        // Client content never animates implicitly: what a client commits is what the next frame shows.
        Transaction.begin()
        Transaction.disableActions = true
        let node = makeNode(for: surface)
        node.apply(surface.current)
        node.restack { [unowned self] member in
            member.subsurface == nil ? nil : makeNode(for: member)
        }
        Transaction.commit()
        for output in outputs where output.shows(surface) { output.scheduleFrame() }
    }

    public func surfaceWillBeDestroyed(_ surface: Surface) {
        guard let node = nodes.removeValue(forKey: ObjectIdentifier(surface)) else { return }
        Transaction.begin()
        Transaction.disableActions = true
        for output in outputs { output.removeWindow(node) }
        node.container.removeFromSuperlayer()
        Transaction.commit()
    }
}
