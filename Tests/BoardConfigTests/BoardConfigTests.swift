import Foundation
import Testing

@testable import BoardConfig

/// The repository's board-configs/ folder, found from this file so the test needs no install.
private let boardConfigsFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("board-configs")

private func shippedBoard(_ name: String) throws -> BoardConfiguration {
    try BoardConfiguration.load(contentsOfFile: boardConfigsFolder.appendingPathComponent("\(name).toml").path).get()
}

private func fixturePath(_ name: String) throws -> String {
    try #require(Bundle.module.url(forResource: name, withExtension: "toml", subdirectory: "Fixtures")).path
}

/// The diagnostics for `text` as `file.toml`, as check-config would print them.
private func problems(_ text: String) -> [String] {
    switch BoardConfiguration.parse(text, file: "board.toml") {
    case .success: []
    case .failure(let error): error.diagnostics.map(\.description)
    }
}

/// A file that is valid except for `outputs` (one or more [[output]] tables and their neighbours).
private func withApp(_ outputs: String) -> String {
    outputs + "\n[app]\ncommand = [\"/usr/bin/cog\"]\n"
}

@Suite struct ShippedBoards {
    @Test func everyShippedFileParsesAndValidates() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: boardConfigsFolder.path)
            .filter { $0.hasSuffix(".toml") }.sorted()
        #expect(
            files == [
                "generic.toml", "intel-nuc.toml", "qemu-virtio-gpu.toml", "raspberry-pi-4.toml",
                "raspberry-pi-5.toml", "rockchip-rk3588.toml",
            ])
        for file in files {
            let result = BoardConfiguration.load(contentsOfFile: boardConfigsFolder.appendingPathComponent(file).path)
            switch result {
            case .success(let board):
                #expect(board.name + ".toml" == file, "a board's name is its file's name, the unit's instance")
                #expect(!board.outputs.isEmpty)
                #expect(!board.app.command.isEmpty)
            case .failure(let error):
                Issue.record("\(file) is invalid:\n\(error)")
            }
        }
    }

    @Test func qemuGuestUsesTheVirtualConnectorAt1280x800And75Hertz() throws {
        let board = try shippedBoard("qemu-virtio-gpu")
        #expect(
            board
                == BoardConfiguration(
                    name: "qemu-virtio-gpu",
                    summary: "QEMU guest, virtio-gpu, one 1280x800 virtual display",
                    outputs: [
                        OutputConfiguration(
                            connector: .named("Virtual-1"), mode: .exact(width: 1280, height: 800, refreshRate: 75))
                    ],
                    input: InputConfiguration(
                        keyboard: KeyboardConfiguration(
                            layout: "us", repeatRate: 25, repeatDelay: .milliseconds(600))),
                    app: AppConfiguration(
                        command: ["/usr/bin/foot", "--hold", "sh", "-c", "echo 'Vitrine kiosk on a QEMU guest'; uname -sr"],
                        environment: ["LANG": "C.UTF-8"],
                        unresponsiveTimeout: .seconds(30)),
                    idle: IdleConfiguration(blankAfter: nil, wakesOnTouch: true),
                    cursor: CursorConfiguration(isVisible: true),
                    splash: SplashConfiguration(backgroundColor: RGBColor(red: 0x1D, green: 0x35, blue: 0x57))))
    }

    @Test func raspberryPi5MapsTheDSITouchscreenAndMirrorsToHDMI() throws {
        let board = try shippedBoard("raspberry-pi-5")
        #expect(
            board.outputs == [
                OutputConfiguration(
                    connector: .named("DSI-1"), mode: .exact(width: 800, height: 480, refreshRate: 60)),
                OutputConfiguration(connector: .named("HDMI-A-1"), mode: .preferred, placement: .mirror(of: "DSI-1")),
            ])
        #expect(
            board.input.touchscreens == [
                TouchscreenMapping(deviceName: "generic ft5x06 (00)", output: "DSI-1", calibration: .identity)
            ])
        #expect(board.idle == IdleConfiguration(blankAfter: .seconds(300), wakesOnTouch: true))
        #expect(board.cursor.isVisible == false)
        #expect(board.app.unresponsiveTimeout == .seconds(15))
        #expect(board.splash.imagePath == "/usr/share/vitrine/splash.png")
        #expect(board.splash.backgroundColor.description == "#102030")
        #expect(board.onScreenKeyboard == OnScreenKeyboardSettings(isEnabled: true, layouts: ["us"]))
    }

    @Test func outlineSaysWhatTheBoardWillDo() throws {
        #expect(
            try shippedBoard("raspberry-pi-5").outline() == [
                "board raspberry-pi-5: Raspberry Pi 5, official 7-inch DSI touch display, HDMI mirror",
                "output DSI-1: 800x480 at 60 Hz, scale 1, at 0,0",
                "output HDMI-A-1: preferred mode, scale 1, mirrors DSI-1, scaled to fit, no wl_output",
                "keyboard us, repeat 25/s after 600 ms",
                "touchscreen \"generic ft5x06 (00)\" on DSI-1",
                "app /usr/bin/cog --platform=wl http://localhost:8080/, in /var/lib/vitrine, windows fitted by scale",
                "idle: blank after 300 s, a touch wakes",
                "cursor hidden",
                "splash /usr/share/vitrine/splash.png on #102030",
                "on-screen keyboard us, hidden while a keyboard is attached",
            ])
        #expect(
            try shippedBoard("intel-nuc").outline()[1...4] == [
                "output HDMI-A-1: 1920x1080 at 60 Hz, scale 1, at 0,0",
                "output DP-1: 3840x2160 at 60 Hz, scale 2, at 1920,0",
                "output eDP-1: preferred mode, scale 1.25, at 0,1080",
                "keyboard de,us (nodeadkeys,) [grp:alt_shift_toggle, ctrl:nocaps], repeat 30/s after 400 ms",
            ])
    }

    @Test func intelNUCExtendsAcrossThreeOutputsWithFractionalScale() throws {
        let board = try shippedBoard("intel-nuc")
        #expect(
            board.outputs == [
                OutputConfiguration(
                    connector: .named("HDMI-A-1"), mode: .exact(width: 1920, height: 1080, refreshRate: 60),
                    placement: .position(x: 0, y: 0)),
                OutputConfiguration(
                    connector: .named("DP-1"), mode: .exact(width: 3840, height: 2160, refreshRate: 60), scale: 2,
                    placement: .position(x: 1920, y: 0)),
                OutputConfiguration(
                    connector: .named("eDP-1"), mode: .preferred, scale: 1.25, placement: .position(x: 0, y: 1080)),
            ])
        #expect(
            board.input.keyboard
                == KeyboardConfiguration(
                    layout: "de,us", variant: "nodeadkeys,", options: ["grp:alt_shift_toggle", "ctrl:nocaps"],
                    repeatRate: 30, repeatDelay: .milliseconds(400)))
        #expect(board.app.command.first == "/usr/bin/chromium")
        #expect(board.app.workingDirectory == "/var/lib/vitrine")
        #expect(board.app.frameTimeout == nil)
    }

    @Test func rk3588IsPortraitWithANineNumberCalibrationReducedToSix() throws {
        let board = try shippedBoard("rockchip-rk3588")
        #expect(board.outputs.map(\.transform) == [.rotated90])
        #expect(board.input.touchscreens.map(\.calibration.coefficients) == [[1.02, 0, -0.01, 0, 1, 0]])
        #expect(board.input.keyboard.repeatRate == 0)
        #expect(board.app.frameTimeout == .seconds(120))
        #expect(board.idle == IdleConfiguration(blankAfter: nil, wakesOnTouch: false))
        #expect(board.onScreenKeyboard == OnScreenKeyboardSettings(isEnabled: true, layouts: ["us"]))
    }

    @Test func genericFallbackTakesTheFirstConnectedConnectorAtItsPreferredMode() throws {
        let board = try shippedBoard("generic")
        #expect(board.outputs == [OutputConfiguration(connector: .firstConnected, mode: .preferred, scale: 1)])
        #expect(board.input == InputConfiguration())
    }

    @Test func aMinimalFileGetsTheDocumentedDefaults() throws {
        let board = try BoardConfiguration.load(contentsOfFile: fixturePath("valid-minimal")).get()
        #expect(
            board
                == BoardConfiguration(
                    name: "valid-minimal", summary: nil,
                    outputs: [
                        OutputConfiguration(
                            connector: .named("HDMI-A-1"), mode: .preferred, scale: 1, transform: .normal,
                            placement: .automatic)
                    ],
                    input: InputConfiguration(
                        keyboard: KeyboardConfiguration(
                            layout: "us", variant: "", options: [], repeatRate: 25, repeatDelay: .milliseconds(600)),
                        touchscreens: []),
                    app: AppConfiguration(
                        command: ["/usr/bin/cog", "https://example.com"], environment: [:], workingDirectory: nil,
                        user: nil, unresponsiveTimeout: .seconds(10), frameTimeout: nil),
                    idle: IdleConfiguration(blankAfter: nil, wakesOnTouch: true),
                    cursor: CursorConfiguration(isVisible: true),
                    splash: SplashConfiguration(imagePath: nil, backgroundColor: RGBColor(red: 0, green: 0, blue: 0))))
    }
}

