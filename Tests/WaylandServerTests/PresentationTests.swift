import Testing
import WaylandServer
import WaylandTestClient

@Suite struct PresentationTests {
    private func feedback(_ harness: ExtensionHarness, on surface: TestProxy) throws -> TestProxy {
        let presentation = try harness.client.bind("wp_presentation", version: 1)
        return try presentation.send(1, [.object(surface), .newID], interface: "wp_presentation_feedback")
    }

    @Test func bindingAnnouncesTheMonotonicClock() throws {
        let harness = try ExtensionHarness()
        let presentation = try harness.client.bind("wp_presentation", version: 1)
        try harness.client.roundtrip()
        #expect(presentation.events.map(\.name) == ["clock_id"])
        #expect(presentation.events[0].arguments == [.uint(1)])
    }

    @Test func presentedSendsSyncOutputForEachBindingThenTheSplitTimestamp() throws {
        let harness = try ExtensionHarness()
        let first = try harness.client.bind("wl_output", version: 4)
        let second = try harness.client.bind("wl_output", version: 4)
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
        #expect(request.events.map(\.name) == ["sync_output", "sync_output", "presented"])
        #expect(request.events[0].arguments == [.object(first.id)])
        #expect(request.events[1].arguments == [.object(second.id)])
        #expect(request.events[2].arguments == [.uint(1), .uint(0x2345_6789), .uint(987_654_321), .uint(16_666_667),
                                                .uint(2), .uint(3), .uint(0x1 | 0x4)])
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
        #expect(request.events.map(\.name) == ["presented"])
        #expect(request.events[0].arguments == [.uint(0), .uint(5), .uint(0), .uint(0), .uint(0), .uint(0), .uint(0)])
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
        _ = try harness.makeSubsurface(child, of: parent)
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
        #expect(request.events.map(\.name) == ["discarded"])
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
        #expect(first.events.map(\.name) == ["discarded"])
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
        #expect(request.events.map(\.name) == ["discarded"])
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
        _ = try harness.makeSubsurface(child, of: parent)
        let first = try feedback(harness, on: child)
        try harness.commit(child)
        let second = try feedback(harness, on: child)
        try harness.commit(child)
        try harness.commit(parent)
        try harness.client.roundtrip()
        childSurface.discardSupersededPresentationFeedbacks()
        #expect(childSurface.takePresentationFeedbacks().map(\.id) == [second.id])
        try harness.client.roundtrip()
        #expect(first.events.map(\.name) == ["discarded"])
    }

    @Test func destroyingTheSurfaceDiscardsItsFeedback() throws {
        let harness = try ExtensionHarness()
        let (proxy, _) = try harness.makeSurface()
        let committed = try feedback(harness, on: proxy)
        try harness.commit(proxy)
        let pending = try feedback(harness, on: proxy)
        try harness.client.roundtrip()
        try proxy.sendDestructor(0)
        try harness.client.roundtrip()
        #expect(committed.events.map(\.name) == ["discarded"])
        #expect(pending.events.map(\.name) == ["discarded"])
    }
}
