import Glibc
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct XdgActivationTests {
    /// A committed token of the harness's client, with an app id and its requesting surface.
    private func requestToken(_ harness: XdgHarness, appID: String = "org.example.Maps") throws -> (token: String, surface: WlSurfaceProxy) {
        let activation = try harness.client.bind(XdgActivationV1Proxy.self, version: 1)
        let surface = try harness.makeSurface()
        let request = try activation.getActivationToken()
        try request.setAppID(appID: appID)
        try request.setSurface(surface: surface)
        try request.commit()
        try harness.client.roundtrip()
        guard case .done(let token)? = request.events.first else {
            Issue.record("no done event")
            return ("", surface)
        }
        return (token, surface)
    }

    /// Activates a new surface of another client with `token`.
    private func activate(_ harness: XdgHarness, token: String) throws {
        let other = try harness.core.connect()
        let compositor = try other.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        let activation = try other.bind(XdgActivationV1Proxy.self, version: 1)
        try activation.activate(token: token, surface: surface)
        try other.roundtrip()
    }

    @Test func aCommittedTokenActivatesAnotherClientsSurfaceOnce() throws {
        let harness = try XdgHarness()
        let (token, requester) = try requestToken(harness)
        #expect(token.count == 32)
        #expect(token.allSatisfy { $0.isHexDigit })
        try activate(harness, token: token)
        let first = try #require(harness.policy.activations.first)
        #expect(first.token.value == token)
        #expect(first.token.isValid)
        #expect(first.token.appID == "org.example.Maps")
        #expect(first.token.requestingSurface?.id == requester.id)
        #expect(first.token.requestingClient === harness.serverClient)
        #expect(first.surface.client !== harness.serverClient)
        try activate(harness, token: token)
        #expect(harness.policy.activations.count == 2)
        #expect(harness.policy.activations.last?.token.isValid == false)
    }

    @Test func anUnknownTokenIsInvalid() throws {
        let harness = try XdgHarness()
        try activate(harness, token: "not-a-token")
        #expect(harness.policy.activations.map(\.token.isValid) == [false])
        #expect(harness.policy.activations.first?.token.value == "not-a-token")
    }

    @Test func anExpiredTokenIsInvalid() throws {
        let harness = try XdgHarness()
        harness.activation.tokenLifetime = .milliseconds(20)
        let (token, _) = try requestToken(harness)
        usleep(40_000)
        try activate(harness, token: token)
        #expect(harness.policy.activations.map(\.token.isValid) == [false])
    }

    @Test func eachTokenIsNew() throws {
        let harness = try XdgHarness()
        let first = try requestToken(harness).token
        let second = try requestToken(harness).token
        #expect(first != second)
    }

    /// Tokens asked for in a loop cost no more than `maximumTokens` records: past that the oldest
    /// lapses, the newest ones stay valid.
    @Test func tokensBeyondTheLimitMakeTheOldestLapse() throws {
        let harness = try XdgHarness()
        let limit = XdgActivationGlobal.maximumTokens
        let tokens = (0...limit).map { _ in harness.activation.issueToken() }
        try activate(harness, token: tokens[0])
        try activate(harness, token: tokens[1])
        try activate(harness, token: tokens[limit])
        #expect(harness.policy.activations.map(\.token.isValid) == [false, true, true])
    }

    @Test func aTokenTheCompositorIssuedIsValid() throws {
        let harness = try XdgHarness()
        let token = harness.activation.issueToken(appID: "org.example.Launcher")
        try activate(harness, token: token)
        let activation = try #require(harness.policy.activations.first)
        #expect(activation.token.isValid)
        #expect(activation.token.appID == "org.example.Launcher")
        #expect(activation.token.requestingClient == nil)
    }

    @Test func theSerialAndSeatTravelWithTheToken() throws {
        let harness = try XdgHarness()
        let activation = try harness.client.bind(XdgActivationV1Proxy.self, version: 1)
        let seat = try harness.client.bind(WlSeatProxy.self, version: 1)
        let request = try activation.getActivationToken()
        try request.setSerial(serial: 99, seat: seat)
        try request.commit()
        try harness.client.roundtrip()
        guard case .done(let token)? = request.events.first else {
            Issue.record("no done event")
            return
        }
        try activate(harness, token: token)
        #expect(harness.policy.activations.first?.token.serial == 99)
        #expect(harness.policy.activations.first?.token.seat?.id == seat.id)
    }

    /// set_app_id, then commit, after the commit.
    @Test(arguments: ["set_app_id", "commit"])
    func requestsAfterCommitAreAlreadyUsed(request name: String) throws {
        let harness = try XdgHarness()
        let activation = try harness.client.bind(XdgActivationV1Proxy.self, version: 1)
        let request = try activation.getActivationToken()
        try request.commit()
        if name == "set_app_id" { try request.setAppID(appID: "again") } else { try request.commit() }
        harness.expectError(XdgActivationTokenV1Error.alreadyUsed, on: request)
    }
}