@Suite struct OutputLayoutOutline {
    @Test func anOutputWithoutPositionIsAtTheOriginUntilAnOutputThatIsNoMirrorCameBefore() throws {
        let text = withApp("""
            [[output]]
            connector = "HDMI-A-1"
            mirror = "DSI-1"

            [[output]]
            connector = "DSI-1"

            [[output]]
            connector = "DP-1"
            """)
        let board = try BoardConfiguration.parse(text, file: "board.toml").get()
        #expect(board.outline()[1...3] == [
            "output HDMI-A-1: preferred mode, scale 1, mirrors DSI-1, scaled to fit, no wl_output",
            "output DSI-1: preferred mode, scale 1, at 0,0",
            "output DP-1: preferred mode, scale 1, right of the rightmost output before it, top-aligned",
        ])
    }
}

@Suite struct PointerSection {
    let output = "[[output]]\nconnector = \"DP-1\"\n"

    @Test func naturalScrollingIsOnOffOrLibinputsDefault() throws {
        for (text, expected) in [("", nil), ("[input.pointer]\nnatural-scrolling = true\n", true),
                                 ("[input.pointer]\nnatural-scrolling = false\n", false)] as [(String, Bool?)] {
            let board = try BoardConfiguration.parse(withApp(output + text), file: "board.toml").get()
            #expect(board.input.naturalScrolling == expected)
            // check-config says what the board chose, and nothing when it leaves libinput's default.
            #expect(board.outline().filter { $0.hasPrefix("pointers") }
                == expected.map { ["pointers: natural scrolling \($0 ? "on" : "off")"] } ?? [])
        }
    }

    @Test func naturalScrollingTakesOnlyABoolean() {
        #expect(
            problems(withApp(output + "[input.pointer]\nnatural-scrolling = \"yes\"\n")) == [
                "board.toml:4:21: error: 'natural-scrolling' in [input.pointer] must be true or false, not a string "
                    + "(fix: write it like natural-scrolling = true)"
            ])
        #expect(
            problems(withApp(output + "[input.pointer]\nnatural-scroll = true\n")) == [
                "board.toml:4:1: error: unknown key 'natural-scroll' in [input.pointer] (fix: did you mean 'natural-scrolling'?)"
            ])
    }
}

@Suite struct PrinterSection {
    let outputs = "[[output]]\nconnector = \"HDMI-A-1\"\n"

    @Test func aPrinterNamesItsQueueServerAndPaper() throws {
        let text = withApp(outputs) + "\n[printer]\nqueue = \"ticket\"\nserver = \"/run/cups/cups.sock\"\npaper = \"receipt-80mm\"\n"
        let board = try BoardConfiguration.parse(text, file: "board.toml").get()
        #expect(board.printer == PrinterConfiguration(queue: "ticket", server: "/run/cups/cups.sock", paper: .receipt80mm))
        #expect(board.outline().last == "printer ticket (receipt-80mm) on /run/cups/cups.sock")
        let plain = try BoardConfiguration.parse(withApp(outputs) + "\n[printer]\nqueue = \"office\"\n", file: "board.toml").get()
        #expect(plain.printer == PrinterConfiguration(queue: "office", server: nil, paper: .a4))
        #expect(try BoardConfiguration.parse(withApp(outputs), file: "board.toml").get().printer == nil)
    }

    @Test func aBadPrinterSectionIsReportedWithAFix() {
        #expect(
            problems(withApp(outputs) + "\n[printer]\nqueue = \"front desk\"\npaper = \"a5\"\n") == [
                "board.toml:8:9: error: printer queue 'front desk' is not a CUPS destination name (fix: use the name lpstat -p shows, e.g. queue = \"ticket\" (no spaces, '/' or '#'))",
                "board.toml:9:9: error: paper 'a5' is not one Vitrine lays pages out for (fix: use one of \"a4\", \"letter\", \"receipt-80mm\", \"receipt-58mm\")",
            ])
        #expect(
            problems(withApp(outputs) + "\n[printer]\npaper = \"a4\"\n") == [
                "board.toml:7:1: error: [printer] has no 'queue' (fix: add queue = \"ticket\")"
            ])
    }
}

