import Glibc
import WaylandServer
import WaylandTestClient

/// An in-process server with the core globals and one test client connected to it.
final class Harness: SurfaceObserver {
    let display: Display
    let compositor: CompositorGlobal
    let subcompositor: SubcompositorGlobal
    let output: Output
    var surfaces: [Surface] = []
    var commits: [(surface: Surface, state: SurfaceState)] = []
    private(set) var client: TestClient!

    init() throws {
        display = try Display()
        compositor = CompositorGlobal(display: display)
        subcompositor = SubcompositorGlobal(display: display)
        output = Output(display: display, description: OutputDescription(
            name: "HEADLESS-1", description: "Vitrine test output", modeWidth: 640, modeHeight: 480,
            refreshMillihertz: 60000, scaleFactor: 2))
        compositor.surfaceCreated = { [unowned self] surface in
            surface.observer = self
            surfaces.append(surface)
        }
        client = try connect()
    }

    /// The surfaces' observer is unowned: they go (with their clients) before the harness does.
    deinit {
        display.disconnectAllClients()
    }

    /// Another client on the same server.
    func connect() throws -> TestClient {
        let (_, socket) = try display.createClientSocket()
        return try TestClient(socket: socket) { [unowned self] in
            try? display.eventLoop.dispatch(timeoutMilliseconds: 0)
            display.flushClients()
        }
    }

    func surfaceDidCommit(_ surface: Surface) {
        commits.append((surface, surface.current))
    }

    func surfaceWillBeDestroyed(_ surface: Surface) {
        surfaces.removeAll { $0 === surface }
    }

    /// A wl_shm buffer of `width`×`height` ARGB8888 pixels, every pixel `pixel`.
    func shmBuffer(_ client: TestClient, width: Int32, height: Int32, pixel: UInt32) throws -> WlBufferProxy {
        let shm = try client.bind(WlShmProxy.self, version: 1)
        let stride = width * 4
        let size = Int(stride * height)
        let fd = anonymousFile(size: size)
        defer { close(fd) }
        let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)!
        let pixels = memory.assumingMemoryBound(to: UInt32.self)
        for index in 0..<(size / 4) { pixels[index] = pixel }
        munmap(memory, size)
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
        let buffer = try pool.createBuffer(offset: 0, width: width, height: height, stride: stride, format: .argb8888)
        try pool.destroy()
        return buffer
    }
}
