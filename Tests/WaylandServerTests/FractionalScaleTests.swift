import Testing
import WaylandServer
import WaylandTestClient

@Suite struct FractionalScaleTests {
    private func fractionalScale(_ harness: ExtensionHarness, for surface: WlSurfaceProxy) throws -> WpFractionalScaleV1Proxy {
        let manager = try harness.client.bind(WpFractionalScaleManagerV1Proxy.self, version: 1)
        return try manager.getFractionalScale(surface: surface)
    }

    @Test func preferredScaleIsSentInHundredTwentiethsOnlyWhenItChanges() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let scale = try fractionalScale(harness, for: proxy)
        try harness.client.roundtrip()
        #expect(scale.events.isEmpty)
        surface.sendPreferredScale(1.5)
        surface.sendPreferredScale(1.5)
        try harness.client.roundtrip()
        #expect(scale.events == [.preferredScale(scale: 180)])
        surface.sendPreferredScale(2)
        // 4/3 is 159.96 in 1/120 units: rounded to the nearest.
        surface.sendPreferredScale(4.0 / 3.0)
        try harness.client.roundtrip()
        #expect(scale.events == [.preferredScale(scale: 180), .preferredScale(scale: 240), .preferredScale(scale: 160)])
    }

    @Test func aScaleChosenBeforeTheObjectExistsIsSentWhenItIsCreated() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        surface.sendPreferredScale(1.25)
        let scale = try fractionalScale(harness, for: proxy)
        try harness.client.roundtrip()
        #expect(scale.events == [.preferredScale(scale: 150)])
        surface.sendPreferredScale(1.25)
        try harness.client.roundtrip()
        #expect(scale.events.count == 1)
    }

    @Test func aReplacementObjectHearsTheCurrentScale() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let first = try fractionalScale(harness, for: proxy)
        try harness.client.roundtrip()
        surface.sendPreferredScale(1.5)
        try first.destroy()
        let second = try fractionalScale(harness, for: proxy)
        try harness.client.roundtrip()
        #expect(second.events == [.preferredScale(scale: 180)])
        surface.sendPreferredScale(3)
        try harness.client.roundtrip()
        #expect(second.events == [.preferredScale(scale: 180), .preferredScale(scale: 360)])
    }

    @Test func aSecondObjectForTheSameSurfaceIsFractionalScaleExists() throws {
        let harness = try ExtensionHarness()
        let (proxy, _) = try harness.makeSurface()
        let manager = try harness.client.bind(WpFractionalScaleManagerV1Proxy.self, version: 1)
        try manager.getFractionalScale(surface: proxy)
        try manager.getFractionalScale(surface: proxy)
        harness.expectProtocolError(WpFractionalScaleManagerV1Error.fractionalScaleExists, on: manager)
    }
}