@Suite struct Diagnostics {
    @Test func aSyntaxErrorGivesTOMLsPositionAndMessage() throws {
        let path = try fixturePath("syntax-error")
        guard case .failure(let error) = BoardConfiguration.load(contentsOfFile: path) else {
            Issue.record("a syntax error was accepted")
            return
        }
        #expect(error.diagnostics.count == 1)
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.file == path)
        #expect(diagnostic.line == 3)
        #expect(diagnostic.column == 12)
        #expect(diagnostic.message == "invalid TOML: Error while parsing decimal integer: expected digit, saw 'x'")
        #expect(
            diagnostic.fix
                == "correct the syntax here: strings in double quotes, one key = value per line, "
                + "[table] and [[array of tables]] headers on their own lines")
    }

    @Test func everyProblemOfAFileIsReportedInLineOrder() throws {
        let path = try fixturePath("many-problems")
        guard case .failure(let error) = BoardConfiguration.load(contentsOfFile: path) else {
            Issue.record("an invalid file was accepted")
            return
        }
        let convention =
            "the kernel names connectors TYPE-N, such as HDMI-A-1, DP-1, eDP-1, DSI-1 or Virtual-1 "
            + "(ls /sys/class/drm lists them), or use \"first-connected\""
        #expect(
            error.diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0): \($0.message) (fix: \($0.fix))" } == [
                "6:13: unknown connector 'HDMI-1' (fix: did you mean 'HDMI-A-1'? \(convention))",
                "7:8: mode '1920x1080@60' is not WIDTHxHEIGHT or \"preferred\" "
                    + "(fix: give the refresh rate its own key: mode = \"1920x1080\" and refresh = 60)",
                "8:9: scale 5 is outside 0.5…4 (fix: use a scale between 0.5 and 4, such as 1, 1.5 or 2)",
                "9:12: unknown rotation 45 (fix: use 0, 90, 180 or 270 (degrees counter-clockwise), or "
                    + "\"flipped\", \"flipped-90\", \"flipped-180\" or \"flipped-270\")",
                "13:1: unknown key 'refresh-rate' in [[output]] (fix: did you mean 'refresh'?)",
                "14:10: mirror 'HDMI-A-9' names no output in this file "
                    + "(fix: mirror one of HDMI-1, or add an [[output]] with connector = \"HDMI-A-9\")",
                "18:15: 'repeat-rate' in [input.keyboard] must be an integer, not a string "
                    + "(fix: write it like repeat-rate = 25)",
                "22:10: touchscreen output 'DSI-1' names no output in this file (fix: map it to one of HDMI-1, DP-1)",
                "23:15: calibration has 5 numbers, not 6 (3×2) or 9 (3×3) "
                    + "(fix: write the first two rows, e.g. calibration = [1, 0, 0, 0, 1, 0] for no change)",
                "27:17: environment sets WAYLAND_DISPLAY, which Vitrine sets for the app "
                    + "(fix: remove it: Vitrine gives the app its own Wayland socket, runtime directory and X display)",
                "30:14: background 'navy' is not a #RRGGBB colour (fix: write it like background = \"#1D3557\")",
            ])
        #expect(error.diagnostics.allSatisfy { $0.file == path })
    }

    @Test func descriptionIsTheCompilerStyleLine() {
        let diagnostic = ConfigurationDiagnostic(
            file: "rpi.toml", line: 4, column: 9, message: "scale 5 is outside 0.5…4", fix: "use 2")
        #expect(diagnostic.description == "rpi.toml:4:9: error: scale 5 is outside 0.5…4 (fix: use 2)")
        let wholeFile = ConfigurationDiagnostic(file: "rpi.toml", line: nil, message: "no such file", fix: "check it")
        #expect(wholeFile.description == "rpi.toml: error: no such file (fix: check it)")
    }

    @Test func unknownKeyWithoutALikelyMatchListsTheAllowedKeys() {
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nbrightness = 80\n")) == [
                "board.toml:3:1: error: unknown key 'brightness' in [[output]] (fix: remove it; [[output]] takes "
                    + "connector, mode, refresh, scale, rotation, position, mirror)"
            ])
    }

    @Test func unknownTableAtTheTopLevelIsReported() {
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\n\n[display]\nbrightness = 80\n")) == [
                "board.toml:4:1: error: unknown key 'display' at the top level (fix: remove it; the top level takes "
                    + "board, output, input, app, idle, cursor, splash, printer, on-screen-keyboard, privilege, compatibility)"
            ])
    }

    @Test func aNumberInQuotesIsAWrongTypeWhoseFixRemovesTheQuotes() {
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nscale = \"1.5\"\n")) == [
                "board.toml:3:9: error: 'scale' in [[output]] must be a number, not a string "
                    + "(fix: remove the quotes: scale = 1.5)"
            ])
    }

    @Test func scaleBelowTheRangeIsRejectedAndFractionsInsideAreKept() throws {
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nscale = 0.25\n")) == [
                "board.toml:3:9: error: scale 0.25 is outside 0.5…4 (fix: use a scale between 0.5 and 4, such as 1, 1.5 or 2)"
            ])
        let board = try BoardConfiguration.parse(
            withApp("[[output]]\nconnector = \"DP-1\"\nscale = 1.75\n"), file: "board.toml"
        ).get()
        #expect(board.outputs.map(\.scale) == [1.75])
    }

    @Test func modeMustBeWidthByHeight() {
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nmode = \"1920*1080\"\n")) == [
                "board.toml:3:8: error: mode '1920*1080' is not WIDTHxHEIGHT or \"preferred\" "
                    + "(fix: write it like mode = \"1920x1080\", or mode = \"preferred\" for the display's own choice)"
            ])
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nmode = \"0x1080\"\n")) == [
                "board.toml:3:8: error: mode '0x1080' is outside 1…16384 pixels per side "
                    + "(fix: use a mode the display lists, e.g. mode = \"1920x1080\")"
            ])
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nrefresh = 60\n")) == [
                "board.toml:3:11: error: refresh needs an explicit mode "
                    + "(fix: set mode = \"WIDTHxHEIGHT\" as well, or remove refresh)"
            ])
    }

    @Test func rotationTakesDegreesOrFlippedNames() throws {
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nrotation = \"upside-down\"\n")) == [
                "board.toml:3:12: error: unknown rotation 'upside-down' (fix: use 0, 90, 180 or 270 (degrees "
                    + "counter-clockwise), or \"flipped\", \"flipped-90\", \"flipped-180\" or \"flipped-270\")"
            ])
        let text = withApp(
            "[[output]]\nconnector = \"DP-1\"\nrotation = 270\n[[output]]\nconnector = \"DP-2\"\nrotation = \"flipped-90\"\n")
        let board = try BoardConfiguration.parse(text, file: "board.toml").get()
        #expect(board.outputs.map(\.transform) == [.rotated270, .flipped90])
        #expect(board.outputs.map(\.transform.degrees) == [270, 90])
        #expect(board.outputs.map(\.transform.isFlipped) == [false, true])
    }

    @Test func aConnectorConfiguredTwiceNamesTheFirstLine() {
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\n\n[[output]]\nconnector = \"DP-1\"\n")) == [
                "board.toml:5:13: error: connector 'DP-1' is configured twice (first at line 2) "
                    + "(fix: merge the two [[output]] tables, or change this connector)"
            ])
    }

    @Test func mirrorCannotAlsoHaveAPositionNorMirrorItself() {
        #expect(
            problems(
                withApp(
                    "[[output]]\nconnector = \"DP-1\"\n[[output]]\nconnector = \"DP-2\"\nposition = [0, 0]\nmirror = \"DP-1\"\n"
                )) == [
                    "board.toml:6:1: error: an output cannot both mirror 'DP-1' and have a position (fix: remove "
                        + "position (a mirror shows where its source is), or remove mirror to extend the desktop)"
                ])
        #expect(
            problems(withApp("[[output]]\nconnector = \"DP-1\"\nmirror = \"DP-1\"\n")) == [
                "board.toml:3:10: error: output 'DP-1' cannot mirror itself (fix: remove mirror)"
            ])
        #expect(
            problems(
                withApp(
                    "[[output]]\nconnector = \"DP-1\"\n[[output]]\nconnector = \"DP-2\"\nmirror = \"DP-1\"\n"
                        + "[[output]]\nconnector = \"DP-3\"\nmirror = \"DP-2\"\n")) == [
                    "board.toml:8:10: error: mirror 'DP-2' is itself a mirror of 'DP-1' (fix: mirror 'DP-1' directly)"
                ])
    }

    @Test func outputsAtExplicitPositionsMustNotOverlapInLogicalPixels() throws {
        let hdmi = "[[output]]\nconnector = \"HDMI-A-1\"\nmode = \"1920x1080\"\nposition = [0, 0]\n"
        // A 4K display at scale 2 is 1920 logical pixels wide, not 3840.
        #expect(
            problems(withApp(hdmi + "[[output]]\nconnector = \"DP-1\"\nmode = \"3840x2160\"\nposition = [1000, 0]\n")) == [
                "board.toml:8:12: error: output 'DP-1' at [1000, 0] overlaps 'HDMI-A-1', which covers [0, 0] to "
                    + "[1920, 1080] (fix: move it beside the others, e.g. position = [1920, 0]: positions are in "
                    + "logical pixels, the mode divided by the scale)"
            ])
        let sideBySide = withApp(
            hdmi + "[[output]]\nconnector = \"DP-1\"\nmode = \"3840x2160\"\nscale = 2\nposition = [1920, 0]\n"
                + "[[output]]\nconnector = \"DSI-1\"\nmode = \"1080x1920\"\nrotation = 90\nposition = [0, 1080]\n")
        #expect(problems(sideBySide) == [])
        // Unturned, the 1080x1920 panel at [-1500, 0] would end at x = -420; turned by 90° it is 1920
        // wide and reaches into HDMI-A-1.
        #expect(
            problems(sideBySide.replacingOccurrences(of: "position = [0, 1080]", with: "position = [-1500, 0]")) == [
                "board.toml:14:12: error: output 'DSI-1' at [-1500, 0] overlaps 'HDMI-A-1', which covers [0, 0] to "
                    + "[1920, 1080] (fix: move it beside the others, e.g. position = [3840, 0]: positions are in "
                    + "logical pixels, the mode divided by the scale)"
            ])
        #expect(
            problems(
                sideBySide.replacingOccurrences(of: "position = [0, 1080]", with: "position = [-1500, 0]")
                    .replacingOccurrences(of: "rotation = 90", with: "rotation = 180")) == [])
    }

    @Test func firstConnectedMustBeTheOnlyOutput() {
        #expect(
            problems(withApp("[[output]]\nconnector = \"first-connected\"\n[[output]]\nconnector = \"DP-1\"\n")) == [
                "board.toml:2:13: error: \"first-connected\" must be the only [[output]] "
                    + "(fix: name each connector (HDMI-A-1, DSI-1…) when the board has more than one output)"
            ])
    }

    @Test func connectorNamesFollowTheKernelsTypes() {
        let convention =
            "the kernel names connectors TYPE-N, such as HDMI-A-1, DP-1, eDP-1, DSI-1 or Virtual-1 "
            + "(ls /sys/class/drm lists them), or use \"first-connected\""
        #expect(
            problems(withApp("[[output]]\nconnector = \"EDP-1\"\n")) == [
                "board.toml:2:13: error: unknown connector 'EDP-1' (fix: did you mean 'eDP-1'? \(convention))"
            ])
        #expect(
            problems(withApp("[[output]]\nconnector = \"monitor\"\n")) == [
                "board.toml:2:13: error: unknown connector 'monitor' (fix: \(convention))"
            ])
    }

    @Test func outputsAndAppAreRequired() {
        #expect(
            problems("[cursor]\nvisible = false\n") == [
                "board.toml: error: no [[output]] table: the kiosk has no display to show the app on "
                    + "(fix: add [[output]] with connector = \"first-connected\" to use the first connected display)",
                "board.toml: error: no [app] table: the kiosk has no app to run "
                    + "(fix: add [app] with command = [\"/usr/bin/cog\", \"https://example.com\"])",
            ])
        #expect(
            problems("[output]\nconnector = \"DP-1\"\n[app]\nuser = \"kiosk\"\n") == [
                "board.toml:1:1: error: 'output' must be an array of tables, not a table "
                    + "(fix: write [[output]] (double brackets) above each entry's keys)",
                "board.toml:3:1: error: [app] has no 'command' "
                    + "(fix: add command = [\"/usr/bin/cog\", \"https://example.com\"])",
            ])
        #expect(
            problems("[[output]]\nmode = \"preferred\"\n[app]\ncommand = []\n") == [
                "board.toml:1:1: error: [[output]] has no 'connector' (fix: add connector = \"HDMI-A-1\")",
                "board.toml:4:11: error: command is empty (fix: write the program and its arguments, "
                    + "e.g. command = [\"/usr/bin/cog\", \"https://example.com\"])",
            ])
    }

    @Test func touchscreenCalibrationMustBeAffine() throws {
        let outputs = "[[output]]\nconnector = \"DSI-1\"\n[[input.touchscreen]]\ndevice = \"ts\"\noutput = \"DSI-1\"\n"
        #expect(
            problems(withApp(outputs + "calibration = [1, 0, 0, 0, 1, 0, 0, 0, 2]\n")) == [
                "board.toml:6:15: error: calibration's last row is [0, 0, 2], not [0, 0, 1] (fix: libinput "
                    + "applies affine matrices only: make the last row 0, 0, 1 or give just the first two rows)"
            ])
        #expect(
            problems(withApp(outputs + "calibration = [1, 0, \"0\", 0, 1, 0]\n")) == [
                "board.toml:6:22: error: item 3 of 'calibration' in [[input.touchscreen]] must be a number, "
                    + "not a string (fix: write it like calibration = [1, 0, 0, 0, 1, 0])"
            ])
        let rotated = try BoardConfiguration.parse(
            withApp(outputs + "calibration = [0, -1, 1, 1, 0, 0]\n"), file: "board.toml"
        ).get()
        #expect(rotated.input.touchscreens.map(\.calibration) == [CalibrationMatrix(a: 0, b: -1, c: 1, d: 1, e: 0, f: 0)])
        #expect(
            problems(withApp(outputs + "[[input.touchscreen]]\ndevice = \"ts\"\noutput = \"DSI-1\"\n")) == [
                "board.toml:7:10: error: touchscreen 'ts' is mapped twice (first at line 4) "
                    + "(fix: keep one [[input.touchscreen]] for this device)"
            ])
    }

    @Test func keyboardLayoutsVariantsAndOptionsFollowXKB() {
        let output = "[[output]]\nconnector = \"DP-1\"\n[input.keyboard]\n"
        #expect(
            problems(withApp(output + "layout = \"us\"\nvariant = \"intl,nodeadkeys\"\n")) == [
                "board.toml:5:11: error: variant 'intl,nodeadkeys' has 2 entries for 1 layout (fix: give one variant "
                    + "per layout, empty for the layout's default, e.g. variant = \",nodeadkeys\")"
            ])
        #expect(
            problems(withApp(output + "options = [\"ctrl:nocaps\", \"nocaps\"]\n")) == [
                "board.toml:4:27: error: xkb option 'nocaps' is not GROUP:NAME (fix: write it as "
                    + "/usr/share/X11/xkb/rules/evdev.lst lists it, e.g. \"ctrl:nocaps\")"
            ])
        #expect(
            problems(withApp(output + "repeat-delay = 0\n")) == [
                "board.toml:4:16: error: repeat-delay 0 is outside 1…10000 milliseconds "
                    + "(fix: give the delay before repeating in milliseconds, e.g. 600)"
            ])
    }

    @Test func appPathsUserAndEnvironmentAreChecked() {
        let app = "[[output]]\nconnector = \"DP-1\"\n[app]\ncommand = [\"cog\"]\n"
        #expect(
            problems(
                app + "working-directory = \"srv\"\nuser = \"Kiosk User\"\nenvironment = { PORT = 8080, 2X = \"y\" }\n"
            ) == [
                "board.toml:5:21: error: working-directory 'srv' is not an absolute path "
                    + "(fix: write the full path, e.g. working-directory = \"/var/lib/vitrine\")",
                "board.toml:6:8: error: user 'Kiosk User' is not a valid user name "
                    + "(fix: use a system user such as \"kiosk\": lower-case letters, digits, '_' and '-')",
                "board.toml:7:24: error: environment variable PORT must be a string, not an integer "
                    + "(fix: quote the value, e.g. PORT = \"value\")",
                "board.toml:7:30: error: environment variable name '2X' is not valid "
                    + "(fix: use letters, digits and underscores, not starting with a digit)",
            ])
    }

    @Test func x11IsOnUnlessTheAppTurnsItOffAndDisplayIsVitrines() throws {
        let app = "[[output]]\nconnector = \"DP-1\"\n[app]\ncommand = [\"xterm\"]\n"
        let board = try BoardConfiguration.parse(app, file: "board.toml").get()
        #expect(board.app.x11)
        #expect(board.outline().contains("app xterm"))
        let off = try BoardConfiguration.parse(app + "x11 = false\n", file: "board.toml").get()
        #expect(!off.app.x11)
        #expect(off.outline().contains("app xterm, no X11"))
        #expect(
            problems(app + "x11 = \"no\"\nenvironment = { DISPLAY = \":0\" }\n") == [
                "board.toml:5:7: error: 'x11' in [app] must be true or false, not a string (fix: write it like x11 = false)",
                "board.toml:6:17: error: environment sets DISPLAY, which Vitrine sets for the app "
                    + "(fix: remove it: Vitrine gives the app its own Wayland socket, runtime directory and X display)",
            ])
    }

    @Test func windowsAreCentredUnlessTheAppAsksToScaleOrFill() throws {
        let app = "[[output]]\nconnector = \"DP-1\"\n[app]\ncommand = [\"xterm\"]\n"
        #expect(try BoardConfiguration.parse(app, file: "board.toml").get().app.fit == .center)
        let scaled = try BoardConfiguration.parse(app + "fit = \"scale\"\n", file: "board.toml").get()
        #expect(scaled.app.fit == .scale)
        #expect(scaled.outline().contains("app xterm, windows fitted by scale"))
        #expect(try BoardConfiguration.parse(app + "fit = \"fill\"\n", file: "board.toml").get().app.fit == .fill)
        #expect(
            problems(app + "fit = \"stretch\"\n") == [
                "board.toml:5:7: error: fit 'stretch' is not a way Vitrine fits windows to the output "
                    + "(fix: use one of \"center\", \"scale\", \"fill\": centred at the window's size, scaled to fit, or scaled to fill and cropped)"
            ])
        #expect(
            problems(app + "fit = 2\n") == [
                "board.toml:5:7: error: 'fit' in [app] must be a string, not an integer (fix: write it like fit = \"scale\")"
            ])
    }

    @Test func onScreenKeyboardIsOffWithTheBoardsLayoutsUntilEnabled() throws {
        let board = try BoardConfiguration.parse(
            withApp("[[output]]\nconnector = \"DP-1\"\n[input.keyboard]\nlayout = \"de,us\"\n"), file: "board.toml").get()
        #expect(board.onScreenKeyboard == OnScreenKeyboardSettings(isEnabled: false, layouts: ["de", "us"]))
        let enabled = try BoardConfiguration.parse(
            withApp("[[output]]\nconnector = \"DP-1\"\n[input.keyboard]\nlayout = \"fr\"\n")
                + "[on-screen-keyboard]\nenabled = true\nheight-share = 0.35\nhide-when-keyboard-attached = false\n"
                + "key-color = \"#112233\"\ntext-color = \"#ffeedd\"\n",
            file: "board.toml"
        ).get()
        #expect(
            enabled.onScreenKeyboard
                == OnScreenKeyboardSettings(
                    isEnabled: true, layouts: ["fr"], heightShare: 0.35, hidesWhenKeyboardAttached: false,
                    keyColor: RGBColor(red: 0x11, green: 0x22, blue: 0x33), textColor: RGBColor(red: 0xFF, green: 0xEE, blue: 0xDD)))
        #expect(enabled.outline().last == "on-screen keyboard fr, 35% of the output's height")
    }

    @Test func onScreenKeyboardValuesOutOfRangeAreReportedWithTheirLineAndFix() {
        let base = withApp("[[output]]\nconnector = \"DP-1\"\n") + "[on-screen-keyboard]\nenabled = true\n"
        #expect(
            problems(base + "layouts = [\"gb\"]\nheight-share = 0.9\nbackground = \"#12345\"\n") == [
                "board.toml:8:12: error: the on-screen keyboard has no layout 'gb' "
                    + "(fix: use one of \"us\", \"de\", \"fr\", \"ru\")",
                "board.toml:9:16: error: height-share 0.9 is outside 0.1…0.7 "
                    + "(fix: give the share of the output's height, e.g. height-share = 0.4)",
                "board.toml:10:14: error: background '#12345' is not a #RRGGBB colour "
                    + "(fix: write it like background = \"#45474D\")",
            ])
        #expect(
            problems(base + "enable = true\n") == [
                "board.toml:8:1: error: unknown key 'enable' in [on-screen-keyboard] (fix: did you mean 'enabled'?)"
            ])
    }

    @Test func anEnabledOnScreenKeyboardNeedsALayoutItDrawsWhenTheBoardHasNone() {
        #expect(
            problems(
                withApp("[[output]]\nconnector = \"DP-1\"\n[input.keyboard]\nlayout = \"gb,it\"\n")
                    + "[on-screen-keyboard]\nenabled = true\n") == [
                "board.toml:8:1: error: the on-screen keyboard has none of the [input.keyboard] layouts 'gb,it' it defaults to "
                    + "(fix: set layouts to some of \"us\", \"de\", \"fr\", \"ru\" in [on-screen-keyboard])"
            ])
    }

    @Test func onScreenKeyboardLayoutsDefaultToTheBoardsLayoutsItDraws() throws {
        let board = try BoardConfiguration.parse(
            withApp("[[output]]\nconnector = \"DP-1\"\n[input.keyboard]\nlayout = \"gb,ru,us\"\n")
                + "[on-screen-keyboard]\nenabled = true\n",
            file: "board.toml"
        ).get()
        #expect(board.onScreenKeyboard.layouts == ["ru", "us"])
        #expect(board.outline().last == "on-screen keyboard ru, us, hidden while a keyboard is attached")
    }

    @Test func onScreenKeyboardLayoutsAreListedInTheOrderTheyCycle() throws {
        let board = try BoardConfiguration.parse(
            withApp("[[output]]\nconnector = \"DP-1\"\n[input.keyboard]\nlayout = \"de\"\n")
                + "[on-screen-keyboard]\nenabled = true\nlayouts = [\"ru\", \"us\", \"fr\"]\n",
            file: "board.toml"
        ).get()
        #expect(board.onScreenKeyboard == OnScreenKeyboardSettings(isEnabled: true, layouts: ["ru", "us", "fr"]))
    }

    @Test func onScreenKeyboardLayoutsThatAreUnknownRepeatedOrNoneAreReported() {
        let base = withApp("[[output]]\nconnector = \"DP-1\"\n") + "[on-screen-keyboard]\nenabled = true\n"
        #expect(
            problems(base + "layouts = [\"ru\", \"en\", \"ru\"]\n") == [
                "board.toml:8:18: error: the on-screen keyboard has no layout 'en' "
                    + "(fix: use one of \"us\", \"de\", \"fr\", \"ru\")",
                "board.toml:8:24: error: layout 'ru' is listed twice (fix: list each layout once)",
            ])
        #expect(
            problems(base + "layouts = []\n") == [
                "board.toml:8:11: error: layouts is empty (fix: list at least one layout, e.g. layouts = [\"us\"])"
            ])
        #expect(
            problems(base + "layouts = \"ru\"\n") == [
                "board.toml:8:11: error: 'layouts' in [on-screen-keyboard] must be an array of strings, not a string "
                    + "(fix: write it like layouts = [\"ru\", \"us\"])"
            ])
        #expect(
            problems(base + "layout = \"ru\"\n") == [
                "board.toml:8:1: error: unknown key 'layout' in [on-screen-keyboard] (fix: did you mean 'layouts'?)"
            ])
    }

    @Test func splashImageMustBeAnAbsolutePNGPath() {
        let base = withApp("[[output]]\nconnector = \"DP-1\"\n") + "[splash]\n"
        #expect(
            problems(base + "image = \"logo.png\"\n") == [
                "board.toml:7:9: error: splash image 'logo.png' is not an absolute path "
                    + "(fix: write the full path, e.g. image = \"/usr/share/vitrine/splash.png\")"
            ])
        #expect(
            problems(base + "image = \"/srv/logo.svg\"\n") == [
                "board.toml:7:9: error: splash image '/srv/logo.svg' is not a .png file "
                    + "(fix: convert it to PNG: Vitrine draws PNG images)"
            ])
    }

    @Test func splashBackgroundIsSixHexDigitsInEitherCase() throws {
        let base = withApp("[[output]]\nconnector = \"DP-1\"\n") + "[splash]\n"
        // UInt32(_:radix:) alone would take the sign.
        #expect(
            problems(base + "background = \"#+12345\"\n") == [
                "board.toml:7:14: error: background '#+12345' is not a #RRGGBB colour "
                    + "(fix: write it like background = \"#1D3557\")"
            ])
        let board = try BoardConfiguration.parse(base + "background = \"#1d35aF\"\n", file: "board.toml").get()
        #expect(board.splash.backgroundColor == RGBColor(red: 0x1D, green: 0x35, blue: 0xAF))
        #expect(board.splash.backgroundColor.description == "#1D35AF")
    }

    @Test func splashAnimationIsNoneOrPattern() throws {
        let base = withApp("[[output]]\nconnector = \"DP-1\"\n") + "[splash]\n"
        #expect(try BoardConfiguration.parse(base, file: "board.toml").get().splash.animation == .none)
        let none = try BoardConfiguration.parse(base + "animation = \"none\"\n", file: "board.toml").get()
        #expect(none.splash.animation == .none)
        #expect(none.outline().last == "splash #000000")
        let pattern = try BoardConfiguration.parse(base + "animation = \"pattern\"\n", file: "board.toml").get()
        #expect(pattern.splash == SplashConfiguration(animation: .pattern))
        #expect(pattern.outline().last == "splash #000000, animated pattern")
        #expect(try shippedBoard("intel-nuc").splash.animation == .pattern)
        #expect(
            problems(base + "animation = \"plasma\"\n") == [
                "board.toml:7:13: error: splash animation 'plasma' is not one Vitrine draws (fix: use one of \"none\", \"pattern\")"
            ])
        #expect(
            problems(base + "animation = true\n") == [
                "board.toml:7:13: error: 'animation' in [splash] must be a string, not a boolean (fix: write it like animation = \"pattern\")"
            ])
    }

    @Test func errorDescriptionListsEveryDiagnosticOnItsOwnLine() {
        guard case .failure(let error) = BoardConfiguration.parse("[[output]]\nconnector = 7\n", file: "b.toml") else {
            Issue.record("an invalid file was accepted")
            return
        }
        #expect(
            error.description == """
                b.toml: error: no [app] table: the kiosk has no app to run (fix: add [app] with command = ["/usr/bin/cog", "https://example.com"])
                b.toml:2:13: error: 'connector' in [[output]] must be a string, not an integer (fix: write it like connector = "HDMI-A-1")
                """)
    }

    @Test func linesStayRightAfterMultilineStringsAndArrays() {
        // The scanner must not read keys inside strings or arrays that span lines.
        let text = """
            [board]
            description = \"\"\"
            scale = 9
            [[output]]\"\"\"

            [[output]]
            connector = "DP-1"   # [[output]] in a comment
            position = [
              0,   # x
              0,
            ]
            [app]
            command = [
              "cog", '''a ] [b
            c''',
            ]
            enviroment = { A = "1" }
            """
        #expect(
            problems(text) == [
                "board.toml:17:1: error: unknown key 'enviroment' in [app] (fix: did you mean 'environment'?)"
            ])
    }

    @Test func aNULByteIsRejectedRatherThanEndingTheDocument() {
        #expect(
            problems("[[output]]\nconnector = \"DP-1\"\u{0}\n") == [
                "board.toml:2: error: the file contains a NUL byte (fix: save it as plain UTF-8 text)"
            ])
    }

    @Test func aDirectoryOrANonUTF8FileIsReportedWithoutALine() throws {
        let folder = boardConfigsFolder.path
        guard case .failure(let directory) = BoardConfiguration.load(contentsOfFile: folder) else {
            Issue.record("a directory was accepted")
            return
        }
        #expect(
            directory.diagnostics.map(\.description) == [
                "\(folder): error: this is a directory, not a file (fix: name the board's .toml file inside it)"
            ])

        let latin1 = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID().uuidString).toml")
        // "café" in Latin-1: a lone 0xE9 byte.
        try Data(Array("[app]\ncommand = [\"caf".utf8) + [0xE9] + Array("\"]\n".utf8)).write(to: latin1)
        defer { try? FileManager.default.removeItem(at: latin1) }
        guard case .failure(let encoding) = BoardConfiguration.load(contentsOfFile: latin1.path) else {
            Issue.record("a Latin-1 file was accepted")
            return
        }
        #expect(
            encoding.diagnostics.map(\.description) == [
                "\(latin1.path): error: the file is not UTF-8 text (fix: save it as UTF-8)"
            ])
    }

    @Test func aMissingFileIsReportedWithoutALine() {
        guard case .failure(let error) = BoardConfiguration.load(contentsOfFile: "/nonexistent/board.toml") else {
            Issue.record("a missing file was accepted")
            return
        }
        #expect(
            error.diagnostics.map(\.description) == [
                "/nonexistent/board.toml: error: no such file "
                    + "(fix: check the path; shipped boards are in board-configs/ and /etc/vitrine/)"
            ])
    }
}

