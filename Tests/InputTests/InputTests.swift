import CInput
import Foundation
import Glibc
@testable import Input
import SystemCalls
import Testing

/// Records what libinput asked of it and passes the calls on to `DirectOpener`.
final class CountingOpener: DeviceOpener {
    var opened: [(path: String, flags: Int32)] = []
    var closed: [FileDescriptor] = []

    func open(path: String, flags: Int32) throws(InputError) -> FileDescriptor {
        opened.append((path, flags))
        return try DirectOpener().open(path: path, flags: flags)
    }

    func close(_ descriptor: FileDescriptor) {
        closed.append(descriptor)
        DirectOpener().close(descriptor)
    }
}

/// Refuses every node the way a seat manager refuses a device it does not grant.
struct RefusingOpener: DeviceOpener {
    func open(path: String, flags: Int32) throws(InputError) -> FileDescriptor {
        throw .system(SystemCallError("open", path: path, errno: .permissionDenied))
    }

    func close(_ descriptor: FileDescriptor) {}
}

private func temporaryFile(containing text: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-input-\(UUID().uuidString)").path
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    return path
}

private func expectUsable(_ context: InputContext) throws {
    #expect(context.devices == [])
    #expect(try context.dispatch() == [])
    #expect(fcntl(context.fileDescriptor.rawValue, F_GETFD) != -1)
}

@Suite struct PathModeErrors {
    @Test func missingPathThrowsStatErrorNamingThePathAndKeepsTheContextUsable() throws {
        let context = try InputContext(devicePaths: [])
        let error = #expect(throws: InputError.self) { try context.addDevice(path: "/nonexistent/event99") }
        #expect(error == .system(SystemCallError("stat", path: "/nonexistent/event99", errno: .noSuchFileOrDirectory)))
        #expect(error?.description == "stat /nonexistent/event99 failed: No such file or directory (errno 2)")
        try expectUsable(context)
    }

    @Test func devNullIsRefusedAtOnceAsNotAnEvdevNode() throws {
        let context = try InputContext(devicePaths: [])
        let start = ContinuousClock.now
        let error = #expect(throws: InputError.self) { try context.addDevice(path: "/dev/null") }
        // libinput itself would wait about four seconds for udev before giving up on /dev/null.
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(error == .notAnInputDevice(path: "/dev/null", reason: "it is character device 1:3; evdev nodes are 13:64 and up"))
        #expect(error?.description == "/dev/null is not an evdev input device: it is character device 1:3; evdev nodes are 13:64 and up")
        try expectUsable(context)
    }

    @Test func regularFileIsRefusedAsNotACharacterDevice() throws {
        let path = try temporaryFile(containing: "not a device")
        defer { unlink(path) }
        let context = try InputContext(devicePaths: [])
        #expect(throws: InputError.notAnInputDevice(path: path, reason: "it is not a character device")) {
            try context.addDevice(path: path)
        }
        try expectUsable(context)
    }

    @Test func initializerThrowsTheFirstBadPath() {
        #expect(throws: InputError.notAnInputDevice(path: "/dev/zero", reason: "it is character device 1:5; evdev nodes are 13:64 and up")) {
            try InputContext(devicePaths: ["/dev/zero", "/nonexistent"])
        }
    }

    @Test func removingAnUnknownDeviceThrows() throws {
        let context = try InputContext(devicePaths: [])
        #expect(throws: InputError.unknownDevice(InputDeviceID(rawValue: 7))) {
            try context.removeDevice(InputDeviceID(rawValue: 7))
        }
    }
}

@Suite struct SeatMode {
    @Test func seatWithoutInputDevicesStartsEmptyAndDispatchesNothing() throws {
        let context = try InputContext(seat: "seat0")
        #expect(context.mode == .seat("seat0"))
        try expectUsable(context)
    }

    @Test func addingByPathIsRefusedOnASeatContext() throws {
        let context = try InputContext(seat: "seat0")
        #expect(throws: InputError.requiresPathMode(operation: "adding /dev/null")) {
            try context.addDevice(path: "/dev/null")
        }
    }
}

