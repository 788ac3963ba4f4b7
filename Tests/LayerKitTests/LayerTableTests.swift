import Testing
@testable import LayerKit

@Suite struct LayerTableTests {
    func layer(_ id: UInt64, opacity: Double = 1) -> RenderLayer {
        var properties = LayerProperties()
        properties.opacity = opacity
        return RenderLayer(
            id: LayerID(rawValue: id), properties: properties, superlayerID: nil, sublayerIDs: [], maskID: nil, maskedLayerID: nil,
            animations: [], revisionExceptContents: 0, revisionExceptSublayers: 0)
    }

    /// Ids that agree in their lowest 5, 10, 60 and 63 bits: each pair parts only deep down.
    /// (0 is no layer's id: `LayerTable.vacancyID`.)
    let ids: [UInt64] = [1, 33, 1 + 32 * 32, 1 + (1 << 60), 1 + (1 << 63), 1 << 62, 1 << 63, UInt64.max, UInt64.max - 32, 2, 34]

    func opacities(in table: LayerTable) -> [Double?] {
        ids.map { table[LayerID(rawValue: $0)]?.properties.opacity }
    }

    @Test func layersWhoseIDsShareTheirLowBitsAreFoundReplacedAndRemoved() {
        var table = LayerTable()
        for (offset, id) in ids.enumerated() { table[LayerID(rawValue: id)] = layer(id, opacity: Double(offset) / 10) }
        #expect(table.count == ids.count)
        #expect(opacities(in: table) == ids.indices.map { Double($0) / 10 })
        #expect(table[LayerID(rawValue: 65)] == nil && table[LayerID(rawValue: 1 + (1 << 62))] == nil)

        table[LayerID(rawValue: 33)] = layer(33, opacity: 0.5)
        #expect(table.count == ids.count && table[LayerID(rawValue: 33)]?.properties.opacity == 0.5)

        for id: UInt64 in [1, 1 + 32 * 32, UInt64.max, 65] { table[LayerID(rawValue: id)] = nil }
        #expect(table.count == ids.count - 3)
        #expect(opacities(in: table) == [nil, 0.5, nil, 0.3, 0.4, 0.5, 0.6, nil, 0.8, 0.9, 1.0])
        #expect(table.first { $0.properties.opacity == 0.8 }?.id == LayerID(rawValue: UInt64.max - 32))

        for id in ids { table[LayerID(rawValue: id)] = nil }
        #expect(table.count == 0 && table.first { _ in true } == nil)
    }

    @Test func aCopyKeepsItsLayersWhileTheOriginalChanges() {
        var table = LayerTable()
        for id in ids { table[LayerID(rawValue: id)] = layer(id) }
        let copy = table
        for id in ids.prefix(5) { table[LayerID(rawValue: id)] = layer(id, opacity: 0.5) }
        for id in ids.suffix(3) { table[LayerID(rawValue: id)] = nil }
        table[LayerID(rawValue: 65)] = layer(65)
        #expect(opacities(in: copy) == ids.map { _ in 1 })
        #expect(copy.count == ids.count && copy[LayerID(rawValue: 65)] == nil)
        #expect(opacities(in: table) == [0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 1, nil, nil, nil])
        #expect(table.count == ids.count - 2)
    }

    /// A client's new buffer, commit after commit: the layer stored last is stored again beside
    /// the trie, which the copies (the snapshots still held) share as it is.
    @Test func storingTheLayerStoredLastAgainCopiesNoNodeWhileCopiesHoldTheTable() {
        var table = LayerTable()
        for id in ids { table[LayerID(rawValue: id)] = layer(id) }
        let first = table
        table[LayerID(rawValue: 33)] = layer(33, opacity: 0.5)
        let second = table
        table[LayerID(rawValue: 33)] = layer(33, opacity: 0.25)
        let third = table
        table[LayerID(rawValue: 33)] = layer(33, opacity: 0)
        #expect(second.rootIdentity == table.rootIdentity && third.rootIdentity == table.rootIdentity)
        #expect(first.rootIdentity != table.rootIdentity)
        #expect([first, second, third, table].map { $0[LayerID(rawValue: 33)]?.properties.opacity } == [1, 0.5, 0.25, 0])
        #expect(opacities(in: table) == [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1])
        #expect(table.count == ids.count && second.count == ids.count)
        #expect(table.first { $0.properties.opacity == 0 }?.id == LayerID(rawValue: 33))
        #expect(second.first { $0.properties.opacity == 0.5 }?.id == LayerID(rawValue: 33))
        #expect(table.first { $0.id == LayerTable.vacancyID } == nil)

        // Another layer stored puts the last one into its place, for copies made from then on.
        table[LayerID(rawValue: 2)] = layer(2, opacity: 0.5)
        #expect(opacities(in: table) == [1, 0, 1, 1, 1, 1, 1, 1, 1, 0.5, 1])
        #expect(opacities(in: third) == [1, 0.25, 1, 1, 1, 1, 1, 1, 1, 1, 1])
        table[LayerID(rawValue: 2)] = nil
        table[LayerID(rawValue: 33)] = nil
        #expect(opacities(in: table) == [1, nil, 1, 1, 1, 1, 1, 1, 1, nil, 1])
        #expect(table.count == ids.count - 2)
        table[LayerID(rawValue: 65)] = layer(65, opacity: 0.5)
        #expect(table.count == ids.count - 1 && table[LayerID(rawValue: 65)]?.properties.opacity == 0.5)
    }

    /// The values a layer replaced are let go as soon as no copy shows them: the trie keeps no
    /// stale values for the layer stored beside it.
    @Test func replacedValuesAreLetGoOnceNoCopyShowsThem() {
        final class Contents: ExternalContents {
            var pixelSize: (width: Int, height: Int)? { (1, 1) }
        }
        func layer(_ id: UInt64, showing contents: Contents) -> RenderLayer {
            var properties = LayerProperties()
            properties.externalContents = contents
            return RenderLayer(
                id: LayerID(rawValue: id), properties: properties, superlayerID: nil, sublayerIDs: [], maskID: nil, maskedLayerID: nil,
                animations: [], revisionExceptContents: 0, revisionExceptSublayers: 0)
        }
        var table = LayerTable()
        for id in ids { table[LayerID(rawValue: id)] = self.layer(id) }
        weak var firstContents: Contents?
        weak var secondContents: Contents?
        do {
            let first = Contents(), second = Contents()
            (firstContents, secondContents) = (first, second)
            table[LayerID(rawValue: 33)] = layer(33, showing: first)
            var held: LayerTable? = table
            table[LayerID(rawValue: 33)] = layer(33, showing: second)
            #expect(held?[LayerID(rawValue: 33)]?.externalContents === first)
            held = nil
        }
        #expect(firstContents == nil && secondContents != nil)
        table[LayerID(rawValue: 2)] = self.layer(2)
        #expect(table[LayerID(rawValue: 33)]?.externalContents === secondContents)
        table[LayerID(rawValue: 33)] = self.layer(33)
        #expect(secondContents == nil)
    }
}
