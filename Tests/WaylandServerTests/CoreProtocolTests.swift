import Buffers
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct CoreProtocolTests {
    @Test func registryAdvertisesTheCoreGlobalsAtTheirVersions() throws {
        let harness = try Harness()
        let globals = Dictionary(harness.client.globals.values.map { ($0.interface, $0.version) }, uniquingKeysWith: max)
        #expect(globals["wl_compositor"] == 5)
        #expect(globals["wl_subcompositor"] == 1)
        #expect(globals["wl_shm"] == 1)
        #expect(globals["wl_output"] == 4)
    }

    @Test func outputSendsGeometryModeScaleNameDescriptionThenDone() throws {
        let harness = try Harness()
        let output = try harness.client.bind("wl_output", version: 4)
        try harness.client.roundtrip()
        #expect(output.events.map(\.name) == ["geometry", "mode", "scale", "name", "description", "done"])
        #expect(output.events(named: "mode")[0].arguments == [.uint(3), .int(640), .int(480), .int(60000)])
        #expect(output.events(named: "scale")[0].arguments == [.int(2)])
        #expect(output.events(named: "name")[0].arguments == [.string("HEADLESS-1")])
    }

    @Test func committedShmBufferBecomesCurrentStateWithItsDamage() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        let buffer = try harness.shmBuffer(harness.client, width: 64, height: 32, pixel: 0xff00_ff00)
        try surface.send(1, [.object(buffer), .int(0), .int(0)])
        try surface.send(9, [.int(1), .int(2), .int(3), .int(4)])
        try harness.client.roundtrip()
        #expect(harness.commits.isEmpty)
        try surface.send(6)
        try harness.client.roundtrip()
        #expect(harness.commits.count == 1)
        let state = try #require(harness.commits.first?.state)
        #expect(state.bufferWasAttached)
        #expect(state.buffer?.width == 64 && state.buffer?.height == 32)
        #expect(state.buffer?.storage == .shm(format: .argb8888))
        #expect(state.bufferDamage == [IntRect(x: 1, y: 2, width: 3, height: 4)])
        #expect(state.size == SurfaceSize(width: 64, height: 32))
        let pixel = state.buffer?.withShmContents { contents in
            contents.bytes.load(fromByteOffset: 0, as: UInt32.self)
        }
        #expect(pixel == 0xff00_ff00)
    }

    @Test func bufferScaleDividesTheSurfaceSizeAndMustDivideTheBuffer() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        let buffer = try harness.shmBuffer(harness.client, width: 64, height: 32, pixel: 0)
        try surface.send(1, [.object(buffer), .int(0), .int(0)])
        try surface.send(8, [.int(2)])
        try surface.send(6)
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.size == SurfaceSize(width: 32, height: 16))
        try surface.send(8, [.int(3)])
        try surface.send(6)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_surface", objectID: surface.id, code: 2))) {
            try harness.client.roundtrip()
        }
    }

    @Test func nonPositiveBufferScaleIsAnInvalidScaleError() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        try surface.send(8, [.int(0)])
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_surface", objectID: surface.id, code: 0))) {
            try harness.client.roundtrip()
        }
    }

    @Test func aProtocolErrorDisconnectsOnlyTheClientThatCausedIt() throws {
        let harness = try Harness()
        let other = try harness.connect()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        try surface.send(7, [.int(9)])
        #expect(throws: TestClientError.self) { try harness.client.roundtrip() }
        let otherCompositor = try other.bind("wl_compositor", version: 5)
        _ = try otherCompositor.send(0, [.newID], interface: "wl_surface")
        try other.roundtrip()
        #expect(harness.surfaces.count == 1)
    }

    @Test func opaqueAndInputRegionsFollowAddAndSubtract() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        let region = try compositor.send(1, [.newID], interface: "wl_region")
        try region.send(1, [.int(0), .int(0), .int(100), .int(100)])
        try region.send(2, [.int(50), .int(50), .int(100), .int(100)])
        try surface.send(4, [.object(region)])
        try surface.send(5, [.object(region)])
        try surface.send(6)
        try harness.client.roundtrip()
        let state = try #require(harness.commits.last?.state)
        #expect(state.opaqueRegion.covers(IntRect(x: 0, y: 0, width: 100, height: 50)))
        #expect(!state.opaqueRegion.covers(IntRect(x: 0, y: 0, width: 100, height: 100)))
        #expect(state.inputRegion.contains(x: 49.5, y: 99))
        #expect(!state.inputRegion.contains(x: 75, y: 75))
    }
}

