import AppProcesses
import Compositor
import DisplayBackend
import Foundation
import Glibc
import Graphics
import HeadlessBackend
import LayerKit
import Views
import WaylandServer
import WaylandTestClient
import WindowPolicy

/// The compositor on a headless output in this process, with one real client app launched on it.
final class HeadlessSession {
    let compositor: Compositor
    /// The compositor's window policy, Vitrine's.
    let windowPolicy: KioskWindowPolicy
    let backend: HeadlessBackend
    let socketName: String
    private(set) var client: ClientProcess?
    let outputPath: String

    /// The sessions' socket folder, given to the compositor and the clients rather than set in
    /// this process's environment, which suites running in parallel share.
    private static let runtimeDirectory: String = {
        let path = NSTemporaryDirectory() + "vitrine-tests-\(getpid())"
        mkdir(path, 0o700)
        return path
    }()

    convenience init(width: Int = 640, height: Int = 480, scale: Double = 1, transform: OutputTransform = .normal,
         cursorPlane: CursorPlaneSize? = nil, renderer: RendererKind = .vulkan) throws {
        try self.init(renderer: renderer, outputs: [
            HeadlessOutputConfiguration(
                mode: OutputMode(width: width, height: height, refreshMillihertz: 60_000), scaleFactor: scale,
                transform: transform, cursorPlane: cursorPlane)
        ])
    }

    /// The compositor on these outputs from the start (none: no display yet, as a kiosk booted
    /// before its screen).
    init(renderer: RendererKind = .vulkan, outputs: [HeadlessOutputConfiguration]) throws {
        backend = try HeadlessBackend(outputs: outputs)
        compositor = try Compositor(backend: backend, renderer: renderer)
        windowPolicy = KioskWindowPolicy(compositor: compositor)
        compositor.windowPolicy = windowPolicy
        // Suites run in parallel: every session gets a socket name of its own.
        socketName = try compositor.listen(socketName: "vitrine-test-\(UUID().uuidString.prefix(8))", in: Self.runtimeDirectory)
        outputPath = Self.runtimeDirectory + "/\(socketName).out"
    }

    deinit {
        compositor.shutdown()
        client?.terminate()
        unlink(outputPath)
    }

    /// Starts `arguments` as the session's client; its standard output goes to `outputPath`.
    func launch(_ arguments: [String]) throws {
        client = try ClientProcess(
            arguments: arguments, environment: ["WAYLAND_DISPLAY": socketName, "XDG_RUNTIME_DIR": Self.runtimeDirectory],
            standardOutput: outputPath, endingWithThisProcess: true)
    }

    /// Runs the compositor until `condition` holds or `seconds` pass; returns whether it held.
    @discardableResult
    func run(seconds: Double, until condition: () -> Bool = { false }) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try compositor.dispatch(timeoutMilliseconds: 10)
        }
        return condition()
    }

    /// Runs until `count` more frames were shown on the output.
    func runFrames(_ count: Int, seconds: Double = 20) throws -> Bool {
        let output = backend.headlessOutput(0)
        let target = output.presentedFrameCount + count
        return try run(seconds: seconds) { output.presentedFrameCount >= target }
    }

    var screen: Image? { compositor.capture() }

    /// Puts a white 10×10 view at the top left of the first output, above the windows.
    func addWhiteSquareView() {
        let view = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        view.layer.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 1)
        Transaction.begin()
        compositor.rootView(ofOutputAt: 0).addSubview(view)
        Transaction.commit()
    }

    /// What the client printed so far.
    var clientOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
}

/// A test client of a session, talking to it over a socket pair; the compositor dispatches while
/// the client waits, so requests and events need no second thread.
struct SessionClient {
    let server: Client
    let client: TestClient
    let compositor: WlCompositorProxy
    let shell: XdgWmBaseProxy
    let shm: WlShmProxy

    init(_ session: HeadlessSession, compositorVersion: UInt32 = 5, shellVersion: UInt32 = 4) throws {
        let (server, socket) = try session.compositor.display.createClientSocket()
        self.server = server
        client = try TestClient(socket: socket) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        compositor = try client.bind(WlCompositorProxy.self, version: compositorVersion)
        shell = try client.bind(XdgWmBaseProxy.self, version: shellVersion)
        shm = try client.bind(WlShmProxy.self, version: 1)
    }

    /// A toplevel whose first configure is acknowledged, not mapped yet.
    func makeToplevel() throws -> (surface: WlSurfaceProxy, xdgSurface: XdgSurfaceProxy) {
        let surface = try compositor.createSurface()
        let xdgSurface = try shell.getXdgSurface(surface: surface)
        try xdgSurface.getToplevel()
        try surface.commit()
        try client.roundtrip()
        try acknowledgeConfigure(of: xdgSurface)
        return (surface, xdgSurface)
    }

