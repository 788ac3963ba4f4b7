import Testing
import WaylandServer
import WaylandTestClient

@Suite struct GlobalFilterTests {
    @Test func aFilteredGlobalIsMissingOnlyFromTheClientsTheFilterRefuses() throws {
        let harness = try Harness()
        let viewporter = ViewporterGlobal(display: harness.display)
        // The filter decides when a client makes its registry: the next client to connect is refused.
        var refuseNext = true
        var decisions: [ObjectIdentifier: Bool] = [:]
        var asked: [String] = []
        harness.display.globalFilter = { client, global in
            asked.append(global.interfaceName)
            let isAllowed = decisions[ObjectIdentifier(client)] ?? !refuseNext
            decisions[ObjectIdentifier(client)] = isAllowed
            return global.interfaceName != "wp_viewporter" || isAllowed
        }
        let refusedClient = try harness.connect()
        refuseNext = false
        let allowedClient = try harness.connect()
        try refusedClient.roundtrip()
        #expect(!refusedClient.globals.values.contains { $0.interface == "wp_viewporter" })
        #expect(refusedClient.globals.values.contains { $0.interface == "wl_compositor" })
        #expect(allowedClient.globals.values.contains { $0 == ("wp_viewporter", 1) })
        #expect(asked.contains("wp_viewporter"))
        _ = viewporter
    }

    @Test func bindingAGlobalTheFilterHidIsAnInvalidObjectError() throws {
        let harness = try Harness()
        let viewporter = ViewporterGlobal(display: harness.display)
        try harness.client.roundtrip()
        let name = try #require(harness.client.globals.first { $0.value.interface == "wp_viewporter" }?.key)
        harness.display.globalFilter = { _, global in global.interfaceName != "wp_viewporter" }
        _ = try harness.client.bind(WpViewporterProxy.self, name: name, version: 1)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_registry", objectID: 2, code: WlDisplayError.invalidObject.rawValue))) {
            try harness.client.roundtrip()
        }
        #expect(harness.display.connectedClients.isEmpty)
        _ = viewporter
    }
}
