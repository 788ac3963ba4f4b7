import Compositor
import Testing
import WaylandProtocols
import WaylandTestClient

/// xdg_toplevel's suspended state (xdg_wm_base 6) as the kiosk sets it: a window nobody can see.
@Suite struct SuspendedWindowTests {
    /// A mapped fullscreen window of a client that bound xdg_wm_base 6, showing a 640×480 buffer.
    private struct Window {
        let client: SessionClient
        let surface: WlSurfaceProxy
        let toplevel: XdgToplevelProxy

        init(_ session: HeadlessSession, format: WlShmFormat) throws {
            client = try SessionClient(session, shellVersion: 6)
            (surface, _, toplevel) = try CompositorTests.toplevel(client)
            try client.show(client.makeBuffer(width: 640, height: 480, format: format), on: surface)
            try client.client.roundtrip()
        }

        /// Declares the window's surface opaque in (0, 0, width, height), from its next commit on.
        func setOpaqueRegion(width: Int32, height: Int32) throws {
            let region = try client.compositor.createRegion()
            try region.add(x: 0, y: 0, width: width, height: height)
            try surface.setOpaqueRegion(region: region)
        }

        /// Commits, and lets `other`'s client see what followed.
        func commit(seenBy other: Window) throws {
            try surface.commit()
            try client.client.roundtrip()
            try other.client.client.roundtrip()
        }

        /// The states of the window's latest configure, as protocol values.
        var lastStates: [UInt32]? {
            toplevel.events.reversed().lazy.compactMap { event -> [UInt32]? in
                guard case .configure(_, _, let states) = event else { return nil }
                return states.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
            }.first
        }
    }

    @Test func aWindowCoveredByAnOpaqueWindowIsSuspendedUntilThatOneCloses() throws {
        let session = try HeadlessSession()
        let below = try Window(session, format: .xrgb8888)
        #expect(below.lastStates == [2, 4])
        let above = try Window(session, format: .xrgb8888)
        try below.client.client.roundtrip()
        // Fullscreen, no longer activated, and suspended.
        #expect(below.lastStates == [2, 9])
        #expect(above.lastStates == [2, 4])
        try above.toplevel.destroy()
        try above.client.client.roundtrip()
        try below.client.client.roundtrip()
        #expect(below.lastStates == [2, 4])
    }

    @Test func aWindowUnderATranslucentWindowIsNotSuspended() throws {
        let session = try HeadlessSession()
        let below = try Window(session, format: .xrgb8888)
        let above = try Window(session, format: .argb8888)
        try below.client.client.roundtrip()
        #expect(below.lastStates == [2])
        // Declaring the whole surface opaque makes it cover the window below.
        try above.setOpaqueRegion(width: 640, height: 480)
        try above.commit(seenBy: below)
        #expect(below.lastStates == [2, 9])
    }

    @Test func anOpaqueRegionSetOnceCoversTheWindowBelowWhenTheSurfaceGrowsToIt() throws {
        let session = try HeadlessSession()
        let below = try Window(session, format: .xrgb8888)
        let above = try Window(session, format: .argb8888)
        // A translucent 600×480 buffer, opaque where the region says: the whole output, of which
        // the surface covers all but the 20 columns on either side.
        try above.setOpaqueRegion(width: 640, height: 480)
        try above.surface.attach(buffer: above.client.makeBuffer(width: 600, height: 480, format: .argb8888), x: 0, y: 0)
        try above.commit(seenBy: below)
        #expect(below.lastStates == [2])
        // A 640×480 buffer, the region not set again: it now covers the surface, and the window below.
        try above.surface.attach(buffer: above.client.makeBuffer(width: 640, height: 480, format: .argb8888), x: 0, y: 0)
        try above.commit(seenBy: below)
        #expect(below.lastStates == [2, 9])
    }

    @Test func anOpaqueRegionUnsetWithoutANewBufferUncoversTheWindowBelow() throws {
        let session = try HeadlessSession()
        let below = try Window(session, format: .xrgb8888)
        let above = try Window(session, format: .argb8888)
        try above.setOpaqueRegion(width: 640, height: 480)
        try above.commit(seenBy: below)
        #expect(below.lastStates == [2, 9])
        // The same buffer and size; only the region changes.
        try above.surface.setOpaqueRegion(region: nil)
        try above.commit(seenBy: below)
        #expect(below.lastStates == [2])
    }

    @Test func aWindowPartlyUncoveredIsNotSuspended() throws {
        let session = try HeadlessSession()
        let below = try Window(session, format: .xrgb8888)
        let above = try Window(session, format: .xrgb8888)
        // 600×480, centred: 20 columns of the window below show on either side.
        try above.client.show(above.client.makeBuffer(width: 600, height: 480, format: .xrgb8888), on: above.surface)
        try above.client.client.roundtrip()
        try below.client.client.roundtrip()
        #expect(below.lastStates == [2])
    }

    @Test func everyWindowIsSuspendedWhileTheDisplayIsOff() throws {
        let session = try HeadlessSession()
        let window = try Window(session, format: .argb8888)
        session.compositor.setOutputsPowered(false)
        try window.client.client.roundtrip()
        #expect(window.lastStates == [2, 4, 9])
        session.compositor.setOutputsPowered(true)
        try window.client.client.roundtrip()
        #expect(window.lastStates == [2, 4])
    }

    @Test func aClientOfVersion5IsNeverToldItIsSuspended() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session, shellVersion: 5)
        let (surface, _, toplevel) = try CompositorTests.toplevel(client)
        try client.show(client.makeBuffer(width: 640, height: 480), on: surface)
        try client.client.roundtrip()
        let configures = toplevel.events.filter { $0.name == "configure" }.count
        session.compositor.setOutputsPowered(false)
        try client.client.roundtrip()
        #expect(toplevel.events.filter { $0.name == "configure" }.count == configures)
    }
}
