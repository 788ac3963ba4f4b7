import Compositor
import DisplayBackend
import Graphics
import HeadlessBackend
import Testing
import WaylandTestClient

/// Displays plugged in and out while clients run: wl_output globals come and go, and windows of an
/// unplugged primary output move, fullscreen, to the output that takes its place.
@Suite(.serialized) struct OutputHotplugTests {
    private let white = PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255)

    private func config(_ width: Int, _ height: Int) -> HeadlessOutputConfiguration {
        HeadlessOutputConfiguration(mode: OutputMode(width: width, height: height, refreshMillihertz: 60_000))
    }

    /// The registry's wl_output globals: name → version.
    private func outputGlobals(_ client: TestClient) -> [UInt32] {
        client.globals.filter { $0.value.interface == "wl_output" }.keys.sorted()
    }

    @Test func aPluggedOutputIsAnnouncedRightOfTheFirstAndAnUnpluggedOneWithdrawn() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        #expect(outputGlobals(client.client).count == 1)

        let second = try session.backend.addOutput(config(800, 600))
        try client.client.roundtrip()
        let names = outputGlobals(client.client)
        #expect(names.count == 2)
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-1", "HEADLESS-2"])
        // The newest wl_output: its geometry puts it at x 640, its mode is 800×600.
        let newest = try client.client.bind(WlOutputProxy.self, name: names[1], version: 4)
        try client.client.roundtrip()
        guard case .geometry(let x, let y, _, _, _, _, _, _)? = newest.events.first(where: { $0.name == "geometry" }),
              case .mode(_, let width, let height, _)? = newest.events.first(where: { $0.name == "mode" }) else {
            Issue.record("no geometry and mode: \(newest.events)")
            return
        }
        #expect([x, y, width, height] == [640, 0, 800, 600])
        #expect(newest.events.contains(.name(name: "HEADLESS-2")))

        session.backend.removeOutput(second)
        try client.client.roundtrip()
        #expect(outputGlobals(client.client) == [names[0]])
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-1"])
        // The bound object stays usable: releasing it is no protocol error.
        try newest.release()
        try client.client.roundtrip()
        #expect(client.client.protocolError == nil)
        // A new display gets a new name, never an old one's.
        _ = try session.backend.addOutput(config(320, 240))
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-1", "HEADLESS-3"])
    }

    @Test func windowsOfAnUnpluggedPrimaryMoveToTheNextOutputFullscreenAtItsSize() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        let first = try client.client.bind(WlOutputProxy.self, version: 4)
        let (surface, xdgSurface, toplevel) = try toplevel(client)
        #expect(configuredSize(toplevel) == [640, 480])
        try client.show(client.makeBuffer(width: 640, height: 480, fill: fillPixels(0xffff_ffff, count: 640 * 480)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.compositor.capture(outputAt: 0)?.pixel(x: 320, y: 240) == white })
        try client.client.roundtrip()
        #expect(surface.events == [.enter(output: first)])

        let second = try session.backend.addOutput(config(800, 600))
        try client.client.roundtrip()
        let secondName = try #require(outputGlobals(client.client).last)
        let secondOutput = try client.client.bind(WlOutputProxy.self, name: secondName, version: 4)
        session.backend.removeOutput(session.backend.headlessOutput(0))
        try client.client.roundtrip()
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-2"])
        #expect(surface.events.filter { $0.name == "leave" } == [.leave(output: first)])
        #expect(configuredSize(toplevel) == [800, 600])

        try client.acknowledgeConfigure(of: xdgSurface)
        try client.show(client.makeBuffer(width: 800, height: 600, fill: fillPixels(0xffff_ffff, count: 800 * 600)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { second.lastShownImage?.pixel(x: 799, y: 599) == white })
        try client.client.roundtrip()
        #expect(surface.events.filter { $0.name == "enter" } == [.enter(output: first), .enter(output: secondOutput)])
        #expect(client.client.protocolError == nil)
    }

    @Test func aMoreImportantOutputPluggedInBecomesThePrimaryAndTakesTheWindows() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        let (surface, xdgSurface, toplevel) = try toplevel(client)
        try client.show(client.makeBuffer(width: 640, height: 480, fill: fillPixels(0xffff_ffff, count: 640 * 480)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.compositor.capture(outputAt: 0)?.pixel(x: 0, y: 0) == white })

        let primary = try session.backend.addOutput(config(800, 600), at: 0)
        try client.client.roundtrip()
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-2", "HEADLESS-1"])
        #expect(configuredSize(toplevel) == [800, 600])
        try client.acknowledgeConfigure(of: xdgSurface)
        try client.show(client.makeBuffer(width: 800, height: 600, fill: fillPixels(0xffff_ffff, count: 800 * 600)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { primary.lastShownImage?.pixel(x: 799, y: 599) == white })
        // The former primary shows no window any more.
        #expect(try session.run(seconds: 30) { session.compositor.capture(outputAt: 1)?.pixel(x: 320, y: 240) == black })
    }

    @Test func withNoOutputTheCompositorRunsOnAndTheNextOutputTakesTheWindows() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        let (surface, xdgSurface, toplevel) = try toplevel(client)
        try client.show(client.makeBuffer(width: 640, height: 480, fill: fillPixels(0xffff_ffff, count: 640 * 480)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.compositor.capture(outputAt: 0)?.pixel(x: 0, y: 0) == white })

        session.backend.removeOutput(session.backend.headlessOutput(0))
        try client.client.roundtrip()
        #expect(session.compositor.outputStatuses.isEmpty)
        #expect(outputGlobals(client.client).isEmpty)
        // With no output the client picks its size.
        #expect(configuredSize(toplevel) == [0, 0])
        try client.acknowledgeConfigure(of: xdgSurface)
        try client.show(client.makeBuffer(width: 320, height: 200, fill: fillPixels(0xffff_ffff, count: 320 * 200)), on: surface)
        try client.client.roundtrip()
        try session.run(seconds: 0.2)
        #expect(client.client.protocolError == nil)

        let next = try session.backend.addOutput(config(1024, 768))
        try client.client.roundtrip()
        #expect(outputGlobals(client.client).count == 1)
        #expect(configuredSize(toplevel) == [1024, 768])
        // The 320×200 buffer shows centred on the new output until the client redraws: 352…672 × 284…484.
        #expect(try session.run(seconds: 30) { next.lastShownImage?.pixel(x: 352, y: 284) == white })
        #expect(next.lastShownImage?.pixel(x: 351, y: 284) == black)
        #expect(next.lastShownImage?.pixel(x: 671, y: 483) == white)
        #expect(next.lastShownImage?.pixel(x: 672, y: 483) == black)
    }
}