@Suite struct FormatDocument {
    /// FORMAT.md documents exactly the keys the parser accepts, table by table.
    @Test func formatDocumentsEveryKeyOfEveryTable() throws {
        let text = try String(contentsOf: boardConfigsFolder.appendingPathComponent("FORMAT.md"), encoding: .utf8)
        var documented: [String: [String]] = [:]
        var heading: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## `") {
                heading = String(line.dropFirst(4).prefix { $0 != "`" })
            } else if let heading, line.hasPrefix("| `") {
                documented[heading, default: []].append(String(line.dropFirst(3).prefix { $0 != "`" }))
            }
        }
        let leafSections = BoardConfigurationSchema.sections.filter {
            !$0.keys.contains { [.table, .arrayOfTables].contains($0.kind) }
        }
        #expect(documented == Dictionary(uniqueKeysWithValues: leafSections.map { ($0.header, $0.keyNames) }))
    }

    @Test func formatsExampleIsAValidBoard() throws {
        let text = try String(contentsOf: boardConfigsFolder.appendingPathComponent("FORMAT.md"), encoding: .utf8)
        let start = try #require(text.range(of: "```toml\n"))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let board = try BoardConfiguration.parse(String(text[start.upperBound..<end.lowerBound]), file: "example.toml")
            .get()
        #expect(board.outputs.map(\.placement) == [.automatic, .mirror(of: "DSI-1")])
        #expect(board.input.touchscreens.map(\.output) == ["DSI-1"])
    }

    @Test func closestMatchPrefersPrefixesThenEditDistance() {
        #expect(closestMatch(to: "refresh-rate", among: BoardConfigurationSchema.output.keyNames) == "refresh")
        #expect(closestMatch(to: "rotate", among: BoardConfigurationSchema.output.keyNames) == "rotation")
        #expect(closestMatch(to: "conector", among: BoardConfigurationSchema.output.keyNames) == "connector")
        #expect(closestMatch(to: "size", among: BoardConfigurationSchema.output.keyNames) == nil)
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
    }
}

