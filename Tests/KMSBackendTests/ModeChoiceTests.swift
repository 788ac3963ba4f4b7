import DisplayBackend
import KMSBackend
import Testing

/// Which mode a connector is lit with, and which lit outputs need a new mode after a hotplug:
/// pure maths over the modes a display offers, so every case is exact.
@Suite struct ModeChoiceTests {
    private func mode(_ width: Int, _ height: Int, _ millihertz: Int = 60_000) -> OutputMode {
        OutputMode(width: width, height: height, refreshMillihertz: millihertz)
    }

    /// A monitor's list: 1920×1080 preferred, at 60 and 50 Hz, then 1280×720 at 60 and 59.94 Hz, then 1024×768.
    private var monitor: OfferedModes {
        OfferedModes(
            modes: [mode(1920, 1080), mode(1920, 1080, 50_000), mode(1280, 720), mode(1280, 720, 59_940), mode(1024, 768)],
            preferred: 0)
    }

    @Test func theChosenModeIsThePreferredOneOrTheRequestedSizeAtTheClosestRefresh() {
        #expect(ModeChoice.choose(nil, among: monitor) == 0)
        #expect(ModeChoice.choose(nil, among: OfferedModes(modes: [mode(800, 600), mode(640, 480)], preferred: nil)) == 0)
        #expect(ModeChoice.choose(nil, among: OfferedModes(modes: [], preferred: nil)) == nil)
        #expect(ModeChoice.choose(KMSModeRequest(width: 1280, height: 720), among: monitor) == 2)
        #expect(ModeChoice.choose(KMSModeRequest(width: 1920, height: 1080, refreshMillihertz: 50_000), among: monitor) == 1)
        #expect(ModeChoice.choose(KMSModeRequest(width: 1280, height: 720, refreshMillihertz: 59_900), among: monitor) == 3)
        // Refresh more than 1 Hz away, or a size not offered: none.
        #expect(ModeChoice.choose(KMSModeRequest(width: 1280, height: 720, refreshMillihertz: 75_000), among: monitor) == nil)
        #expect(ModeChoice.choose(KMSModeRequest(width: 800, height: 600), among: monitor) == nil)
        // Of one size, the preferred mode comes before the first.
        let twoRates = OfferedModes(modes: [mode(1024, 768, 75_000), mode(1024, 768)], preferred: 1)
        #expect(ModeChoice.choose(KMSModeRequest(width: 1024, height: 768), among: twoRates) == 1)
    }

    @Test func anOutputFollowingThePreferredModeTakesTheNewPreferredMode() {
        let lit = [ModeChoice.LitOutput(connector: "Virtual-1", current: mode(1280, 800), requested: nil)]
        // The virtual display was resized to 1024×768: its list now prefers that.
        let resized = OfferedModes(modes: [mode(5120, 2160), mode(1024, 768), mode(1280, 800)], preferred: 1)
        let changes = ModeChoice.changes(lit: lit, offered: ["Virtual-1": resized])
        #expect(changes.map(\.connector) == ["Virtual-1"])
        #expect(changes.map(\.follow) == [.change(to: 1)])
        // Still preferring the mode it shows: nothing to do.
        let same = OfferedModes(modes: [mode(5120, 2160), mode(1280, 800)], preferred: 1)
        #expect(ModeChoice.changes(lit: lit, offered: ["Virtual-1": same]).isEmpty)
    }

    @Test func aBoardModeIsKeptWhileTheDisplayOffersItAndNotReplacedWhenItGoes() {
        let lit = [ModeChoice.LitOutput(connector: "HDMI-A-1", current: mode(1280, 720), requested: KMSModeRequest(width: 1280, height: 720))]
        // Another monitor on the same port, preferring 1920×1080 but offering 1280×720 too.
        #expect(ModeChoice.changes(lit: lit, offered: ["HDMI-A-1": monitor]).isEmpty)
        // One that does not offer 1280×720: the output stays as it is, and says so.
        let small = OfferedModes(modes: [mode(1024, 768), mode(800, 600)], preferred: 0)
        let changes = ModeChoice.changes(lit: lit, offered: ["HDMI-A-1": small])
        #expect(changes.map(\.connector) == ["HDMI-A-1"])
        #expect(changes.map(\.follow) == [.requestedModeGone])
    }

    @Test func onlyTheOutputsWhoseModeChangesAreNamedInTheirOrder() {
        let lit = [
            ModeChoice.LitOutput(connector: "Virtual-2", current: mode(800, 600), requested: nil),
            ModeChoice.LitOutput(connector: "Virtual-1", current: mode(1024, 768), requested: nil),
            ModeChoice.LitOutput(connector: "DP-1", current: mode(1920, 1080), requested: nil),
        ]
        let offered = [
            "Virtual-1": OfferedModes(modes: [mode(1024, 768), mode(640, 480)], preferred: 1),
            "Virtual-2": OfferedModes(modes: [mode(1920, 1200), mode(800, 600)], preferred: 0),
            // A connector listing no modes (being unplugged as it is read) changes nothing.
            "DP-1": OfferedModes(modes: [], preferred: nil),
        ]
        let changes = ModeChoice.changes(lit: lit, offered: offered)
        #expect(changes.map(\.connector) == ["Virtual-2", "Virtual-1"])
        #expect(changes.map(\.follow) == [.change(to: 0), .change(to: 1)])
    }
}
