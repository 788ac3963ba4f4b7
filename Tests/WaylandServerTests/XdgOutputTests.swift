import Testing
import WaylandServer
import WaylandTestClient

/// The harness's output is 640×480 at scale 2, named HEADLESS-1: 320×240 in the logical space.
@Suite struct XdgOutputTests {
    private func xdgOutput(_ harness: ExtensionHarness, version: UInt32) throws -> (output: WlOutputProxy, xdgOutput: ZxdgOutputV1Proxy) {
        let output = try harness.client.bind(WlOutputProxy.self, version: 4)
        try harness.client.roundtrip()
        output.clearEvents()
        let manager = try harness.client.bind(ZxdgOutputManagerV1Proxy.self, version: version)
        let xdgOutput = try manager.getXdgOutput(output: output)
        try harness.client.roundtrip()
        return (output, xdgOutput)
    }

    @Test func managerIsAdvertisedAtVersion3() throws {
        let harness = try ExtensionHarness()
        #expect(harness.client.globals.values.first { $0.interface == "zxdg_output_manager_v1" }?.version == 3)
    }

    @Test func version3SendsGeometryNameAndDescriptionThenWlOutputDone() throws {
        let harness = try ExtensionHarness()
        let (output, xdgOutput) = try xdgOutput(harness, version: 3)
        #expect(xdgOutput.events == [
            .logicalPosition(x: 0, y: 0), .logicalSize(width: 320, height: 240),
            .name(name: "HEADLESS-1"), .description(description: "Vitrine test output"),
        ])
        #expect(output.events.map(\.name) == ["done"])
    }

    @Test func version2EndsWithXdgOutputDone() throws {
        let harness = try ExtensionHarness()
        let (output, xdgOutput) = try xdgOutput(harness, version: 2)
        #expect(xdgOutput.events.map(\.name) == ["logical_position", "logical_size", "name", "description", "done"])
        #expect(output.events.isEmpty)
    }

    @Test func version1SendsNeitherNameNorDescription() throws {
        let harness = try ExtensionHarness()
        let (output, xdgOutput) = try xdgOutput(harness, version: 1)
        #expect(xdgOutput.events == [.logicalPosition(x: 0, y: 0), .logicalSize(width: 320, height: 240), .done])
        #expect(output.events.isEmpty)
    }

    @Test func version3UpdatesSendWhatChangedThenWlOutputDone() throws {
        let harness = try ExtensionHarness()
        let (output, xdgOutput) = try xdgOutput(harness, version: 3)
        xdgOutput.clearEvents()
        output.clearEvents()
        var description = harness.output.state
        description.x = 640
        description.description = "Lobby screen"
        harness.output.update(description)
        try harness.client.roundtrip()
        #expect(xdgOutput.events == [.logicalPosition(x: 640, y: 0), .description(description: "Lobby screen")])
        // One burst: wl_output's events and the xdg_output's, closed by a single wl_output.done.
        #expect(output.events.map(\.name) == ["geometry", "mode", "scale", "name", "description", "done"])
    }

    @Test func version2UpdatesNeverResendTheDescription() throws {
        let harness = try ExtensionHarness()
        let (_, xdgOutput) = try xdgOutput(harness, version: 2)
        xdgOutput.clearEvents()
        var description = harness.output.state
        description.scaleFactor = 1
        description.description = "Lobby screen"
        harness.output.update(description)
        try harness.client.roundtrip()
        #expect(xdgOutput.events == [.logicalSize(width: 640, height: 480), .done])
    }

    @Test func anUpdateThatLeavesTheLogicalGeometryAloneSendsNothing() throws {
        let harness = try ExtensionHarness()
        let (_, xdgOutput) = try xdgOutput(harness, version: 3)
        xdgOutput.clearEvents()
        var description = harness.output.state
        description.refreshMillihertz = 50_000
        harness.output.update(description)
        try harness.client.roundtrip()
        #expect(xdgOutput.events.isEmpty)
    }

    @Test func aRotatedOutputSwapsTheLogicalSize() throws {
        let harness = try ExtensionHarness()
        let (_, xdgOutput) = try xdgOutput(harness, version: 3)
        xdgOutput.clearEvents()
        var description = harness.output.state
        description.transform = .rotated90
        harness.output.update(description)
        try harness.client.roundtrip()
        #expect(xdgOutput.events == [.logicalSize(width: 240, height: 320)])
    }

    @Test func xdgOutputsLeftAfterAnotherWasDestroyedStillHearUpdates() throws {
        let harness = try ExtensionHarness()
        let (output, first) = try xdgOutput(harness, version: 2)
        let manager = try harness.client.bind(ZxdgOutputManagerV1Proxy.self, version: 2)
        let second = try manager.getXdgOutput(output: output)
        try harness.client.roundtrip()
        second.clearEvents()
        try first.destroy()
        var description = harness.output.state
        description.y = 100
        harness.output.update(description)
        try harness.client.roundtrip()
        #expect(second.events.map(\.name) == ["logical_position", "done"])
    }
}
