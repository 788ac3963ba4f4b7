import BoardConfig
import Compositor
import DisplayBackend
import Foundation
import Glibc
import HeadlessBackend
import Input
import KioskShell
import LayerKit
import Logging
import OnScreenKeyboard
import SystemCalls
import WaylandTestClient
import WindowPolicy

/// A compositor on a headless output (640×480 unless given, unturned at scale 1 unless given)
/// with a kiosk session whose board enables the on-screen keyboard; touches go in as device
/// events, through the compositor's input path.
final class OnScreenKeyboardKiosk {
    let backend: HeadlessBackend
    let compositor: Compositor
    let session: KioskSession
    let socketName: String
    /// The folder of `socketName`, for the clients a test starts.
    let runtimeDirectory = NSTemporaryDirectory() + "vitrine-osk-\(getpid())"
    let touchscreen = InputDeviceID(rawValue: 7)

    /// The panel's size in pixels, as the mode gives it (before any turn).
    let panelWidth: Int, panelHeight: Int

    init(
        settings: OnScreenKeyboardSettings = OnScreenKeyboardSettings(isEnabled: true), splash: SplashConfiguration? = nil,
        output: HeadlessOutputConfiguration = HeadlessOutputConfiguration(
            mode: OutputMode(width: 640, height: 480, refreshMillihertz: 60_000)),
        privilegeRules: [PrivilegeRule] = []
    ) throws {
        panelWidth = output.mode.width
        panelHeight = output.mode.height
        mkdir(runtimeDirectory, 0o700)
        backend = try HeadlessBackend(outputs: [output])
        compositor = try Compositor(backend: backend)
        compositor.windowPolicy = KioskWindowPolicy(compositor: compositor)
        compositor.privilegeRules = privilegeRules
        socketName = try compositor.listen(socketName: "vitrine-osk-\(UUID().uuidString.prefix(8))", in: runtimeDirectory)
        session = try KioskSession(
            compositor: compositor, socketName: socketName, runtimeDirectory: runtimeDirectory, app: nil, splash: splash, onScreenKeyboard: settings,
            notifier: try SystemdNotifier(environment: [:]), outputs: "a test output", start: monotonicNanoseconds(),
            logger: Logger(label: "test"))
    }

    deinit {
        session.stop()
        compositor.shutdown()
    }

    var keyboard: OnScreenKeyboardController { session.onScreenKeyboard! }

    /// One loop iteration with the session's tick, as `vitrine run` does it.
    func iterate() throws {
        try compositor.dispatch(timeoutMilliseconds: 5)
        session.tick(now: monotonicNanoseconds())
    }

    /// Runs the loop until `condition` holds, at most `seconds`; returns whether it held.
    @discardableResult
    func run(seconds: Double, until condition: () -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try iterate()
        }
        return condition()
    }

    /// Whether the keyboard is up and still: shown, its slide over, the frame on screen. Settled
    /// outputs have drawn the latest tree; the headless output shows it at the next refresh.
    var keyboardIsUp: Bool {
        keyboard.view.isShown && compositor.outputsAreSettled && !backend.headlessOutput(0).hasFrameWaitingToShow
            && keyboard.view.layer.presentation()?.frame.minY == keyboard.view.frame.minY
    }

    /// The centre of the key labelled `label` (unshifted) in output points.
    func centre(ofKey label: String) -> Point? {
        let view = keyboard.view
        guard let cap = view.keyCaps.first(where: { $0.name == "key \(label)" }) else { return nil }
        return Point(x: view.frame.minX + cap.frame.midX, y: view.frame.minY + cap.frame.midY)
    }

    /// A finger down and up at `point` (output points), as the touchscreen reports it; on an
    /// unturned output, whose panel spans the same points.
    func tap(_ point: Point, slot: Int32 = 0) {
        let size = compositor.rootView().bounds.size
        tap(normalizedX: point.x / size.width, y: point.y / size.height, slot: slot)
    }

    /// A finger down and up at panel pixel (`x`, `y`), as the touchscreen reports it.
    func tap(panelX x: Double, y: Double, slot: Int32 = 0) {
        tap(normalizedX: x / Double(panelWidth), y: y / Double(panelHeight), slot: slot)
    }

    /// libinput's touch coordinates: a share of the panel's width and height.
    private func tap(normalizedX x: Double, y: Double, slot: Int32) {
        let time = monotonicNanoseconds() / 1000
        compositor.handle(.touchDown(time: time, device: touchscreen, slot: slot, x: x, y: y))
        compositor.handle(.touchFrame(time: time, device: touchscreen))
        compositor.handle(.touchUp(time: time + 50_000, device: touchscreen, slot: slot))
        compositor.handle(.touchFrame(time: time + 50_000, device: touchscreen))
    }

    /// Taps the key labelled `label`.
    func tap(key label: String) throws {
        guard let point = centre(ofKey: label) else { throw KioskTestError.noSuchKey(label) }
        tap(point)
    }

    /// A device with letter keys coming or going, as libinput reports a USB keyboard.
    func keyboardDevice(added: Bool) {
        let info = InputDeviceInfo(
            id: InputDeviceID(rawValue: 9), name: "USB Keyboard", sysname: "event9", devicePath: nil, vendorID: 1, productID: 2,
            capabilities: [.keyboard], size: nil, supportsCalibration: false, calibration: nil, isTapToClickEnabled: false,
            issues: [], hasLetterKeys: true)
        compositor.handle(added ? .deviceAdded(info) : .deviceRemoved(info))
    }
}

