import DisplayBackend
import Testing

@testable import KMSBackend

/// What each connector a board names is lit with: its own settings, its layout among them.
@Suite struct KMSOutputConfigurationTests {
    @Test func aNamedConnectorCarriesItsOwnOriginOrMirrorAndOthersTheDefaultLayout() {
        var configuration = KMSOutputConfiguration(scaleFactor: 1.5)
        configuration.connectors = [
            KMSConnectorSettings(connector: "DSI-1", scaleFactor: 1, layout: .origin(x: -800, y: 120)),
            KMSConnectorSettings(connector: "HDMI-A-1", scaleFactor: 2, transform: .rotated90, layout: .mirror(of: "DSI-1")),
        ]
        let panel = configuration.resolved(for: "DSI-1")
        #expect(panel.layout == .origin(x: -800, y: 120))
        #expect(panel.scaleFactor == 1)
        let mirror = configuration.resolved(for: "HDMI-A-1")
        #expect(mirror.layout == .mirror(of: "DSI-1"))
        #expect(mirror.transform == .rotated90)
        let unnamed = configuration.resolved(for: "DP-1")
        #expect(unnamed.layout == .automatic)
        #expect(unnamed.scaleFactor == 1.5)
    }
}
