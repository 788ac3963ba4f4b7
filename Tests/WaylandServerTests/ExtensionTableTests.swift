import Testing
@testable import WaylandServer
import WaylandTestClient

/// A surface's table of its extensions' entries, keyed by the extension's type.
@Suite struct ExtensionTableTests {
    private final class First {}
    private final class Second {}
    private final class Third {}

    @Test func entriesAreFoundByKeyAndRunInTheOrderTheyWereFirstSet() {
        var table = ExtensionTable<Int>()
        let first = ObjectIdentifier(First.self), second = ObjectIdentifier(Second.self), third = ObjectIdentifier(Third.self)
        #expect(table[first] == nil)
        table[second] = 2
        table[first] = 1
        table[third] = 3
        // Replacing a value keeps its place.
        table[second] = 20
        #expect(table[first] == 1 && table[second] == 20 && table[third] == 3)
        #expect(Array(table.values) == [20, 1, 3])
    }

    @Test func anEntrySetToNilIsRemovedAndALaterOneGoesLast() {
        var table = ExtensionTable<Int>()
        let first = ObjectIdentifier(First.self), second = ObjectIdentifier(Second.self)
        table[first] = 1
        table[second] = 2
        table[first] = nil
        #expect(table[first] == nil)
        #expect(Array(table.values) == [2])
        table[first] = 10
        #expect(Array(table.values) == [2, 10])
        // Removing a key that is not there changes nothing.
        table[ObjectIdentifier(Third.self)] = nil
        #expect(Array(table.values) == [2, 10])
    }

    /// The compositor asks a shown surface for its presentation feedback every frame: the queue is
    /// a field of the surface, found without a walk of the table, and absent until a request.
    @Test func presentationFeedbackIsKeptOutsideTheExtensionTable() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface) = try harness.makeSurface()
        #expect(surface.presentationFeedbackQueue == nil)
        let presentation = try harness.client.bind(WpPresentationProxy.self, version: 1)
        _ = try presentation.feedback(surface: proxy)
        try harness.client.roundtrip()
        #expect(surface.presentationFeedbackQueue != nil)
        #expect(surface.extensions[ObjectIdentifier(PresentationFeedbackQueue.self)] == nil)
    }
}
