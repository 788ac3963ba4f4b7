import Testing
import WaylandServer
import WaylandTestClient

@Suite struct ViewporterTests {
    /// A surface showing a 64×32 buffer at scale 2 (32×16 in surface coordinates), with a viewport.
    private func scaledSurface(_ harness: ExtensionHarness) throws -> (proxy: WlSurfaceProxy, surface: Surface, viewport: WpViewportProxy) {
        let (proxy, surface) = try harness.makeSurface()
        let viewporter = try harness.client.bind(WpViewporterProxy.self, version: 1)
        let viewport = try viewporter.getViewport(surface: proxy)
        try harness.attach(try harness.shmBuffer(width: 64, height: 32), to: proxy)
        try proxy.setBufferScale(scale: 2)
        return (proxy, surface, viewport)
    }

    private func setSource(_ viewport: WpViewportProxy, _ x: Double, _ y: Double, _ width: Double, _ height: Double) throws {
        try viewport.setSource(x: x, y: y, width: width, height: height)
    }

    private func setDestination(_ viewport: WpViewportProxy, _ width: Int32, _ height: Int32) throws {
        try viewport.setDestination(width: width, height: height)
    }

    @Test func destinationSetsTheSurfaceSizeAndASourceAloneCropsToItsSize() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface, viewport) = try scaledSurface(harness)
        try setSource(viewport, 8, 4, 16, 8)
        try setDestination(viewport, 100, 50)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 100, height: 50))
        let source = try #require(surface.current.viewportSource)
        #expect([source.x, source.y, source.width, source.height] == [8, 4, 16, 8])
        #expect(surface.current.viewportDestination == SurfaceSize(width: 100, height: 50))

        try setDestination(viewport, -1, -1)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 16, height: 8))
        #expect(surface.current.viewportDestination == nil)

        try setSource(viewport, -1, -1, -1, -1)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 32, height: 16))
        #expect(surface.current.viewportSource == nil)
    }

    @Test func viewportStateWaitsForTheCommit() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface, viewport) = try scaledSurface(harness)
        try harness.commit(proxy)
        try setDestination(viewport, 100, 50)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 32, height: 16))
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 100, height: 50))
    }

    @Test func destroyingTheViewportUnsetsCropAndScaleOnTheNextCommit() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface, viewport) = try scaledSurface(harness)
        try setSource(viewport, 8, 4, 16, 8)
        try setDestination(viewport, 100, 50)
        try harness.commit(proxy)
        try viewport.destroy()
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 100, height: 50))
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 32, height: 16))
        #expect(surface.current.viewportSource == nil && surface.current.viewportDestination == nil)
    }

    @Test func aSynchronizedSubsurfaceKeepsBothPartsSetInSeparateCachedCommits() throws {
        let harness = try ExtensionHarness()
        let (parent, _) = try harness.makeSurface()
        let (child, childSurface, viewport) = try scaledSurface(harness)
        try harness.makeSubsurface(child, of: parent)
        try setDestination(viewport, 100, 50)
        try harness.commit(child)
        try setSource(viewport, 8, 4, 16, 8)
        try harness.commit(child)
        try harness.commit(parent)
        try harness.client.roundtrip()
        #expect(childSurface.current.viewportDestination == SurfaceSize(width: 100, height: 50))
        #expect(childSurface.current.viewportSource?.width == 16)
        #expect(childSurface.current.size == SurfaceSize(width: 100, height: 50))
    }

    @Test(arguments: [(-1.0, 0.0, 10.0, 10.0), (0, -0.5, 10, 10), (0, 0, 0, 10), (0, 0, 10, -2), (-1, -1, -1, 5)])
    func invalidSourceRectangleIsABadValue(_ rectangle: (Double, Double, Double, Double)) throws {
        let harness = try ExtensionHarness()
        let (_, _, viewport) = try scaledSurface(harness)
        try setSource(viewport, rectangle.0, rectangle.1, rectangle.2, rectangle.3)
        harness.expectProtocolError(WpViewportError.badValue, on: viewport)
    }

    @Test(arguments: [(Int32(0), Int32(5)), (5, -1), (-1, 5), (-2, -2)])
    func invalidDestinationSizeIsABadValue(_ size: (Int32, Int32)) throws {
        let harness = try ExtensionHarness()
        let (_, _, viewport) = try scaledSurface(harness)
        try setDestination(viewport, size.0, size.1)
        harness.expectProtocolError(WpViewportError.badValue, on: viewport)
    }

    @Test func fractionalSourceSizeWithoutDestinationIsABadSizeAtCommit() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface, viewport) = try scaledSurface(harness)
        try setSource(viewport, 0, 0, 10.5, 8)
        try setDestination(viewport, 20, 16)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 20, height: 16))
        try setDestination(viewport, -1, -1)
        try harness.client.roundtrip()
        try harness.commit(proxy)
        harness.expectProtocolError(WpViewportError.badSize, on: viewport)
    }

    @Test func sourceOutsideTheScaledBufferIsOutOfBufferAtCommit() throws {
        let harness = try ExtensionHarness()
        let (proxy, _, viewport) = try scaledSurface(harness)
        try setSource(viewport, 20, 0, 12, 16)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        try setSource(viewport, 20.5, 0, 12, 16)
        try setDestination(viewport, 10, 10)
        try harness.client.roundtrip()
        try harness.commit(proxy)
        harness.expectProtocolError(WpViewportError.outOfBuffer, on: viewport)
    }

    @Test func sourceRectangleIsCheckedAfterTheBufferTransform() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface, viewport) = try scaledSurface(harness)
        // Rotated by 90°, the 64×32 buffer at scale 2 is 16×32 in surface coordinates.
        try proxy.setBufferTransform(transform: .transform90)
        try setSource(viewport, 0, 0, 16, 32)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.size == SurfaceSize(width: 16, height: 32))
        try setSource(viewport, 0, 0, 32, 16)
        try harness.commit(proxy)
        harness.expectProtocolError(WpViewportError.outOfBuffer, on: viewport)
    }

    @Test func aSurfaceWithoutBufferIsNeverOutOfBuffer() throws {
        let harness = try ExtensionHarness()
        let (proxy, surface, viewport) = try scaledSurface(harness)
        try harness.attach(nil, to: proxy)
        try setSource(viewport, 500, 500, 10, 10)
        try harness.commit(proxy)
        try harness.client.roundtrip()
        #expect(surface.current.buffer == nil)
        #expect(surface.current.size == SurfaceSize(width: 0, height: 0))
    }

    @Test func aSecondViewportForTheSameSurfaceIsViewportExists() throws {
        let harness = try ExtensionHarness()
        let (proxy, _) = try harness.makeSurface()
        let viewporter = try harness.client.bind(WpViewporterProxy.self, version: 1)
        let first = try viewporter.getViewport(surface: proxy)
        try first.destroy()
        try viewporter.getViewport(surface: proxy)
        try harness.client.roundtrip()
        try viewporter.getViewport(surface: proxy)
        harness.expectProtocolError(WpViewporterError.viewportExists, on: viewporter)
    }

    /// A surface with a viewport is retained every frame: the viewport holds it strongly, not
    /// weakly (a weak reference gives it a side table, which slows every retain and release of
    /// it), and lets go of it when it is destroyed, while the viewport lives on.
    @Test func aViewportsSurfaceIsNotWeaklyReferencedAndIsReleasedWhenDestroyed() throws {
        let harness = try ExtensionHarness()
        weak var released: Surface?
        let viewport: WpViewportProxy
        do {
            let (proxy, surface, made) = try scaledSurface(harness)
            viewport = made
            try setDestination(viewport, 10, 10)
            try harness.commit(proxy)
            try harness.client.roundtrip()
            #expect(surface.current.viewportDestination == SurfaceSize(width: 10, height: 10))
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(surface) == 1)
            released = surface
            try proxy.destroy()
            try harness.client.roundtrip()
        }
        harness.core.commits = []
        #expect(released == nil)
        try setDestination(viewport, 10, 10)
        harness.expectProtocolError(WpViewportError.noSurface, on: viewport)
    }

    @Test func requestsAfterTheSurfaceIsDestroyedAreNoSurface() throws {
        let harness = try ExtensionHarness()
        let (proxy, _, viewport) = try scaledSurface(harness)
        try proxy.destroy()
        try harness.client.roundtrip()
        try setDestination(viewport, 10, 10)
        harness.expectProtocolError(WpViewportError.noSurface, on: viewport)
    }

    @Test func destroyingTheViewportAfterItsSurfaceIsAllowed() throws {
        let harness = try ExtensionHarness()
        let (proxy, _, viewport) = try scaledSurface(harness)
        try proxy.destroy()
        try viewport.destroy()
        try harness.client.roundtrip()
        #expect(harness.client.protocolError == nil)
    }
}
