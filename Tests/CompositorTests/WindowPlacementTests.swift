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
        let subsurfaceSurface: WlSurfaceProxy
        let subsurface: WlSubsurfaceProxy
        let server: Surface

        var client: SessionClient { window.client }
        var pointer: WlPointerProxy { window.pointer }
        var surface: WlSurfaceProxy { window.surface }

        init(_ session: HeadlessSession) throws {
            window = try InputWindow(session)
            let (client, surface) = (window.client, window.surface)
            server = try #require(client.server.resource(withID: surface.id) as? Surface)
            session.windowPolicy.positionWindow(of: server, x: 20, y: 30)
            let subcompositor = try client.client.bind(WlSubcompositorProxy.self, version: 1)
            subsurfaceSurface = try client.compositor.createSurface()
            subsurface = try subcompositor.getSubsurface(surface: subsurfaceSurface, parent: surface)
            try subsurfaceSurface.attach(buffer: client.makeBuffer(width: 50, height: 50), x: 0, y: 0)
            try subsurfaceSurface.commit()
            try surface.commit()
            try client.client.roundtrip()
        }

        /// wl_subsurface.set_position, then the commits that apply it (the subsurface's, then the parent's).
        func moveSubsurface(toX x: Int32, y: Int32) throws {
            try subsurface.setPosition(x: x, y: y)
            try subsurfaceSurface.commit()
            try surface.commit()
            try client.client.roundtrip()
        }
    }


    @Test func aPlacedWindowStaysPutWhenItsSubsurfaceMovesPastItsTopLeftCorner() throws {
        let session = try HeadlessSession()
        let window = try PlacedWindow(session)
        let layer = try #require(session.compositor.layer(for: window.server))
        #expect(layer.position == Point(x: 20, y: 30))
        session.compositor.pointerMoved(toX: 30, y: 35)
        try window.client.client.roundtrip()
        let enter = try #require(window.pointer.lastEnter)
        #expect(enter.surface == window.subsurfaceSurface)
        #expect(enter.x == 10 && enter.y == 5)
        // The window geometry (no explicit one: the bounding box of the surfaces) now starts at
        // (-23, -17), but the surface stays where it was placed.
        try window.moveSubsurface(toX: -23, y: -17)
        #expect(layer.position == Point(x: 20, y: 30))
        guard case .motion(_, let x, let y)? = window.pointer.events.last(where: { $0.name == "motion" }) else {
            Issue.record("no motion: \(window.pointer.events)")
            return
        }
        #expect(x == 33 && y == 22)
    }

    @Test func aPlacedWindowIsWhereItWasWhenItIsMappedAgain() throws {
        let session = try HeadlessSession()
        let window = try PlacedWindow(session)
        try window.moveSubsurface(toX: -10, y: 0)
        try window.surface.attach(buffer: nil, x: 0, y: 0)
        try window.surface.commit()
        try window.client.client.roundtrip()
        try window.client.show(window.client.makeBuffer(width: 64, height: 64), on: window.surface)
        try window.client.client.roundtrip()
        let layer = try #require(session.compositor.layer(for: window.server))
        #expect(layer.position == Point(x: 20, y: 30))
        // The subsurface reaches 10 points left of the window: (15, 40) is its (5, 10).
        session.compositor.pointerMoved(toX: 15, y: 40)
        try window.client.client.roundtrip()
        let enter = try #require(window.pointer.lastEnter)
        #expect(enter.surface == window.subsurfaceSurface)
        #expect(enter.x == 5 && enter.y == 10)
    }

    @Test func aCommitThatKeepsTheWindowGeometryDoesNotPlaceTheWindowAgain() throws {
        let session = try HeadlessSession()
        let window = try InputWindow(session)
        let server = try #require(window.client.server.resource(withID: window.surface.id) as? Surface)
        let layer = try #require(session.compositor.layer(for: server))
        #expect(layer.position == Point(x: 288, y: 208))
        // Moved by hand: a commit of a buffer of the same size (the next frame) leaves it there…
        layer.position = Point(x: 1, y: 2)
        try window.client.show(window.client.makeBuffer(width: 64, height: 64), on: window.surface)
        try window.client.client.roundtrip()
        #expect(layer.position == Point(x: 1, y: 2))
        // …and one that changes the window's size centres it again.
        try window.client.show(window.client.makeBuffer(width: 32, height: 32), on: window.surface)
        try window.client.client.roundtrip()
        #expect(layer.position == Point(x: 304, y: 224))
    }
}