@Suite struct RendererKey {
    let outputs = "[[output]]\nconnector = \"HDMI-A-1\"\n"

    @Test func theRendererIsAutoUnlessTheBoardNamesVulkanOrCPU() throws {
        #expect(try BoardConfiguration.parse(withApp(outputs), file: "board.toml").get().renderer == .auto)
        for selection in [RendererSelection.vulkan, .cpu, .auto] {
            let board = try BoardConfiguration.parse(
                "[board]\nrenderer = \"\(selection)\"\n\n" + withApp(outputs), file: "board.toml").get()
            #expect(board.renderer == selection)
            // check-config names a renderer the board chose; auto is the default and goes unsaid.
            #expect(board.outline().filter { $0.hasPrefix("renderer") } == (selection == .auto ? [] : ["renderer \(selection)"]))
        }
    }

    @Test func anUnknownRendererIsReportedWithTheAllowedValues() {
        #expect(
            problems("[board]\nrenderer = \"gles\"\n\n" + withApp(outputs)) == [
                "board.toml:2:12: error: renderer 'gles' is not one of 'auto', 'vulkan', 'cpu' (fix: use renderer = \"auto\" (Vulkan on a hardware GPU, the CPU renderer otherwise), \"vulkan\" or \"cpu\")"
            ])
    }
}

