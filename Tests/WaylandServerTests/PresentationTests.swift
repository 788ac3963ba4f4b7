import Testing
import WaylandServer
import WaylandTestClient

@Suite struct PresentationTests {
    private func feedback(_ harness: ExtensionHarness, on surface: WlSurfaceProxy) throws -> WpPresentationFeedbackProxy {
        let presentation = try harness.client.bind(WpPresentationProxy.self, version: 1)
        return try presentation.feedback(surface: surface)
    }

    @Test func bindingAnnouncesTheMonotonicClock() throws {
        let harness = try ExtensionHarness()
        let presentation = try harness.client.bind(WpPresentationProxy.self, version: 1)
        try harness.client.roundtrip()
        #expect(presentation.events == [.clockID(clkID: 1)])
    }

    @Test func presentedSendsSyncOutputForEachBindingThenTheSplitTimestamp() throws {
        let harness = try ExtensionHarness()
        let first = try harness.client.bind(WlOutputProxy.self, version: 4)
        let second = try harness.client.bind(WlOutputProxy.self, version: 4)
        let (proxy, surface) = try harness.makeSurface()
        let request = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        let taken = surface.takePresentationFeedbacks()
        #expect(taken.map(\.id) == [request.id])
        #expect(surface.takePresentationFeedbacks().isEmpty)

        taken[0].presented(on: harness.output, seconds: 0x1_2345_6789, nanoseconds: 987_654_321, refreshNanoseconds: 16_666_667,
                           sequence: 0x2_0000_0003, flags: [.vsync, .hardwareCompletion])
        try harness.client.roundtrip()
        #expect(request.events == [
            .syncOutput(output: first), .syncOutput(output: second),
            .presented(tvSecHi: 1, tvSecLo: 0x2345_6789, tvNsec: 987_654_321, refresh: 16_666_667, seqHi: 2, seqLo: 3,
                       flags: [.vsync, .hwCompletion]),
        ])
        #expect(!taken[0].isAlive)
    }

    @Test func aClientWithoutTheOutputBoundHearsOnlyPresented() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let request = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        surface.takePresentationFeedbacks().forEach {
            $0.presented(on: harness.output, seconds: 5, nanoseconds: 0, refreshNanoseconds: 0, sequence: 0, flags: [])
        }
        try harness.client.roundtrip()
        #expect(request.events == [.presented(tvSecHi: 0, tvSecLo: 5, tvNsec: 0, refresh: 0, seqHi: 0, seqLo: 0, flags: [])])
    }

    @Test func feedbackFollowsTheNextCommit() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let request = try feedback(harness, on: proxy)
        try harness.client.roundtrip()
        #expect(surface.takePresentationFeedbacks().isEmpty)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.takePresentationFeedbacks().map(\.id) == [request.id])
    }

    @Test func aSynchronizedSubsurfaceDeliversFeedbackOnlyAfterTheParentCommit() throws {
        let harness = try ExtensionHarness()
        let (parent, _) = try harness.makeSurface()
        let (child, childSurface) = try harness.makeSurface()
        try harness.makeSubsurface(child, of: parent)
        let request = try feedback(harness, on: child)
        try harness.commit(child)
        try harness.client.roundtrip()
        #expect(childSurface.takePresentationFeedbacks().isEmpty)
        try harness.commit(parent)
        try harness.client.roundtrip()
        #expect(childSurface.takePresentationFeedbacks().map(\.id) == [request.id])
    }

    @Test func discardedSendsDiscardedAndDestroys() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let request = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        let taken = surface.takePresentationFeedbacks()
        taken.forEach { $0.discarded() }
        taken.forEach { $0.discarded() }
        try harness.client.roundtrip()
        #expect(request.events == [.discarded])
    }

    @Test func supersededCommitsAreDiscardedWhenTheCompositorSaysSo() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let first = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        let second = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        surface.discardSupersededPresentationFeedbacks()
        #expect(surface.takePresentationFeedbacks().map(\.id) == [second.id])
        try harness.client.roundtrip()
        #expect(first.events == [.discarded])
        #expect(second.events.isEmpty)
    }

    @Test func aLaterCommitWithoutFeedbackSupersedesOneWithFeedback() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let request = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        surface.discardSupersededPresentationFeedbacks()
        #expect(surface.takePresentationFeedbacks().isEmpty)
        try harness.client.roundtrip()
        #expect(request.events == [.discarded])
    }

    @Test func withoutTheCompositorsSayFeedbackOfEveryAppliedCommitIsTakenInOrder() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        let first = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        let second = try feedback(harness, on: proxy)
        let third = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.takePresentationFeedbacks().map(\.id) == [first.id, second.id, third.id])
    }

    @Test func cachedSubsurfaceCommitsAppliedTogetherStillSupersedeEachOther() throws {
        let harness = try ExtensionHarness()
        let (parent, _) = try harness.makeSurface()
        let (child, childSurface) = try harness.makeSurface()
        try harness.makeSubsurface(child, of: parent)
        let first = try feedback(harness, on: child)
        try harness.commit(child)
        let second = try feedback(harness, on: child)
        try harness.commit(child)
        try harness.commit(parent)
        try harness.client.roundtrip()
        childSurface.discardSupersededPresentationFeedbacks()
        #expect(childSurface.takePresentationFeedbacks().map(\.id) == [second.id])
        try harness.client.roundtrip()
        #expect(first.events == [.discarded])
    }

    @Test func destroyingTheSurfaceDiscardsItsFeedback() throws {
        let harness = try ExtensionHarness()
        let (proxy, _) = try harness.makeSurface()
        let committed = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        let pending = try feedback(harness, on: proxy)
        try harness.client.roundtrip()
        try proxy.destroy()
        try harness.client.roundtrip()
        #expect(committed.events == [.discarded])
        #expect(pending.events == [.discarded])
    }
}
