@testable import Compositor
import Testing
@testable import WaylandServer
import WaylandTestClient

/// The output keeps the surfaces a frame shows until the frame is presented without weak
/// references (each would give the surface a side table, sending every retain and release of it,
/// dozens a frame, through the runtime's slow path), and lets them go once it is.
@Suite(.serialized) struct ShownSurfaceReferenceTests {
    /// A window of `width`×`height` XRGB8888 on a 640×480 output drawn by the CPU renderer, shown
    /// with a frame callback that has fired; the server's surface.
    private func shownWindow(width: Int, height: Int) throws -> (session: HeadlessSession, client: SessionClient, surface: WlSurfaceProxy, server: Surface) {
        let session = try HeadlessSession(width: 640, height: 480, renderer: .cpu)
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        let buffer = try MappedBuffer(client, width: width, height: height)
        try surface.attach(buffer: buffer.proxy, x: 0, y: 0)
        let callback = try surface.frame()
        try surface.commit()
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) {
            try? client.client.pump()
            return !callback.events.isEmpty
        })
        let server = try #require(session.compositor.nodes.values.first { $0.surface.client === client.server }).surface
        return (session, client, surface, server)
    }

    /// Scanned out (the buffer fills the output) or composed (a smaller window), the shown
    /// surface's weak count is its own (the keyboard focus, the text-input focus that follows it
    /// and the pointer focus hold it strongly): the output adds none.
    @Test(arguments: [(640, 480, true), (320, 240, false)])
    func aSurfaceThatFramesShowIsNotWeaklyReferencedByTheOutput(width: Int, height: Int, scannedOut: Bool) throws {
        let (session, client, _, server) = try shownWindow(width: width, height: height)
        defer { withExtendedLifetime(client) {} }
        #expect(session.compositor.outputs[0].isScanningOutDirectly == scannedOut)
        let seat = session.compositor.seat
        #expect(seat.keyboardFocus === server)
        #expect(seat.textInput.focus === server)
        #expect(_getWeakRetainCount(server) == 1)
    }

    /// The surface of a shown window whose client leaves is released: the presented frame that
    /// showed it holds it no more.
    @Test func aShownSurfaceIsReleasedWhenItsClientLeaves() throws {
        var window: (session: HeadlessSession, client: SessionClient, surface: WlSurfaceProxy, server: Surface)? = try shownWindow(width: 640, height: 480)
        let session = try #require(window?.session), client = try #require(window?.client)
        weak var released = window?.server
        window = nil
        #expect(released != nil)
        client.server.disconnect()
        #expect(try session.runFrames(1))
        #expect(released == nil)
        withExtendedLifetime(client) {}
    }
}
