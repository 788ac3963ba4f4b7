import Testing
@testable import LayerKit

/// A layer's rarely changed values live in a box that copies of its values share until one of
/// them changes a value; the values keep value semantics.
@MainActor
@Suite struct LayerPropertiesStorageTests {
    @Test func newValuesShareTheDefaultsBox() {
        #expect(LayerProperties().rare === LayerProperties().rare)
        #expect(LayerProperties().shadowOffset == Size(width: 0, height: -3) && LayerProperties().borderColor == .black)
    }

    @Test func aCopyKeepsItsValuesWhenTheOriginalChanges() {
        var original = LayerProperties()
        original.shadowOpacity = 0.5
        original.filters = [Filter(.gaussianBlur)]
        let copy = original
        #expect(copy.rare === original.rare)
        original.shadowOpacity = 0.75
        original.filters.append(Filter(.colorMatrix))
        #expect(copy.rare !== original.rare)
        #expect(copy.shadowOpacity == 0.5 && copy.filters.map(\.kind) == [.gaussianBlur])
        #expect(original.shadowOpacity == 0.75 && original.filters.map(\.kind) == [.gaussianBlur, .colorMatrix])
    }

    /// A commit that changes only a layer's contents (a client's new buffer) makes a new committed
    /// layer that shares the rare values of the one before; a change of one of them is seen by
    /// the next snapshot only.
    @Test func snapshotsShareTheRareValuesOfALayerUntilOneChanges() throws {
        let root = makeLayer(10, 10)
        root.borderWidth = 2
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let first = try #require(context.renderTree?.root)
        root.contents = Image(width: 1, height: 1, fill: .clear)
        Transaction.flush()
        let second = try #require(context.renderTree?.root)
        #expect(second !== first && second.properties.rare === first.properties.rare)
        root.borderWidth = 3
        Transaction.flush()
        let third = try #require(context.renderTree?.root)
        #expect(third.properties.rare !== second.properties.rare)
        #expect(first.properties.borderWidth == 2 && second.properties.borderWidth == 2 && third.properties.borderWidth == 3)
    }
}
