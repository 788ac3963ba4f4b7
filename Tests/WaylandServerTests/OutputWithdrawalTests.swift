import Glibc
import WaylandServer
import WaylandTestClient
import Testing

/// An unplugged display's wl_output: clients hear it is gone at once, yet one that binds it before
/// hearing so gets an object, until the global is destroyed (libwayland's advice for globals that go).
@Suite struct OutputWithdrawalTests {
    @Test func aWithdrawnOutputLeavesTheRegistryAtOnceAndIsDestroyedAfterTheDelay() throws {
        let harness = try Harness()
        let client = try #require(harness.client)
        let name = try #require(client.globals.first { $0.value.interface == "wl_output" }?.key)
        harness.output.withdraw(destroyingAfterMilliseconds: 200)
        try client.roundtrip()
        #expect(client.globals[name] == nil)
        #expect(harness.output.isWithdrawn)
        // A bind that crossed the removal gets a working object, with the output's description.
        let late = try client.bind(WlOutputProxy.self, name: name, version: 4)
        try client.roundtrip()
        #expect(client.protocolError == nil)
        #expect(late.events.contains(.name(name: "HEADLESS-1")))
        // A client that connects now never sees it.
        let newcomer = try harness.connect()
        #expect(!newcomer.globals.values.contains { $0.interface == "wl_output" })

        var waited = 0
        while waited < 400 {
            try harness.display.eventLoop.dispatch(timeoutMilliseconds: 50)
            waited += 50
        }
        // Destroyed: the name is unknown now, and binding it is the client's error.
        _ = try newcomer.bind(WlOutputProxy.self, name: name, version: 4)
        try? newcomer.roundtrip()
        #expect(newcomer.protocolError?.interface == "wl_registry")
        #expect(newcomer.protocolError?.code == 0)
    }
}
