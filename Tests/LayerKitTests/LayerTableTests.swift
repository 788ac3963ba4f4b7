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
    let ids: [UInt64] = [1, 33, 1 + 32 * 32, 1 + (1 << 60), 1 + (1 << 63), 0, 1 << 63, UInt64.max, UInt64.max - 32, 2, 34]

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
}