@Suite struct OpenerTrampolines {
    @Test func libinputsOpenAndCloseReachTheCallersOpener() throws {
        let path = try temporaryFile(containing: "vitrine")
        defer { unlink(path) }
        let opener = CountingOpener()
        let context = try InputContext(devicePaths: [], opener: opener)
        // The same user data libinput hands its interface when it opens a device.
        let userData = libinput_get_user_data(context.handle)
        let fd = context.interface.pointee.open_restricted(path, O_RDONLY, userData)
        #expect(fd >= 0)
        #expect(opener.opened.map(\.path) == [path])
        #expect(opener.opened.map(\.flags) == [O_RDONLY])
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == O_NONBLOCK)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC == FD_CLOEXEC)
        var bytes = [UInt8](repeating: 0, count: 16)
        #expect(read(fd, &bytes, bytes.count) == 7)
        #expect(String(decoding: bytes.prefix(7), as: UTF8.self) == "vitrine")

        context.interface.pointee.close_restricted(fd, userData)
        #expect(opener.closed == [FileDescriptor(rawValue: fd)])
        #expect(fcntl(fd, F_GETFD) == -1)
    }

    @Test func anOpenerFailureReachesLibinputAsNegativeErrno() throws {
        let context = try InputContext(devicePaths: [], opener: RefusingOpener())
        let result = context.interface.pointee.open_restricted("/dev/input/event0", O_RDWR, libinput_get_user_data(context.handle))
        #expect(result == -EACCES)
    }
}

@Suite struct Translation {
    @Test func scrollSourceComesFromTheNewScrollEventTypesOnly() {
        #expect(ScrollSource(eventType: LIBINPUT_EVENT_POINTER_SCROLL_WHEEL) == .wheel)
        #expect(ScrollSource(eventType: LIBINPUT_EVENT_POINTER_SCROLL_FINGER) == .finger)
        #expect(ScrollSource(eventType: LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS) == .continuous)
        #expect(ScrollSource(eventType: LIBINPUT_EVENT_POINTER_AXIS) == nil)
        #expect(ScrollSource(eventType: LIBINPUT_EVENT_POINTER_MOTION) == nil)
    }

    @Test func capabilitiesCollectWhatTheDeviceAnswers() {
        let answers: Set<UInt32> = [LIBINPUT_DEVICE_CAP_KEYBOARD.rawValue, LIBINPUT_DEVICE_CAP_TOUCH.rawValue]
        let capabilities = InputCapabilities { answers.contains($0.rawValue) }
        #expect(capabilities == [.keyboard, .touch])
        #expect(capabilities.description == "keyboard, touch")
        #expect(InputCapabilities { _ in false }.description == "none")
        #expect(InputCapabilities { _ in true }.description == "keyboard, pointer, touch, tablet-tool, tablet-pad, gesture, switch")
    }

    @Test func eventsReportTheirDeviceAndTime() {
        let device = InputDeviceID(rawValue: 3)
        let touch = InputEvent.touchDown(time: 1_500_000, device: device, slot: 0, x: 0.25, y: 0.75)
        #expect(touch.device == device)
        #expect(touch.time == 1_500_000)
        let scroll = InputEvent.scroll(time: 42, device: device, axis: .vertical, value: 15, v120: 120, source: .wheel, isNatural: false)
        #expect(scroll.time == 42)
        let added = InputEvent.deviceAdded(tabletInfo(id: device))
        #expect(added.device == device)
        #expect(added.time == nil)
    }

    @Test func tabletTipIsTheLeftButton() {
        #expect(tabletTipButton == 272)
    }
}

private func tabletInfo(id: InputDeviceID, issues: [InputConfigurationIssue] = []) -> InputDeviceInfo {
    InputDeviceInfo(
        id: id, name: "QEMU Virtio Tablet", sysname: "event4", devicePath: "/dev/input/event4",
        vendorID: 0x0627, productID: 0x0003, capabilities: [.pointer], size: nil, supportsCalibration: true,
        calibration: nil, isTapToClickEnabled: false, issues: issues)
}

