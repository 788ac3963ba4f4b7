import CLinux
import Compositor
import DisplayBackend
import Foundation
import Glibc
import HeadlessBackend
import SystemCalls
import Synchronization
import WaylandServer
import WindowPolicy

/// One compositor that WLCS starts for a test. WLCS calls from its own threads; the compositor
/// lives on a thread of its own (LayerKit and the Wayland display are thread-confined), so every
/// call is handed to that thread through a queue and an eventfd that wakes its event loop, and the
/// caller waits for the answer.
final class WLCSServer: @unchecked Sendable {
    /// A call handed to the compositor thread; its closure only runs there.
    private struct Job: @unchecked Sendable {
        let run: () -> Void
    }

    private let work = Mutex<[Job]>([])
    private let wake: OwnedFileDescriptor
    private var thread: Thread?
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    // The fields below belong to the compositor thread.
    private var compositor: Compositor?
    /// The compositor's window policy, which places windows where WLCS asks.
    private var windowPolicy: KioskWindowPolicy?
    private var wakeSource: EventSource?
    private var clients: [Int32: Client] = [:]
    private var devices: [UnsafeMutableRawPointer: InputDevice] = [:]
    private var stopping = false

    init() {
        // Without an eventfd the suite cannot drive the compositor at all.
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        precondition(fd >= 0, "eventfd: \(SystemCallError.current("eventfd"))")
        wake = OwnedFileDescriptor(rawValue: fd)
    }

    func start() {
        let thread = Thread { [self] in
            do {
                let backend = try HeadlessBackend(outputs: [
                    HeadlessOutputConfiguration(mode: OutputMode(width: 1920, height: 1080, refreshMillihertz: 60_000))
                ])
                let compositor = try Compositor(backend: backend)
                // The suite's clients run in the runner's own process and test the privileged
                // protocols (the layer shell among them) too.
                compositor.privilegeRules = [PrivilegeRule(.user(getuid()), privileges: Set(Privilege.allCases))]
                let policy = KioskWindowPolicy(compositor: compositor)
                compositor.windowPolicy = policy
                windowPolicy = policy
                self.compositor = compositor
                wakeSource = try compositor.display.eventLoop.addFileDescriptor(wake.fileDescriptor, events: .readable) { [self] _ in
                    var count: UInt64 = 0
                    _ = read(wake.rawValue, &count, 8)
                    runQueuedWork()
                }
            } catch {
                fatalError("the WLCS compositor cannot start: \(error)")
            }
            ready.signal()
            while !stopping {
                try? compositor?.dispatch(timeoutMilliseconds: -1)
            }
            wakeSource?.remove()
            clients = [:]
            devices = [:]
            compositor = nil
            finished.signal()
        }
        thread.name = "vitrine-wlcs"
        thread.stackSize = 8 << 20
        self.thread = thread
        thread.start()
        ready.wait()
    }

    func stop() {
        perform { [self] in stopping = true }
        finished.wait()
        // WLCS unloads this module at exit: the thread must have left its closure (this module's
        // code) by then, not only signalled.
        while thread?.isFinished == false { usleep(1_000) }
        thread = nil
    }

    /// Runs `body` on the compositor thread and returns its result.
    func perform<Result>(_ body: @escaping () -> Result) -> Result {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result?
        nonisolated(unsafe) let job = body
        work.withLock { $0.append(Job { result = job(); done.signal() }) }
        var one: UInt64 = 1
        _ = write(wake.rawValue, &one, 8)
        done.wait()
        return result!
    }

    private func runQueuedWork() {
        let jobs = work.withLock { queue -> [Job] in
            defer { queue = [] }
            return queue
        }
        for job in jobs { job.run() }
    }

    func createClientSocket() -> Int32 {
        perform { [self] in
            guard let compositor, let (client, socket) = try? compositor.display.createClientSocket() else { return -1 }
            // The descriptor is WLCS's from here on; it names the client in later calls.
            clients[socket.rawValue] = client
            return socket.rawValue
        }
    }

    func positionWindow(clientSocket: Int32, surfaceID: UInt32, x: Int32, y: Int32) {
        perform { [self] in
            guard let windowPolicy, let client = clients[clientSocket],
                  let surface = client.resource(withID: surfaceID) as? Surface else { return }
            windowPolicy.positionWindow(of: surface, x: Double(x), y: Double(y))
        }
    }

    func makeDevice() -> UnsafeMutableRawPointer {
        perform { [self] in
            let device = InputDevice()
            let key = Unmanaged.passUnretained(device).toOpaque()
            devices[key] = device
            return key
        }
    }

    func destroyDevice(_ key: UnsafeMutableRawPointer) {
        perform { [self] in
            guard let device = devices.removeValue(forKey: key) else { return }
            if device.touchDown, let compositor { compositor.touchUp(id: device.touchID) }
        }
    }

    func pointerMove(_ key: UnsafeMutableRawPointer, x: Double, y: Double, relative: Bool) {
        perform { [self] in
            guard let compositor else { return }
            if relative { compositor.pointerMoved(byX: x, y: y) } else { compositor.pointerMoved(toX: x, y: y) }
        }
    }

    func pointerButton(_ key: UnsafeMutableRawPointer, button: Int32, pressed: Bool) {
        perform { [self] in
            compositor?.pointerButton(UInt32(button), pressed: pressed)
        }
    }

    func touch(_ key: UnsafeMutableRawPointer, x: Double, y: Double, phase: Int32) {
        perform { [self] in
            guard let compositor, let device = devices[key] else { return }
            switch phase {
            case 0:
                device.touchDown = true
                compositor.touchDown(id: device.touchID, x: x, y: y)
            case 1: compositor.touchMotion(id: device.touchID, x: x, y: y)
            default:
                device.touchDown = false
                compositor.touchUp(id: device.touchID)
            }
        }
    }
}

/// A fake pointer or touch device; touch devices each have their own touch point id.
final class InputDevice {
    nonisolated(unsafe) private static var nextTouchID: Int32 = 0
    let touchID: Int32
    var touchDown = false

    init() {
        InputDevice.nextTouchID += 1
        touchID = InputDevice.nextTouchID
    }
}