    /// Acks the last configure `xdgSurface` received.
    func acknowledgeConfigure(of xdgSurface: XdgSurfaceProxy) throws {
        guard case .configure(let serial)? = xdgSurface.events.last else { throw TestClientError.timedOut }
        try xdgSurface.ackConfigure(serial: serial)
    }

    /// A wl_buffer of `width`×`height` pixels in `format`, rows `bytesPerPixel` × width apart, in a
    /// pool of its own whose memory `fill` writes first.
    func makeBuffer(
        width: Int, height: Int, format: WlShmFormat = .argb8888, bytesPerPixel: Int = 4,
        fill: (UnsafeMutableRawPointer) -> Void = { _ in }
    ) throws -> WlBufferProxy {
        let size = width * height * bytesPerPixel
        let fd = anonymousFile(size: size)
        let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)!
        fill(memory)
        munmap(memory, size)
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
        close(fd)
        return try pool.createBuffer(
            offset: 0, width: Int32(width), height: Int32(height), stride: Int32(width * bytesPerPixel), format: format)
    }

    /// Attaches `buffer` to `surface` and commits.
    func show(_ buffer: WlBufferProxy, on surface: WlSurfaceProxy) throws {
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.commit()
    }
}

/// A white 64×64 window (centred on a 640×480 output: 288…352 × 208…272) of a client that bound
/// the seat's pointer, keyboard and touch (wl_seat v9).
struct InputWindow {
    let client: SessionClient
    let pointer: WlPointerProxy
    let keyboard: WlKeyboardProxy
    let touch: WlTouchProxy
    let surface: WlSurfaceProxy

    init(_ session: HeadlessSession) throws {
        client = try SessionClient(session)
        let seat = try client.client.bind(WlSeatProxy.self, version: 9)
        pointer = try seat.getPointer()
        keyboard = try seat.getKeyboard()
        touch = try seat.getTouch()
        (surface, _) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64, fill: fillPixels(0xffff_ffff, count: 64 * 64)), on: surface)
        try client.client.roundtrip()
    }
}

/// Fills 32-bit pixels with `pixel`.
func fillPixels(_ pixel: UInt32, count: Int) -> (UnsafeMutableRawPointer) -> Void {
    { memory in memory.initializeMemory(as: UInt32.self, repeating: pixel, count: count) }
}

extension PremultipliedPixel {
    /// Whether every channel is within `tolerance` of `other`'s.
    func isNear(_ other: PremultipliedPixel, tolerance: Int = 2) -> Bool {
        abs(Int(red) - Int(other.red)) <= tolerance && abs(Int(green) - Int(other.green)) <= tolerance
            && abs(Int(blue) - Int(other.blue)) <= tolerance && abs(Int(alpha) - Int(other.alpha)) <= tolerance
    }
}

let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)
let white = PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)

/// A fullscreen toplevel of `client` with its first configure acknowledged (not mapped).
func toplevel(_ client: SessionClient) throws -> (surface: WlSurfaceProxy, xdgSurface: XdgSurfaceProxy, toplevel: XdgToplevelProxy) {
    let surface = try client.compositor.createSurface()
    let xdgSurface = try client.shell.getXdgSurface(surface: surface)
    let toplevel = try xdgSurface.getToplevel()
    try surface.commit()
    try client.client.roundtrip()
    try client.acknowledgeConfigure(of: xdgSurface)
    return (surface, xdgSurface, toplevel)
}

/// The width and height of the toplevel's latest configure.
func configuredSize(_ toplevel: XdgToplevelProxy) -> [Int32]? {
    toplevel.events.reversed().lazy.compactMap { event -> [Int32]? in
        guard case .configure(let width, let height, _) = event else { return nil }
        return [width, height]
    }.first
}

extension WlPointerProxy {
    /// The serial, surface and surface-local position of the last enter.
    var lastEnter: (serial: UInt32, surface: WlSurfaceProxy?, x: Double, y: Double)? {
        events.reversed().lazy.compactMap { event in
            guard case .enter(let serial, let surface, let x, let y) = event else { return nil }
            return (serial, surface, x, y)
        }.first
    }
}

extension WlTouchProxy {
    /// Each down's touch point id and surface-local position, in order.
    var downs: [(id: Int32, x: Double, y: Double)] {
        events.compactMap { event in
            guard case .down(_, _, _, let id, let x, let y) = event else { return nil }
            return (id, x, y)
        }
    }
}