@Suite struct PrivilegeTables {
    let outputs = "[[output]]\nconnector = \"HDMI-A-1\"\n"

    @Test func privilegesNameAnExecutableOrAUserAndWhatEachMayUse() throws {
        #expect(try BoardConfiguration.parse(withApp(outputs), file: "board.toml").get().privileges == [])
        let text = withApp(outputs) + """

            [[privilege]]
            executable = "/usr/bin/wayvnc"
            grant = ["capture", "virtual-input"]

            [[privilege]]
            user = "remote"
            grant = ["layer-shell"]

            """
        let board = try BoardConfiguration.parse(text, file: "board.toml").get()
        #expect(board.privileges == [
            PrivilegeGrant(.executable("/usr/bin/wayvnc"), privileges: [.capture, .virtualInput]),
            PrivilegeGrant(.user("remote"), privileges: [.layerShell]),
        ])
        #expect(board.outline().suffix(2) == [
            "privileges of executable /usr/bin/wayvnc: capture, virtual-input",
            "privileges of user remote: layer-shell",
        ])
        #expect(try shippedBoard("intel-nuc").privileges == [
            PrivilegeGrant(.executable("/usr/bin/wayvnc"), privileges: [.capture, .virtualInput])
        ])
    }

    @Test func compatibilityTablesOfferXdgShell4ToAnExecutableOrAUser() throws {
        #expect(try BoardConfiguration.parse(withApp(outputs), file: "board.toml").get().compatibility == [])
        let text = withApp(outputs) + """

            [[compatibility]]
            executable = "/usr/bin/mpv"
            xdg-shell = 4

            [[compatibility]]
            user = "player"
            xdg-shell = 4

            """
        let board = try BoardConfiguration.parse(text, file: "board.toml").get()
        #expect(board.compatibility == [ClientCompatibility(.executable("/usr/bin/mpv")), ClientCompatibility(.user("player"))])
        #expect(board.outline().suffix(2) == ["xdg-shell 4 for executable /usr/bin/mpv", "xdg-shell 4 for user player"])
    }

    @Test func aCompatibilityTableNamesOneSubjectAndTheOnlyOlderVersion() {
        let text = withApp(outputs) + """

            [[compatibility]]
            executable = "/usr/bin/mpv"
            xdg-shell = 5

            [[compatibility]]
            xdg-shell = 4

            [[compatibility]]
            user = "player"

            [[compatibility]]
            user = "player"
            xdg-shell = 4

            [[compatibility]]
            user = "player"
            xdg-shell = 4

            """
        #expect(problems(text) == [
            "board.toml:9:13: error: xdg-shell = 5 is not offered (fix: use 4, the newest version without wm_capabilities (every other client gets 6))",
            "board.toml:11:1: error: [[compatibility]] names neither an executable nor a user (fix: add executable = \"/usr/bin/wayvnc\" or user = \"remote\")",
            "board.toml:14:1: error: [[compatibility]] has no 'xdg-shell' (fix: add xdg-shell = 4)",
            "board.toml:21:1: error: user player has a [[compatibility]] already (fix: remove one of the two tables)",
        ])
    }

    @Test func aPrivilegeTableNamesOneSubjectAndGrantsKnownPrivilegesOnce() {
        let text = withApp(outputs) + """

            [[privilege]]
            grant = ["capture"]

            [[privilege]]
            executable = "wayvnc"
            user = "remote"
            grant = ["capture"]

            [[privilege]]
            user = "Remote"
            grant = []

            [[privilege]]
            executable = "/usr/bin/grim"
            grant = ["captur", "capture", "capture"]

            [[privilege]]
            executable = "wayvnc"
            grant = ["capture"]

            """
        #expect(problems(text) == [
            "board.toml:7:1: error: [[privilege]] names neither an executable nor a user (fix: add executable = \"/usr/bin/wayvnc\" or user = \"remote\")",
            "board.toml:12:1: error: [[privilege]] names both an executable and a user (fix: split it into two [[privilege]] tables, one for each)",
            "board.toml:16:8: error: user 'Remote' is not a valid user name (fix: use a system user such as \"remote\": lower-case letters, digits, '_' and '-')",
            "board.toml:17:9: error: grant is empty: the [[privilege]] grants nothing (fix: list what it may use, among \"capture\", \"virtual-input\", \"layer-shell\", \"input-method\")",
            "board.toml:21:10: error: 'captur' is not a privilege (fix: did you mean 'capture'?)",
            "board.toml:21:31: error: 'capture' is granted twice (fix: list it once)",
            "board.toml:24:14: error: executable 'wayvnc' is not an absolute path to a file (fix: give the program's full path, e.g. executable = \"/usr/bin/wayvnc\" (symbolic links are followed))",
        ])
    }

    @Test func aSubjectNamedTwiceNamesTheFirstTable() {
        let text = withApp(outputs) + """

            [[privilege]]
            user = "remote"
            grant = ["capture"]

            [[privilege]]
            user = "remote"
            grant = ["layer-shell"]

            """
        #expect(problems(text) == [
            "board.toml:11:1: error: user remote has a [[privilege]] already (line 7) (fix: merge the two tables' grant lists into one)"
        ])
    }
}

