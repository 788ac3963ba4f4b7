import AppProcesses
import Compositor
import DisplayBackend
import Foundation
import Glibc
import Graphics
import HeadlessBackend
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
         cursorPlane: CursorPlaneSize? = nil) throws {
        try self.init(outputs: [
            HeadlessOutputConfiguration(
                mode: OutputMode(width: width, height: height, refreshMillihertz: 60_000), scaleFactor: scale,
                transform: transform, cursorPlane: cursorPlane)
        ])
    }

    /// The compositor on these outputs from the start (none: no display yet, as a kiosk booted
    /// before its screen).
    init(outputs: [HeadlessOutputConfiguration]) throws {
        backend = try HeadlessBackend(outputs: outputs)
        compositor = try Compositor(backend: backend)
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
            standardOutput: outputPath)
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

    /// What the client printed so far.
    var clientOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
}

/// A test client of a session, talking to it over a socket pair; the compositor dispatches while
/// the client waits, so requests and events need no second thread.
struct SessionClient {
    let server: Client
    let client: TestClient
    let compositor: TestProxy
    let shell: TestProxy
    let shm: TestProxy

    init(_ session: HeadlessSession) throws {
        let (server, socket) = try session.compositor.display.createClientSocket()
        self.server = server
        client = try TestClient(socket: socket) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        compositor = try client.bind("wl_compositor", version: 5)
        shell = try client.bind("xdg_wm_base", version: 4)
        shm = try client.bind("wl_shm", version: 1)
    }

    /// A toplevel whose first configure is acknowledged, not mapped yet.
    func makeToplevel() throws -> (surface: TestProxy, xdgSurface: TestProxy) {
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        let xdgSurface = try shell.send(2, [.newID, .object(surface)], interface: "xdg_surface")
        _ = try xdgSurface.send(1, [.newID], interface: "xdg_toplevel")
        try surface.send(6)
        try client.roundtrip()
        try acknowledgeConfigure(of: xdgSurface)
        return (surface, xdgSurface)
    }

    /// Acks the last configure `xdgSurface` received.
    func acknowledgeConfigure(of xdgSurface: TestProxy) throws {
        guard case .uint(let serial) = xdgSurface.events(named: "configure").last?.arguments.first else {
            throw TestClientError.timedOut
        }
        try xdgSurface.send(4, [.uint(serial)])
    }

    /// A wl_buffer of `width`×`height` pixels in `format` (a wl_shm code), rows `bytesPerPixel` ×
    /// width apart, in a pool of its own whose memory `fill` writes first.
    func makeBuffer(
        width: Int, height: Int, format: UInt32 = 0, bytesPerPixel: Int = 4,
        fill: (UnsafeMutableRawPointer) -> Void = { _ in }
    ) throws -> TestProxy {
        let size = width * height * bytesPerPixel
        let fd = anonymousFile(size: size)
        let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)!
        fill(memory)
        munmap(memory, size)
        let pool = try shm.send(0, [.newID, .fileDescriptor(fd), .int(Int32(size))], interface: "wl_shm_pool")
        close(fd)
        return try pool.send(
            0, [.newID, .int(0), .int(Int32(width)), .int(Int32(height)), .int(Int32(width * bytesPerPixel)), .uint(format)],
            interface: "wl_buffer")
    }

    /// Attaches `buffer` to `surface` and commits.
    func show(_ buffer: TestProxy, on surface: TestProxy) throws {
        try surface.send(1, [.object(buffer), .int(0), .int(0)])
        try surface.send(6)
    }
}

/// A white 64×64 window (centred on a 640×480 output: 288…352 × 208…272) of a client that bound
/// the seat's pointer, keyboard and touch (wl_seat v8).
struct InputWindow {
    let client: SessionClient
    let pointer: TestProxy
    let keyboard: TestProxy
    let touch: TestProxy
    let surface: TestProxy

    init(_ session: HeadlessSession) throws {
        client = try SessionClient(session)
        let seat = try client.client.bind("wl_seat", version: 8)
        pointer = try seat.send(0, [.newID], interface: "wl_pointer")
        keyboard = try seat.send(1, [.newID], interface: "wl_keyboard")
        touch = try seat.send(2, [.newID], interface: "wl_touch")
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
func toplevel(_ client: SessionClient) throws -> (surface: TestProxy, xdgSurface: TestProxy, toplevel: TestProxy) {
    let surface = try client.compositor.send(0, [.newID], interface: "wl_surface")
    let xdgSurface = try client.shell.send(2, [.newID, .object(surface)], interface: "xdg_surface")
    let toplevel = try xdgSurface.send(1, [.newID], interface: "xdg_toplevel")
    try surface.send(6)
    try client.client.roundtrip()
    try client.acknowledgeConfigure(of: xdgSurface)
    return (surface, xdgSurface, toplevel)
}

/// The width and height of the toplevel's latest configure.
func configuredSize(_ toplevel: TestProxy) -> [TestValue]? {
    toplevel.events(named: "configure").last.map { Array($0.arguments.prefix(2)) }
}
