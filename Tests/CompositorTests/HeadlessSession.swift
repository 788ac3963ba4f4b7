import Compositor
import DisplayBackend
import Foundation
import Glibc
import Graphics

/// The compositor on a headless output in this process, with one real client app launched on it.
final class HeadlessSession {
    let compositor: Compositor
    let backend: HeadlessBackend
    let socketName: String
    private(set) var client: ClientProcess?
    let outputPath: String

    private static let runtimeDirectory: String = {
        let path = NSTemporaryDirectory() + "vitrine-tests-\(getpid())"
        mkdir(path, 0o700)
        setenv("XDG_RUNTIME_DIR", path, 1)
        return path
    }()

    init(width: Int = 640, height: Int = 480, scale: Double = 1) throws {
        _ = Self.runtimeDirectory
        backend = try HeadlessBackend(outputs: [
            HeadlessOutputConfiguration(mode: OutputMode(width: width, height: height, refreshMillihertz: 60_000), scaleFactor: scale)
        ])
        compositor = try Compositor(backend: backend)
        // Suites run in parallel: every session gets a socket name of its own.
        socketName = try compositor.listen(socketName: "vitrine-test-\(UUID().uuidString.prefix(8))")
        outputPath = Self.runtimeDirectory + "/\(socketName).out"
    }

    deinit {
        compositor.shutdown()
        client?.terminate()
        unlink(outputPath)
    }

    /// Starts `arguments` as the session's client; its standard output goes to `outputPath`.
    func launch(_ arguments: [String]) throws {
        client = try ClientProcess(arguments: arguments, environment: ["WAYLAND_DISPLAY": socketName], standardOutput: outputPath)
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

extension PremultipliedPixel {
    /// Whether every channel is within `tolerance` of `other`'s.
    func isNear(_ other: PremultipliedPixel, tolerance: Int = 2) -> Bool {
        abs(Int(red) - Int(other.red)) <= tolerance && abs(Int(green) - Int(other.green)) <= tolerance
            && abs(Int(blue) - Int(other.blue)) <= tolerance && abs(Int(alpha) - Int(other.alpha)) <= tolerance
    }
}

let black = PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255)
let white = PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)