@Suite struct ExternalKeyboardChoice {
    let base = withApp("[[output]]\nconnector = \"DP-1\"\n") + "[on-screen-keyboard]\nenabled = true\n"
    let squeekboardPrivileges = """

        [[privilege]]
        executable = "/usr/bin/squeekboard"
        grant = ["layer-shell", "virtual-input", "input-method"]

        """

    @Test func anExternalKeyboardIsItsCommandWithItsPrivileges() throws {
        let board = try BoardConfiguration.parse(
            base + "keyboard = \"external\"\ncommand = [\"/usr/bin/squeekboard\", \"--verbose\"]\n" + squeekboardPrivileges,
            file: "board.toml").get()
        #expect(board.onScreenKeyboard.keyboard == .external)
        #expect(board.onScreenKeyboard.externalCommand == ["/usr/bin/squeekboard", "--verbose"])
        #expect(board.outline().contains("on-screen keyboard: external, /usr/bin/squeekboard --verbose"))
        // A user's table may grant it too (Vitrine cannot tell the keyboard's user before it runs).
        #expect(problems(base + "keyboard = \"external\"\ncommand = [\"/usr/bin/wvkbd-mobintl\"]\n"
            + "[[privilege]]\nuser = \"kiosk\"\ngrant = [\"layer-shell\", \"virtual-input\"]\n").isEmpty)
        // The built-in keyboard is the default, and takes no command.
        #expect(try BoardConfiguration.parse(base, file: "board.toml").get().onScreenKeyboard.keyboard == .builtIn)
    }

    @Test func aWrongChoiceOrCommandIsReportedWithItsLineAndFix() {
        #expect(problems(base + "keyboard = \"squeekboard\"\n") == [
            "board.toml:8:12: error: keyboard 'squeekboard' is neither of \"built-in\" or \"external\" (fix: use \"built-in\" or \"external\")"
        ])
        #expect(problems(base + "command = [\"/usr/bin/squeekboard\"]\n") == [
            "board.toml:8:1: error: command is for an external keyboard; the built-in one is Vitrine's own (fix: remove command, or set keyboard = \"external\")"
        ])
        #expect(problems(base + "keyboard = \"external\"\n") == [
            "board.toml:6:1: error: an external keyboard needs a command, which Vitrine starts beside the app (fix: add command = [\"/usr/bin/squeekboard\"] (or wvkbd's, or another keyboard's))"
        ])
        #expect(problems(base + "keyboard = \"external\"\ncommand = [\"squeekboard\"]\nlayouts = [\"de\"]\n") == [
            "board.toml:9:11: error: the external keyboard's program 'squeekboard' is not an absolute path (fix: write the program's absolute path and its arguments, e.g. command = [\"/usr/bin/squeekboard\"])",
            "board.toml:10:1: error: layouts is for the built-in keyboard; the external one ignores it (fix: remove layouts, or configure it in the external keyboard's own settings)",
        ])
    }

    @Test func anExternalKeyboardWithoutItsPrivilegesIsReported() {
        #expect(problems(base + "keyboard = \"external\"\ncommand = [\"/usr/bin/squeekboard\"]\n"
            + "[[privilege]]\nexecutable = \"/usr/bin/squeekboard\"\ngrant = [\"input-method\", \"layer-shell\"]\n") == [
            "board.toml:9:11: error: the external keyboard /usr/bin/squeekboard is not granted \"virtual-input\": it could not show itself or type (fix: add a [[privilege]] with executable = \"/usr/bin/squeekboard\" and grant = [\"layer-shell\", \"virtual-input\", \"input-method\"])"
        ])
        // A disabled one is not started, so it needs nothing.
        #expect(problems(withApp("[[output]]\nconnector = \"DP-1\"\n")
            + "[on-screen-keyboard]\nenabled = false\nkeyboard = \"external\"\ncommand = [\"/usr/bin/squeekboard\"]\n").isEmpty)
    }
}
