import Compositor
import LayerKit
import Testing
import WaylandServer
import WaylandTestClient
import WindowPolicy

/// Windows placed at an explicit position (`KioskWindowPolicy.positionWindow`) stay where they
/// were put while their clients change what they show.
@Suite(.serialized) struct WindowPlacementTests {
    /// A 64×64 window placed with its top-left corner at (20, 30) on a 640×480 output, with a
    /// synchronized 50×50 subsurface at its origin, and a pointer bound by the client.
    private struct PlacedWindow {
        let window: InputWindow
        let subsurfaceSurface: TestProxy
        let subsurface: TestProxy
        let server: Surface

        var client: SessionClient { window.client }
        var pointer: TestProxy { window.pointer }
        var surface: TestProxy { window.surface }

        init(_ session: HeadlessSession) throws {
            window = try InputWindow(session)
            let (client, surface) = (window.client, window.surface)
            server = try #require(client.server.resource(withID: surface.id) as? Surface)
            session.windowPolicy.positionWindow(of: server, x: 20, y: 30)
            let subcompositor = try client.client.bind("wl_subcompositor", version: 1)
            subsurfaceSurface = try client.compositor.send(0, [.newID], interface: "wl_surface")
            subsurface = try subcompositor.send(1, [.newID, .object(subsurfaceSurface), .object(surface)], interface: "wl_subsurface")
            try subsurfaceSurface.send(1, [.object(client.makeBuffer(width: 50, height: 50)), .int(0), .int(0)])
            try subsurfaceSurface.send(6)
            try surface.send(6)
            try client.client.roundtrip()
        }

        /// wl_subsurface.set_position, then the commits that apply it (the subsurface's, then the parent's).
        func moveSubsurface(toX x: Int32, y: Int32) throws {
            try subsurface.send(1, [.int(x), .int(y)])
            try subsurfaceSurface.send(6)
            try surface.send(6)
            try client.client.roundtrip()
        }
    }

    private func fixed(_ value: TestValue?) -> Double? {
        if case .fixed(let number) = value { return number }
        return nil
    }

    @Test func aPlacedWindowStaysPutWhenItsSubsurfaceMovesPastItsTopLeftCorner() throws {
        let session = try HeadlessSession()
        let window = try PlacedWindow(session)
        let layer = try #require(session.compositor.layer(for: window.server))
        #expect(layer.position == Point(x: 20, y: 30))
        session.compositor.pointerMoved(toX: 30, y: 35)
        try window.client.client.roundtrip()
        let enter = try #require(window.pointer.events(named: "enter").last)
        #expect(enter.arguments[1] == .object(window.subsurfaceSurface.id))
        #expect(fixed(enter.arguments[2]) == 10)
        #expect(fixed(enter.arguments[3]) == 5)
        // The window geometry (no explicit one: the bounding box of the surfaces) now starts at
        // (-23, -17), but the surface stays where it was placed.
        try window.moveSubsurface(toX: -23, y: -17)
        #expect(layer.position == Point(x: 20, y: 30))
        let motion = try #require(window.pointer.events(named: "motion").last)
        #expect(fixed(motion.arguments[1]) == 33)
        #expect(fixed(motion.arguments[2]) == 22)
    }

    @Test func aPlacedWindowIsWhereItWasWhenItIsMappedAgain() throws {
        let session = try HeadlessSession()
        let window = try PlacedWindow(session)
        try window.moveSubsurface(toX: -10, y: 0)
        try window.surface.send(1, [.object(nil), .int(0), .int(0)])
        try window.surface.send(6)
        try window.client.client.roundtrip()
        try window.client.show(window.client.makeBuffer(width: 64, height: 64), on: window.surface)
        try window.client.client.roundtrip()
        let layer = try #require(session.compositor.layer(for: window.server))
        #expect(layer.position == Point(x: 20, y: 30))
        // The subsurface reaches 10 points left of the window: (15, 40) is its (5, 10).
        session.compositor.pointerMoved(toX: 15, y: 40)
        try window.client.client.roundtrip()
        let enter = try #require(window.pointer.events(named: "enter").last)
        #expect(enter.arguments[1] == .object(window.subsurfaceSurface.id))
        #expect(fixed(enter.arguments[2]) == 5)
        #expect(fixed(enter.arguments[3]) == 10)
    }
}
