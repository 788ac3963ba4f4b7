import Compositor
import DisplayBackend
import Graphics
import HeadlessBackend
import Testing
import WaylandTestClient

/// A display that stays connected but changes its mode (a monitor swapped on the same port, a
/// virtual display resized), and a compositor that starts before any display is connected.
@Suite(.serialized) struct OutputModeTests {
    private func mode(_ width: Int, _ height: Int) -> OutputMode {
        OutputMode(width: width, height: height, refreshMillihertz: 60_000)
    }

    @Test func aResizedOutputSendsItsNewModeAndLogicalSizeInOneBurstAndItsWindowFillsTheNewSize() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        let output = try client.client.bind(WlOutputProxy.self, version: 4)
        let manager = try client.client.bind(ZxdgOutputManagerV1Proxy.self, version: 3)
        let xdgOutput = try manager.getXdgOutput(output: output)
        let (surface, xdgSurface, toplevel) = try toplevel(client)
        #expect(configuredSize(toplevel) == [640, 480])
        try client.show(client.makeBuffer(width: 640, height: 480, fill: fillPixels(0xffff_ffff, count: 640 * 480)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 639, y: 479) == white })
        output.clearEvents()
        xdgOutput.clearEvents()
        let configures = toplevel.events.filter { $0.name == "configure" }.count

        try session.backend.changeMode(of: session.backend.headlessOutput(0), to: mode(1024, 768))
        try client.client.roundtrip()
        #expect(output.events.map(\.name) == ["geometry", "mode", "scale", "name", "description", "done"])
        // Current and preferred (0x1 | 0x2), 1024×768 at 60 Hz.
        #expect(output.events[1] == .mode(flags: [.current, .preferred], width: 1024, height: 768, refresh: 60000))
        #expect(xdgOutput.events == [
            .logicalSize(width: 1024, height: 768), .description(description: "Vitrine headless output 1 (1024x768@60.0)"),
        ])
        #expect(session.compositor.outputStatuses.map { [$0.width, $0.height] } == [[1024, 768]])
        #expect(configuredSize(toplevel) == [1024, 768])
        // One configure, at the new size.
        #expect(toplevel.events.filter { $0.name == "configure" }.count == configures + 1)

        try client.acknowledgeConfigure(of: xdgSurface)
        try client.show(client.makeBuffer(width: 1024, height: 768, fill: fillPixels(0xffff_ffff, count: 1024 * 768)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.screen?.width == 1024 && session.screen?.pixel(x: 1023, y: 767) == white })
        let screen = try #require(session.screen)
        #expect(screen.height == 768)
        #expect(screen.pixel(x: 0, y: 0) == white)
        #expect(screen.pixel(x: 512, y: 384) == white)
        #expect(client.client.protocolError == nil)
    }

    @Test func aRotatedOutputThatChangesModeConfiguresItsWindowsAtTheTurnedSize() throws {
        let session = try HeadlessSession(width: 640, height: 480, transform: .rotated90)
        let client = try SessionClient(session)
        let (_, _, toplevel) = try toplevel(client)
        #expect(configuredSize(toplevel) == [480, 640])

        try session.backend.changeMode(of: session.backend.headlessOutput(0), to: mode(1024, 768))
        try client.client.roundtrip()
        #expect(configuredSize(toplevel) == [768, 1024])
        // The scanout is the new mode: a frame of 1024×768 pixels, black where no window draws.
        #expect(try session.run(seconds: 30) { session.screen?.width == 1024 })
        #expect(session.screen?.height == 768)
        #expect(session.screen?.pixel(x: 1023, y: 767) == black)
    }

    @Test func aCompositorStartedWithNoOutputShowsTheAppsWindowOnTheFirstOutputPluggedIn() throws {
        let session = try HeadlessSession(outputs: [])
        let client = try SessionClient(session)
        #expect(client.client.globals.values.filter { $0.interface == "wl_output" }.isEmpty)
        try session.launch(["weston-simple-shm"])
        // The app connects and draws with no output: nothing to show it on, and nothing breaks.
        #expect(try session.run(seconds: 10) { session.compositor.connectedClientCount == 2 })
        try session.run(seconds: 1)
        #expect(session.compositor.outputStatuses.isEmpty)
        #expect(session.screen == nil)

        _ = try session.backend.addOutput(HeadlessOutputConfiguration(mode: mode(640, 480)))
        try client.client.roundtrip()
        #expect(client.client.globals.values.filter { $0.interface == "wl_output" }.count == 1)
        #expect(session.compositor.outputStatuses.map(\.name) == ["HEADLESS-1"])
        // simple-shm's 250×250 window, centred on 640×480 from (195, 115), with its white 20-pixel border.
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 195, y: 200) == white })
        let screen = try #require(session.screen)
        #expect(screen.pixel(x: 194, y: 200) == black)
        #expect(screen.pixel(x: 444, y: 364) == white)
        #expect(screen.pixel(x: 445, y: 364) == black)
    }
}
