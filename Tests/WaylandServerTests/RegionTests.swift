import Glibc
import Testing
import WaylandServer
import WaylandTestClient

/// wl_region's value: pixman's banded rectangles, exact under add and subtract, and safe for any
/// rectangle a client can send.
@Suite struct RegionTests {
    @Test func touchingRectanglesMergeIntoBands() {
        var region = Region(IntRect(x: 0, y: 0, width: 50, height: 100))
        region.add(IntRect(x: 50, y: 0, width: 50, height: 100))
        #expect(region.rectangles == [IntRect(x: 0, y: 0, width: 100, height: 100)])
        region.subtract(IntRect(x: 50, y: 50, width: 100, height: 100))
        #expect(region.rectangles == [IntRect(x: 0, y: 0, width: 100, height: 50), IntRect(x: 0, y: 50, width: 50, height: 50)])
        #expect(region.covers(IntRect(x: 0, y: 0, width: 100, height: 50)))
        #expect(!region.covers(IntRect(x: 0, y: 0, width: 100, height: 51)))
        #expect(region.intersection(IntRect(x: 25, y: 25, width: 50, height: 50)).rectangles
            == [IntRect(x: 25, y: 25, width: 50, height: 25), IntRect(x: 25, y: 50, width: 25, height: 25)])
    }

    /// The rows-minus-columns region that took the hand-written region seconds to build and to
    /// cover: N² disjoint one-pixel rectangles, and one rectangle over them leaves exactly one.
    @Test(arguments: [40, 80]) func aFragmentedRegionCoveredByOneRectangleIsThatRectangle(_ n: Int) {
        var region = Region()
        for i in 0..<n { region.add(IntRect(x: 0, y: Int32(2 * i), width: Int32(2 * n), height: 1)) }
        for i in 0..<n { region.subtract(IntRect(x: Int32(2 * i), y: 0, width: 1, height: Int32(2 * n))) }
        #expect(region.rectangleCount == n * n)
        #expect(region.rectangles.first == IntRect(x: 1, y: 0, width: 1, height: 1))
        region.add(IntRect(x: 0, y: 0, width: Int32(2 * n), height: Int32(2 * n)))
        #expect(region.rectangles == [IntRect(x: 0, y: 0, width: Int32(2 * n), height: Int32(2 * n))])
    }

    /// Coordinates are kept within ±2³⁰: a rectangle reaching past Int32.max is cut there, not
    /// wrapped, and points outside that range or not numbers are in no region.
    @Test func extremeRectanglesAreClampedNotWrapped() {
        let huge = Region(IntRect(x: Int32.max, y: Int32.min, width: Int32.max, height: Int32.max))
        #expect(huge.isEmpty)
        let wide = Region(IntRect(x: -5, y: 0, width: Int32.max, height: 10))
        #expect(wide.rectangles == [IntRect(x: -5, y: 0, width: 1 << 30 + 5, height: 10)])
        #expect(!Region.infinite.contains(x: .nan, y: 0))
        #expect(!Region.infinite.contains(x: 0, y: 1e12))
        #expect(Region.infinite.contains(x: -1e9, y: 1e9))
        #expect(!Region.infinite.covers(IntRect(x: Int32.min, y: 0, width: 10, height: 10)))
    }

    @Test func equalRegionsBuiltDifferentlyAreEqualAndHashAlike() {
        var a = Region(IntRect(x: 0, y: 0, width: 10, height: 10))
        a.add(IntRect(x: 10, y: 0, width: 10, height: 10))
        var b = Region(IntRect(x: 0, y: 0, width: 30, height: 10))
        b.subtract(IntRect(x: 20, y: 0, width: 10, height: 10))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        var c = a
        c.subtract(IntRect(x: 0, y: 0, width: 1, height: 1))
        #expect(c != a, "a copy changes alone")
        #expect(a.rectangleCount == 1)
    }
}

/// What one client can make the compositor do with wl_region is bounded.
@Suite struct RegionResourceTests {
    /// A region of more rectangles than any toolkit sends costs every later request time in
    /// proportion: the client that builds it is disconnected (no_memory), the others go on.
    @Test func aClientBuildingARegionOfTooManyRectanglesIsDisconnected() throws {
        let harness = try Harness()
        let other = try harness.connect()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let region = try compositor.createRegion()
        // 129 rows minus 128 columns: 129 × 129 rectangles, just over the limit.
        let n: Int32 = 129
        for i in 0..<n { try region.add(x: 0, y: 2 * i, width: 2 * n, height: 1) }
        for i in 0..<(n - 1) { try region.subtract(x: 2 * i, y: 0, width: 1, height: 2 * n) }
        // wl_display.error no_memory, which libwayland's client reports as ENOMEM.
        #expect(throws: TestClientError.disconnected(errno: ENOMEM)) { try harness.client.roundtrip() }
        let otherCompositor = try other.bind(WlCompositorProxy.self, version: 5)
        try otherCompositor.createSurface()
        try other.roundtrip()
        #expect(other.protocolError == nil)
    }
}