@Suite struct DeviceDescription {
    @Test func listsNameIDsCapabilitiesAndSize() {
        #expect(tabletInfo(id: InputDeviceID(rawValue: 1)).description
            == "event4: \"QEMU Virtio Tablet\" [0627:0003] pointer; size unknown; calibratable")
        let touchscreen = InputDeviceInfo(
            id: InputDeviceID(rawValue: 2), name: "ILITEK Multi-Touch", sysname: "event5", devicePath: nil,
            vendorID: 0x222a, productID: 0x1, capabilities: [.touch], size: PhysicalSize(width: 344, height: 193.5),
            supportsCalibration: true, calibration: .rotation(clockwiseQuarterTurns: 1), isTapToClickEnabled: false, issues: [])
        #expect(touchscreen.description
            == "event5: \"ILITEK Multi-Touch\" [222a:0001] touch; 344×193.5 mm; calibratable; calibrated 0 -1 1 1 0 0")
    }

    @Test func aDeviceWithTheNaturalScrollingOptionSaysWhetherItIsOn() {
        let info = { (natural: Bool?) in
            InputDeviceInfo(
                id: InputDeviceID(rawValue: 3), name: "Logitech USB Optical Mouse", sysname: "event6", devicePath: nil,
                vendorID: 0x046d, productID: 0xc077, capabilities: [.pointer], size: nil, supportsCalibration: false,
                calibration: nil, isTapToClickEnabled: false, naturalScrolling: natural, issues: []).description
        }
        #expect(info(true) == "event6: \"Logitech USB Optical Mouse\" [046d:c077] pointer; size unknown; natural scrolling on")
        #expect(info(false) == "event6: \"Logitech USB Optical Mouse\" [046d:c077] pointer; size unknown; natural scrolling off")
        #expect(info(nil) == "event6: \"Logitech USB Optical Mouse\" [046d:c077] pointer; size unknown")
    }

    @Test func unsupportedCalibrationIsAWarningOnTheDevice() {
        let info = tabletInfo(id: InputDeviceID(rawValue: 1), issues: [.calibrationUnsupported(rule: "QEMU*")])
        #expect(info.description.hasSuffix(
            "; warning: calibration rule \"QEMU*\" matches, but the device does not support a calibration matrix"))
    }
}

@Suite struct Calibration {
    let rotated = try! CalibrationMatrix([0, -1, 1, 1, 0, 0])

    @Test func matrixNeedsSixValues() {
        #expect(throws: InputError.invalidCalibrationMatrix(valueCount: 5)) { try CalibrationMatrix([1, 0, 0, 1, 0]) }
    }

    @Test func ruleMatchesNameOrSysnameByGlob() {
        let rule = CalibrationRule(pattern: "ILITEK*", matrix: rotated)
        #expect(rule.matches(name: "ILITEK Multi-Touch", sysname: "event5"))
        #expect(!rule.matches(name: "QEMU Virtio Tablet", sysname: "event4"))
        #expect(CalibrationRule(pattern: "event4", matrix: rotated).matches(name: "QEMU Virtio Tablet", sysname: "event4"))
        #expect(CalibrationRule(pattern: "QEMU Virtio Tablet", matrix: rotated).matches(name: "QEMU Virtio Tablet", sysname: "event4"))
        #expect(!CalibrationRule(pattern: "QEMU Virtio", matrix: rotated).matches(name: "QEMU Virtio Tablet", sysname: "event4"))
    }

    @Test func firstMatchingRuleApplies() {
        let configuration = InputConfiguration(calibrationRules: [
            CalibrationRule(pattern: "Wacom*", matrix: .identity),
            CalibrationRule(pattern: "ILITEK*", matrix: rotated),
            CalibrationRule(pattern: "*", matrix: .rotation(clockwiseQuarterTurns: 2)),
        ])
        #expect(configuration.calibrationRule(name: "ILITEK Multi-Touch", sysname: "event5")?.matrix == rotated)
        #expect(configuration.calibrationRule(name: "QEMU Virtio Tablet", sysname: "event4")?.pattern == "*")
        #expect(InputConfiguration().calibrationRule(name: "ILITEK Multi-Touch", sysname: "event5") == nil)
    }

    @Test func quarterTurnMovesCornersClockwise() {
        let matrix = CalibrationMatrix.rotation(clockwiseQuarterTurns: 1)
        #expect(matrix == rotated)
        #expect(matrix.apply(x: 0, y: 0) == (1, 0))
        #expect(matrix.apply(x: 1, y: 0) == (1, 1))
        #expect(matrix.apply(x: 0.25, y: 0.5) == (0.5, 0.25))
    }

    @Test func rotationsCompose() {
        let quarter = CalibrationMatrix.rotation(clockwiseQuarterTurns: 1)
        #expect(quarter.concatenating(quarter) == .rotation(clockwiseQuarterTurns: 2))
        #expect(quarter.concatenating(.rotation(clockwiseQuarterTurns: 2)) == .rotation(clockwiseQuarterTurns: 3))
        #expect(CalibrationMatrix.rotation(clockwiseQuarterTurns: 3).concatenating(quarter) == .identity)
        #expect(CalibrationMatrix.rotation(clockwiseQuarterTurns: -1) == .rotation(clockwiseQuarterTurns: 3))
        #expect(CalibrationMatrix.rotation(clockwiseQuarterTurns: 4) == .identity)
    }
}