@Suite struct SubsurfaceTests {
    private func makeTree(_ harness: Harness) throws -> (parent: TestProxy, child: TestProxy, subsurface: TestProxy) {
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let subcompositor = try harness.client.bind("wl_subcompositor", version: 1)
        let parent = try compositor.send(0, [.newID], interface: "wl_surface")
        let child = try compositor.send(0, [.newID], interface: "wl_surface")
        let subsurface = try subcompositor.send(1, [.newID, .object(child), .object(parent)], interface: "wl_subsurface")
        return (parent, child, subsurface)
    }

    @Test func synchronizedSubsurfaceCommitWaitsForTheParentCommit() throws {
        let harness = try Harness()
        let (parent, child, subsurface) = try makeTree(harness)
        let buffer = try harness.shmBuffer(harness.client, width: 10, height: 10, pixel: 0)
        try child.send(1, [.object(buffer), .int(0), .int(0)])
        try child.send(6)
        try subsurface.send(1, [.int(5), .int(7)])
        try harness.client.roundtrip()
        let childSurface = try #require(harness.surfaces.first { $0.id == child.id })
        #expect(childSurface.current.buffer == nil)
        try parent.send(6)
        try harness.client.roundtrip()
        #expect(childSurface.current.buffer?.width == 10)
        #expect(childSurface.subsurface?.position.x == 5 && childSurface.subsurface?.position.y == 7)
        let parentSurface = try #require(harness.surfaces.first { $0.id == parent.id })
        #expect(parentSurface.stack.map(\.id) == [parent.id, child.id])
    }

    @Test func desynchronizedSubsurfaceAppliesItsOwnCommitsAndSetDesyncFlushesTheCache() throws {
        let harness = try Harness()
        let (_, child, subsurface) = try makeTree(harness)
        let buffer = try harness.shmBuffer(harness.client, width: 10, height: 10, pixel: 0)
        try child.send(1, [.object(buffer), .int(0), .int(0)])
        try child.send(6)
        try harness.client.roundtrip()
        let childSurface = try #require(harness.surfaces.first { $0.id == child.id })
        #expect(childSurface.current.buffer == nil)
        try subsurface.send(5)
        try harness.client.roundtrip()
        #expect(childSurface.current.buffer?.width == 10)
        try child.send(8, [.int(2)])
        try child.send(6)
        try harness.client.roundtrip()
        #expect(childSurface.current.size == SurfaceSize(width: 5, height: 5))
    }

    @Test func placeBelowTheParentReordersOnTheParentCommit() throws {
        let harness = try Harness()
        let (parent, child, subsurface) = try makeTree(harness)
        try subsurface.send(3, [.object(parent)])
        try parent.send(6)
        try harness.client.roundtrip()
        let parentSurface = try #require(harness.surfaces.first { $0.id == parent.id })
        #expect(parentSurface.stack.map(\.id) == [child.id, parent.id])
    }

    @Test func aSurfaceCannotBecomeASubsurfaceOfItsOwnDescendant() throws {
        let harness = try Harness()
        let (parent, child, _) = try makeTree(harness)
        let subcompositor = try harness.client.bind("wl_subcompositor", version: 1)
        let loop = try subcompositor.send(1, [.newID, .object(parent), .object(child)], interface: "wl_subsurface")
        _ = loop
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_subcompositor", objectID: subcompositor.id, code: 0))) {
            try harness.client.roundtrip()
        }
    }
}

/// Coordinates from clients are clamped to ±2²⁴ where they enter, and offsets that accumulate
/// saturate there instead of overflowing.
@Suite struct ClientCoordinateTests {
    @Test func accumulatedOffsetsSaturateAtTheCoordinateLimit() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind("wl_compositor", version: 5)
        let surface = try compositor.send(0, [.newID], interface: "wl_surface")
        try surface.send(10, [.int(Int32.max), .int(Int32.min)])
        try surface.send(10, [.int(Int32.max), .int(Int32.min)])
        try surface.send(2, [.int(Int32.min), .int(0), .int(Int32.max), .int(Int32.max)])
        try surface.send(6)
        try harness.client.roundtrip()
        let state = try #require(harness.commits.last?.state)
        #expect(state.offsetX == 1 << 24 && state.offsetY == -(1 << 24))
        #expect(state.surfaceDamage == [IntRect(x: -(1 << 24), y: 0, width: 1 << 24, height: 1 << 24)])
    }
}