enum KioskTestError: Error {
    case noSuchKey(String)
}

/// An app of the kiosk: one toplevel as large as the compositor configures it (the whole output)
/// whose client bound the seat's keyboard and touch and a text input.
struct TextFieldApp {
    let client: TestClient
    let surface: WlSurfaceProxy
    let keyboard: WlKeyboardProxy
    let touch: WlTouchProxy
    let textInput: ZwpTextInputV3Proxy

    init(_ kiosk: OnScreenKeyboardKiosk) throws {
        let (_, socket) = try kiosk.compositor.display.createClientSocket()
        client = try TestClient(socket: socket) { try? kiosk.compositor.dispatch(timeoutMilliseconds: 0) }
        let compositor = try client.bind(WlCompositorProxy.self, version: 5)
        let shell = try client.bind(XdgWmBaseProxy.self, version: 4)
        let shm = try client.bind(WlShmProxy.self, version: 1)
        let seat = try client.bind(WlSeatProxy.self, version: 8)
        keyboard = try seat.getKeyboard()
        touch = try seat.getTouch()
        let manager = try client.bind(ZwpTextInputManagerV3Proxy.self, version: 1)
        textInput = try manager.getTextInput(seat: seat)
        surface = try compositor.createSurface()
        let xdgSurface = try shell.getXdgSurface(surface: surface)
        let toplevel = try xdgSurface.getToplevel()
        try surface.commit()
        try client.roundtrip()
        guard case .configure(let serial)? = xdgSurface.events.last else { throw TestClientError.timedOut }
        try xdgSurface.ackConfigure(serial: serial)
        var (width, height): (Int32, Int32) = (640, 480)
        if case .configure(let w, let h, _)? = toplevel.events.last(where: { $0.name == "configure" }), w > 0, h > 0 {
            (width, height) = (w, h)
        }
        let size = Int(width * height * 4)
        let fd = anonymousFile(size: size)
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: fd), size: Int32(size))
        close(fd)
        let buffer = try pool.createBuffer(offset: 0, width: width, height: height, stride: width * 4, format: .argb8888)
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.commit()
        try client.roundtrip()
    }

    /// enable, the state requests `state` sends, commit.
    func enable(_ state: (ZwpTextInputV3Proxy) throws -> Void = { _ in }) throws {
        try textInput.enable()
        try commit(state)
    }

    /// The state requests `state` sends, then commit.
    func commit(_ state: (ZwpTextInputV3Proxy) throws -> Void = { _ in }) throws {
        try state(textInput)
        try textInput.commit()
        try client.roundtrip()
    }

    func disable() throws {
        try textInput.disable()
        try commit()
    }

    /// wl_keyboard key events as (key, state).
    var keys: [[UInt32]] {
        keyboard.events.compactMap { event in
            guard case .key(_, _, let key, let state) = event else { return nil }
            return [key, state.rawValue]
        }
    }
}
