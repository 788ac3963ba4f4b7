import Compositor
import Foundation
import Graphics
import Testing

/// Clients that no one here wrote, from Debian, on the headless compositor: each test checks what
/// the client must have drawn at probe pixels derived from the client's own drawing code and the
/// kiosk policy (windows centred on the 640×480 output, fullscreen when the client follows the
/// configure), or what it must have printed.
@Suite(.serialized) struct RealClientTests {
    @Test func westonSimpleShmIsCentredWithItsWhiteTwentyPixelBorder() throws {
        let session = try HeadlessSession()
        try session.launch(["weston-simple-shm"])
        #expect(try session.runFrames(10, seconds: 30))
        let screen = try #require(session.screen)
        // A 250×250 window centred on 640×480 starts at (195, 115); simple-shm leaves a 20-pixel
        // border of its 0xff-filled buffer and paints its rings inside.
        #expect(screen.pixel(x: 194, y: 200) == black)
        #expect(screen.pixel(x: 195, y: 200) == white)
        #expect(screen.pixel(x: 214, y: 130) == white)
        #expect(screen.pixel(x: 444, y: 364) == white)
        #expect(screen.pixel(x: 445, y: 364) == black)
        let centre = screen.pixel(x: 320, y: 240)
        #expect(centre != white && centre != black)
    }

    @Test func westonSimpleDamageDrawsItsBorderedWindowAndBall() throws {
        let session = try HeadlessSession()
        try session.launch(["weston-simple-damage"])
        #expect(try session.runFrames(10, seconds: 30))
        let screen = try #require(session.screen)
        // A 300×200 window centred at (170, 140): white border, black inside, a green ball that
        // moves with the clock, so no one pixel inside is sure to be black when the screen is read.
        #expect(screen.pixel(x: 169, y: 200) == black)
        #expect(screen.pixel(x: 171, y: 200) == white)
        #expect(screen.pixel(x: 468, y: 200) == white)
        var greenPixels = 0
        for y in 150..<330 {
            for x in 180..<460 {
                let p = screen.pixel(x: x, y: y)
                if p.green > 200 && p.red < 60 && p.blue < 60 { greenPixels += 1 }
            }
        }
        // The ball is a disc of radius 10 or so: hundreds of pixels, not none and not the window.
        #expect(greenPixels > 150 && greenPixels < 2000)
        // Well inside the border, all is black but the ball (fewer than 2,000 pixels, its edge
        // included) wherever it is.
        var blackPixels = 0
        for y in 170..<310 {
            for x in 200..<440 where screen.pixel(x: x, y: y) == black { blackPixels += 1 }
        }
        #expect(blackPixels > 240 * 140 - 2000, "\(blackPixels) black pixels")
    }

    @Test func westonSubsurfacesShowsItsSubsurfacesOverTheFullscreenMainSurface() throws {
        let session = try HeadlessSession()
        try session.launch(["weston-subsurfaces"])
        #expect(try session.runFrames(10, seconds: 30))
        let screen = try #require(session.screen)
        // The main surface fills the output (it follows the fullscreen configure) in green; the
        // red and dark-green subsurfaces sit at its right, top and bottom.
        let main = screen.pixel(x: 10, y: 10)
        #expect(main.green > 120 && main.red < 40 && main.blue < 40)
        let red = screen.pixel(x: 630, y: 10)
        #expect(red.red > 120 && red.green < 60)
        let darkGreen = screen.pixel(x: 630, y: 470)
        #expect(darkGreen.green > 50 && darkGreen.green < main.green && darkGreen.red < 30)
    }

    @Test func westonPresentationShmGetsVsyncPresentationFeedback() throws {
        let session = try HeadlessSession()
        // It binds xdg_wm_base at the version advertised, with no handler for wm_capabilities.
        session.compositor.clientsWithoutWindowCapabilities = [.executable("/usr/bin/weston-presentation-shm")]
        // Line-buffered, so that what it printed is in the file when it is stopped.
        try session.launch(["stdbuf", "-oL", "weston-presentation-shm", "-f"])
        #expect(try session.runFrames(30, seconds: 60))
        session.client?.terminate()
        let output = session.clientOutput
        // Each line: "N: f2c … c2p … [s___], seq N"; 's' is wp_presentation's vsync flag.
        let lines = output.split(separator: "\n").filter { $0.contains("c2p") }
        #expect(lines.count >= 5, "presentation-shm printed: \(output)")
        #expect(lines.allSatisfy { $0.contains("[s___]") })
    }

