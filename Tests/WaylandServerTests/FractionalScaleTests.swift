import Testing
import WaylandServer
import WaylandTestClient

@Suite struct FractionalScaleTests {
    private func fractionalScale(_ harness: ExtensionHarness, for surface: TestProxy) throws -> TestProxy {
        let manager = try harness.client.bind("wp_fractional_scale_manager_v1", version: 1)
        return try manager.send(1, [.newID, .object(surface)], interface: "wp_fractional_scale_v1")
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
        #expect(scale.events.map(\.name) == ["preferred_scale"])
        #expect(scale.events[0].arguments == [.uint(180)])
        surface.sendPreferredScale(2)
        // 4/3 is 159.96 in 1/120 units: rounded to the nearest.
        surface.sendPreferredScale(4.0 / 3.0)
        try harness.client.roundtrip()
        #expect(scale.events.map(\.arguments) == [[.uint(180)], [.uint(240)], [.uint(160)]])
    }

    @Test func aScaleChosenBeforeTheObjectExistsIsSentWhenItIsCreated() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        surface.sendPreferredScale(1.25)
        let scale = try fractionalScale(harness, for: proxy)
        try harness.client.roundtrip()
        #expect(scale.events.map(\.arguments) == [[.uint(150)]])
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
        try first.sendDestructor(0)
        let second = try fractionalScale(harness, for: proxy)
        try harness.client.roundtrip()
        #expect(second.events.map(\.arguments) == [[.uint(180)]])
        surface.sendPreferredScale(3)
        try harness.client.roundtrip()
        #expect(second.events.map(\.arguments) == [[.uint(180)], [.uint(360)]])
    }

    @Test func aSecondObjectForTheSameSurfaceIsFractionalScaleExists() throws {
        let harness = try ExtensionHarness()
        let (proxy, _) = try harness.makeSurface()
        let manager = try harness.client.bind("wp_fractional_scale_manager_v1", version: 1)
        _ = try manager.send(1, [.newID, .object(proxy)], interface: "wp_fractional_scale_v1")
        _ = try manager.send(1, [.newID, .object(proxy)], interface: "wp_fractional_scale_v1")
        harness.expectProtocolError(on: manager, code: 0)
    }
}
