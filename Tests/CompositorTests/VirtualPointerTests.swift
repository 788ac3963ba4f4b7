import Compositor
import Testing
import WaylandServer
import WaylandTestClient

/// wlroots' virtual pointer on the headless compositor, driven by a client the privilege rules
/// allow virtual input, moving the pointer over InputWindow's white window (288…352 × 208…272).
@Suite struct VirtualPointerTests {
    private func remote(_ session: HeadlessSession, withOutput: Bool = true) throws -> (SessionClient, ZwlrVirtualPointerV1Proxy) {
        session.compositor.privilegeRules = [PrivilegeRule(.executable(testExecutable()), privileges: [.virtualInput])]
        let client = try SessionClient(session)
        let manager = try client.client.bind(ZwlrVirtualPointerManagerV1Proxy.self, version: 2)
        let pointer = if withOutput {
            try manager.createVirtualPointerWithOutput(seat: nil, output: client.client.bind(WlOutputProxy.self, version: 4))
        } else {
            try manager.createVirtualPointer(seat: nil)
        }
        return (client, pointer)
    }

    @Test func absoluteMotionAndAClickReachTheWindowUnderThePoint() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let (client, pointer) = try remote(session)
        // (300, 220) of the 640×480 output: the window's (12, 12).
        try pointer.motionAbsolute(time: 1, x: 300, y: 220, xExtent: 640, yExtent: 480)
        try pointer.frame()
        try pointer.button(time: 2, button: 0x110, state: .pressed)
        try pointer.frame()
        try pointer.button(time: 3, button: 0x110, state: .released)
        try pointer.frame()
        try client.client.roundtrip()
        try window.client.client.roundtrip()
        guard case .enter(_, _, let x, let y)? = window.pointer.events.first(where: { $0.name == "enter" }) else {
            Issue.record("no enter: \(window.pointer.events)")
            return
        }
        #expect(x == 12 && y == 12)
        let buttons = window.pointer.events.compactMap { event -> [UInt32]? in
            guard case .button(_, _, let button, let state) = event else { return nil }
            return [button, state.rawValue]
        }
        #expect(buttons == [[0x110, 1], [0x110, 0]])
    }

    @Test func withoutAnOutputAbsoluteMotionSpansTheLayoutAndRelativeMotionAdds() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let (client, pointer) = try remote(session, withOutput: false)
        try pointer.motionAbsolute(time: 1, x: 150, y: 110, xExtent: 320, yExtent: 240)
        try pointer.motion(time: 2, dx: 4, dy: -2)
        try pointer.frame()
        try client.client.roundtrip()
        try window.client.client.roundtrip()
        guard case .motion(_, let x, let y)? = window.pointer.events.last(where: { $0.name == "motion" }) else {
            Issue.record("no motion: \(window.pointer.events)")
            return
        }
        // (300, 220) then (4, −2) further: the window's (16, 10).
        #expect(x == 16 && y == 10)
    }

    @Test func requestsWaitForTheirFrame() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let (client, pointer) = try remote(session)
        try pointer.motionAbsolute(time: 1, x: 300, y: 220, xExtent: 640, yExtent: 480)
        try client.client.roundtrip()
        try window.client.client.roundtrip()
        #expect(!window.pointer.events.contains { $0.name == "enter" })
        try pointer.frame()
        try client.client.roundtrip()
        try window.client.client.roundtrip()
        #expect(window.pointer.events.contains { $0.name == "enter" })
    }

    /// axis_source describes its frame's scrolling even when it comes after the axis request
    /// (WLCS sends it so); the next frame without one is a wheel's again.
    @Test func theAxisSourceOfAFrameAppliesToItsScrollingWhereverItComes() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let (client, pointer) = try remote(session)
        try pointer.motionAbsolute(time: 1, x: 300, y: 220, xExtent: 640, yExtent: 480)
        try pointer.frame()
        try pointer.axis(time: 2, axis: .verticalScroll, value: 5)
        try pointer.axisSource(axisSource: .continuous)
        try pointer.frame()
        try pointer.axis(time: 3, axis: .verticalScroll, value: 5)
        try pointer.frame()
        try client.client.roundtrip()
        try window.client.client.roundtrip()
        let sources = window.pointer.events.compactMap { event -> UInt32? in
            guard case .axisSource(let source) = event else { return nil }
            return source.rawValue
        }
        #expect(sources == [WlPointerAxisSource.continuous.rawValue, WlPointerAxisSource.wheel.rawValue])
    }

    @Test func anUnknownAxisIsInvalidAxisAndTheCompositorServesOn() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let (client, pointer) = try remote(session)
        try pointer.axis(time: 1, axis: WlPointerAxis(rawValue: 7), value: 1)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(ZwlrVirtualPointerV1Error.invalidAxis, on: pointer))) {
            try client.client.roundtrip()
        }
        try window.client.client.roundtrip()
    }

    @Test func anUnknownAxisSourceIsInvalidAxisSource() throws {
        let session = try HeadlessSession()
        let (client, pointer) = try remote(session)
        try pointer.axisSource(axisSource: WlPointerAxisSource(rawValue: 9))
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(ZwlrVirtualPointerV1Error.invalidAxisSource, on: pointer))) {
            try client.client.roundtrip()
        }
    }

    @Test func aClientWithoutTheVirtualInputPrivilegeDoesNotSeeTheManager() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture])]
        let client = try SessionClient(session)
        #expect(!client.client.globals.values.contains { $0.interface == "zwlr_virtual_pointer_manager_v1" })
        #expect(client.client.globals.values.contains { $0.interface == "zwlr_screencopy_manager_v1" })
    }
}