    @Test func footFillsTheOutputWithItsBackground() throws {
        let session = try HeadlessSession(width: 640, height: 480, scale: 2)
        try session.launch(["foot", "--override=colors.background=204060", "sh", "-c", "sleep 30"])
        // foot draws once and then idles: an idle screen presents no more frames, so wait for the colour.
        let background = PremultipliedPixel(red: 0x20, green: 0x40, blue: 0x60, alpha: 255)
        func cursorIsSolid(_ screen: Image) -> Bool {
            // A focused terminal draws a solid block cursor in its first cell in its light
            // foreground colour (an unfocused one draws a hollow box): the keyboard focus arrived.
            let cursor = screen.pixel(x: 8, y: 14)
            return cursor.red > 180 && cursor.green > 180 && cursor.blue > 160
        }
        let drawn = try session.run(seconds: 30) {
            guard let screen = session.screen else { return false }
            return screen.pixel(x: 600, y: 400) == background && cursorIsSolid(screen)
        }
        #expect(drawn, "foot printed: \(session.clientOutput)")
        // foot warns where zwp_primary_selection_device_manager_v1 is missing.
        #expect(!session.clientOutput.contains("no primary selection available"), "foot printed: \(session.clientOutput)")
        let screen = try #require(session.screen)
        // The terminal fills the whole output (it follows the fullscreen configure), corners included.
        #expect(screen.pixel(x: 0, y: 479) == background)
        #expect(screen.pixel(x: 639, y: 0) == background)
        #expect(cursorIsSolid(screen))
    }

    @Test func waylandInfoListsEveryAdvertisedGlobalAtItsVersion() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/wayland-info"), privileges: Set(Privilege.allCases))]
        try session.launch(["wayland-info"])
        #expect(try session.run(seconds: 30) { session.client?.poll() == true })
        let output = session.clientOutput
        for (name, version) in Compositor.advertisedProtocols {
            let pattern = "interface: '\(name)',"
            let line = output.split(separator: "\n").first { $0.contains(pattern) }
            #expect(line?.contains("version: \(String(version).leftPadded(to: 2))") == true, "\(name) v\(version) in: \(line ?? "nothing")")
        }
    }
}

extension RealClientTests {
    /// Without a privilege rule that names it, wayland-info lists none of the privileged globals.
    @Test func waylandInfoWithoutPrivilegesListsNoPrivilegedGlobal() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable("/usr/bin/true"), privileges: Set(Privilege.allCases))]
        try session.launch(["wayland-info"])
        #expect(try session.run(seconds: 30) { session.client?.poll() == true })
        let output = session.clientOutput
        #expect(output.contains("interface: 'wl_compositor',"))
        for (name, _) in Compositor.advertisedProtocols where Privilege.required(forInterface: name) != nil {
            #expect(!output.contains("interface: '\(name)',"), "\(name) is listed")
        }
    }

    /// wayland-info reads the dma-buf formats a version 3 global announces as events: the four
    /// that lavapipe imports, each linear.
    @Test func waylandInfoListsTheLinearDmabufFormats() throws {
        let session = try HeadlessSession()
        try session.launch(["wayland-info"])
        #expect(try session.run(seconds: 30) { session.client?.poll() == true })
        let lines = session.clientOutput.split(separator: "\n")
        let global = try #require(lines.firstIndex { $0.contains("interface: 'zwp_linux_dmabuf_v1',") }, "\(session.clientOutput)")
        #expect(lines[global].contains("version:  3"))
        #expect(lines[(global + 1)...].prefix(5).map { $0.trimmingCharacters(in: .whitespaces) } == [
            "formats (fourcc) and modifiers (names):",
            "0x34324258 = 'XB24'; 0x0000000000000000 = LINEAR",
            "0x34324241 = 'AB24'; 0x0000000000000000 = LINEAR",
            "0x34325258 = 'XR24'; 0x0000000000000000 = LINEAR",
            "0x34325241 = 'AR24'; 0x0000000000000000 = LINEAR",
        ])
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: " ", count: max(0, width - count)) + self
    }
}
