import Buffers
import Glibc
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct CoreProtocolTests {
    /// A request's object is not retained while the request is handled (libwayland's hold keeps
    /// it): one destroyed by its own request is released once the request returned.
    @Test func aSurfaceDestroyedByItsOwnRequestIsReleasedAfterIt() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let proxy = try compositor.createSurface()
        try harness.client.roundtrip()
        weak var surface = harness.surfaces.last
        #expect(surface?.isAlive == true)
        try proxy.destroy()
        try harness.client.roundtrip()
        #expect(surface == nil)
        #expect(harness.surfaces.isEmpty)
    }

    /// Clients and buffers name the display, which every attach retains: they hold it without weak
    /// references (each would give it a side table, which slows every retain and release of it),
    /// and a client kept past its disconnection names it no more.
    @Test func theDisplayIsNotWeaklyReferencedAndADisconnectedClientNamesItNoMore() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        try surface.attach(buffer: harness.shmBuffer(harness.client, width: 4, height: 4, pixel: 0), x: 0, y: 0)
        try surface.commit()
        try harness.client.roundtrip()
        let client = try #require(harness.surfaces.last?.client)
        #expect(client.display === harness.display)
        #expect(harness.surfaces.last?.current.buffer != nil)
        // A count of 1 is the object's own: no weak reference.
        #expect(_getWeakRetainCount(harness.display) == 1)
        client.disconnect()
        #expect(client.display == nil)
    }

    /// A display dropped with a client connected disconnects it; the client, kept, names it no more.
    @Test func aClientThatOutlivesItsDisplayNamesItNoMore() throws {
        var display: Display? = try Display()
        let (client, socket) = try display!.createClientSocket()
        defer { close(socket.rawValue) }
        #expect(client.display === display)
        weak var released = display
        display = nil
        #expect(released == nil)
        #expect(!client.isConnected)
        #expect(client.display == nil)
    }

    @Test func registryAdvertisesTheCoreGlobalsAtTheirVersions() throws {
        let harness = try Harness()
        let globals = Dictionary(harness.client.globals.values.map { ($0.interface, $0.version) }, uniquingKeysWith: max)
        #expect(globals["wl_compositor"] == 6)
        #expect(globals["wl_subcompositor"] == 1)
        #expect(globals["wl_shm"] == 2)
        #expect(globals["wl_output"] == 4)
    }

    @Test func wlShmVersion2IsReleasedWhileItsPoolsAndBuffersStay() throws {
        let harness = try Harness()
        let shm = try harness.client.bind(WlShmProxy.self, version: 2)
        let fd = anonymousFile(size: 4 * 4 * 4)
        defer { close(fd) }
        let pool = try shm.createPool(fd: FileDescriptor(rawValue: dup(fd)), size: 64)
        try shm.release()
        _ = try pool.createBuffer(offset: 0, width: 4, height: 4, stride: 16, format: .argb8888)
        try harness.client.roundtrip()
        #expect(harness.client.protocolError == nil)
    }

    @Test func outputSendsGeometryModeScaleNameDescriptionThenDone() throws {
        let harness = try Harness()
        let output = try harness.client.bind(WlOutputProxy.self, version: 4)
        try harness.client.roundtrip()
        #expect(output.events.map(\.name) == ["geometry", "mode", "scale", "name", "description", "done"])
        #expect(output.events[1] == .mode(flags: [.current, .preferred], width: 640, height: 480, refresh: 60000))
        #expect(output.events[2] == .scale(factor: 2))
        #expect(output.events[3] == .name(name: "HEADLESS-1"))
    }

    @Test func committedShmBufferBecomesCurrentStateWithItsDamage() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        let buffer = try harness.shmBuffer(harness.client, width: 64, height: 32, pixel: 0xff00_ff00)
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.damageBuffer(x: 1, y: 2, width: 3, height: 4)
        try harness.client.roundtrip()
        #expect(harness.commits.isEmpty)
        try surface.commit()
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

    @Test func eachCommitHasOnlyItsOwnDamageAndFrameCallbacks() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        try surface.attach(buffer: try harness.shmBuffer(harness.client, width: 64, height: 32, pixel: 0), x: 0, y: 0)
        // The lists of one commit are emptied and reused for a later one: what an earlier
        // commit's state kept must stay as it was.
        var counts: [Int] = []
        for (rects, frames) in [([IntRect(x: 1, y: 2, width: 3, height: 4)], 1), ([IntRect(x: 5, y: 6, width: 7, height: 8)], 2), ([], 0)] {
            for rect in rects { try surface.damageBuffer(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }
            for _ in 0..<frames { _ = try surface.frame() }
            try surface.commit()
            try harness.client.roundtrip()
            counts.append(try #require(harness.commits.last).surface.takeFrameCallbackIDs().count)
        }
        #expect(harness.commits.map(\.state.bufferDamage) == [
            [IntRect(x: 1, y: 2, width: 3, height: 4)], [IntRect(x: 5, y: 6, width: 7, height: 8)], [],
        ])
        #expect(counts == [1, 2, 0])
    }

    @Test func frameCallbacksOfCommitsNotYetTakenAreKeptInOrder() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        var callbacks: [WlCallbackProxy] = []
        // Three commits before the compositor takes any: the second and third join the first's.
        for frames in [1, 2, 1] {
            for _ in 0..<frames { callbacks.append(try surface.frame()) }
            try surface.commit()
        }
        try harness.client.roundtrip()
        let serverSurface = try #require(harness.commits.last).surface
        #expect(serverSurface.takeFrameCallbackIDs() == callbacks.map(\.id))
        // Taken: the next commit's list holds its own alone.
        let next = try surface.frame()
        try surface.commit()
        try harness.client.roundtrip()
        #expect(serverSurface.takeFrameCallbackIDs() == [next.id])
    }

    /// A frame callback is libwayland's resource on a list, without an object of Vitrine's: the
    /// callbacks of a client that left leave the list they were moved to, and the others are
    /// answered in order, once, and destroyed (the client hears done, then delete_id).
    @Test func callbacksOfAClientThatLeftLeaveTheListTheRestAreAnsweredOnce() throws {
        let harness = try Harness()
        var leaving: TestClient? = try harness.connect()
        let staying = try harness.client.bind(WlCompositorProxy.self, version: 5).createSurface()
        let gone = try leaving!.bind(WlCompositorProxy.self, version: 5).createSurface()
        let first = try staying.frame()
        _ = try gone.frame()
        let second = try staying.frame()
        try gone.commit()
        try leaving!.roundtrip()
        try staying.commit()
        try harness.client.roundtrip()
        let list = FrameCallbacks()
        for surface in harness.surfaces { surface.moveFrameCallbacks(to: list) }
        #expect(list.ids.count == 3)
        #expect(harness.surfaces.allSatisfy { !$0.hasPendingFrameCallbacks })

        leaving = nil
        try harness.client.roundtrip()
        #expect(list.ids == [first.id, second.id])
        list.done(1234)
        #expect(list.isEmpty)
        try harness.client.roundtrip()
        #expect(first.events == [.done(callbackData: 1234)])
        #expect(second.events == [.done(callbackData: 1234)])
        list.done(5678)
        try harness.client.roundtrip()
        #expect(first.events.count == 1)
    }

    @Test func aBufferMadeAfterTheLastOneWasDestroyedIsShownAsItself() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        // Each buffer is destroyed once committed: its successor may take its id and its address
        // in the server, where the surface must not take it for the destroyed one.
        for (width, height) in [(64, 32), (16, 8), (32, 64), (16, 8)] as [(Int32, Int32)] {
            let buffer = try harness.shmBuffer(harness.client, width: width, height: height, pixel: 0)
            try surface.attach(buffer: buffer, x: 0, y: 0)
            try surface.commit()
            try buffer.destroy()
            try harness.client.roundtrip()
            #expect(harness.commits.last?.state.size == SurfaceSize(width: width, height: height))
        }
        // The one still attached was destroyed: a commit without attach keeps showing it.
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.size == SurfaceSize(width: 16, height: 8))
    }

    @Test func bufferScaleDividesTheSurfaceSizeAndMustDivideTheBuffer() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        let buffer = try harness.shmBuffer(harness.client, width: 64, height: 32, pixel: 0)
        try surface.attach(buffer: buffer, x: 0, y: 0)
        try surface.setBufferScale(scale: 2)
        try surface.commit()
        try harness.client.roundtrip()
        #expect(harness.commits.last?.state.size == SurfaceSize(width: 32, height: 16))
        try surface.setBufferScale(scale: 3)
        try surface.commit()
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlSurfaceError.invalidSize, on: surface))) {
            try harness.client.roundtrip()
        }
    }

    @Test func nonPositiveBufferScaleIsAnInvalidScaleError() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        try surface.setBufferScale(scale: 0)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlSurfaceError.invalidScale, on: surface))) {
            try harness.client.roundtrip()
        }
    }

    @Test func aProtocolErrorDisconnectsOnlyTheClientThatCausedIt() throws {
        let harness = try Harness()
        let other = try harness.connect()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        try surface.setBufferTransform(transform: WlOutputTransform(rawValue: 9))
        #expect(throws: TestClientError.self) { try harness.client.roundtrip() }
        let otherCompositor = try other.bind(WlCompositorProxy.self, version: 5)
        _ = try otherCompositor.createSurface()
        try other.roundtrip()
        #expect(harness.surfaces.count == 1)
    }

    @Test func opaqueAndInputRegionsFollowAddAndSubtract() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        let region = try compositor.createRegion()
        try region.add(x: 0, y: 0, width: 100, height: 100)
        try region.subtract(x: 50, y: 50, width: 100, height: 100)
        try surface.setOpaqueRegion(region: region)
        try surface.setInputRegion(region: region)
        try surface.commit()
        try harness.client.roundtrip()
        let state = try #require(harness.commits.last?.state)
        #expect(state.opaqueRegion.covers(IntRect(x: 0, y: 0, width: 100, height: 50)))
        #expect(!state.opaqueRegion.covers(IntRect(x: 0, y: 0, width: 100, height: 100)))
        #expect(state.inputRegion.contains(x: 49.5, y: 99))
        #expect(!state.inputRegion.contains(x: 75, y: 75))
    }
}

@Suite struct SubsurfaceTests {
    private func makeTree(_ harness: Harness) throws -> (parent: WlSurfaceProxy, child: WlSurfaceProxy, subsurface: WlSubsurfaceProxy) {
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let subcompositor = try harness.client.bind(WlSubcompositorProxy.self, version: 1)
        let parent = try compositor.createSurface()
        let child = try compositor.createSurface()
        let subsurface = try subcompositor.getSubsurface(surface: child, parent: parent)
        return (parent, child, subsurface)
    }

    @Test func synchronizedSubsurfaceCommitWaitsForTheParentCommit() throws {
        let harness = try Harness()
        let (parent, child, subsurface) = try makeTree(harness)
        let buffer = try harness.shmBuffer(harness.client, width: 10, height: 10, pixel: 0)
        try child.attach(buffer: buffer, x: 0, y: 0)
        try child.commit()
        try subsurface.setPosition(x: 5, y: 7)
        try harness.client.roundtrip()
        let childSurface = try #require(harness.surfaces.first { $0.id == child.id })
        #expect(childSurface.current.buffer == nil)
        try parent.commit()
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
        try child.attach(buffer: buffer, x: 0, y: 0)
        try child.commit()
        try harness.client.roundtrip()
        let childSurface = try #require(harness.surfaces.first { $0.id == child.id })
        #expect(childSurface.current.buffer == nil)
        try subsurface.setDesync()
        try harness.client.roundtrip()
        #expect(childSurface.current.buffer?.width == 10)
        try child.setBufferScale(scale: 2)
        try child.commit()
        try harness.client.roundtrip()
        #expect(childSurface.current.size == SurfaceSize(width: 5, height: 5))
    }

    @Test func placeBelowTheParentReordersOnTheParentCommit() throws {
        let harness = try Harness()
        let (parent, child, subsurface) = try makeTree(harness)
        try subsurface.placeBelow(sibling: parent)
        try parent.commit()
        try harness.client.roundtrip()
        let parentSurface = try #require(harness.surfaces.first { $0.id == parent.id })
        #expect(parentSurface.stack.map(\.id) == [child.id, parent.id])
    }

    /// A subsurface's parent is reached at every commit and frame: the subsurface holds it
    /// strongly, not weakly (a weak reference would give it a side table, which slows every retain
    /// and release of it), and lets go of it when the parent is destroyed, before or after the
    /// subsurface, while the child lives on.
    @Test(arguments: [false, true]) func aSubsurfacesParentIsNotWeaklyReferencedAndIsReleasedWhenDestroyed(subsurfaceFirst: Bool) throws {
        let harness = try Harness()
        let (parent, child, subsurface) = try makeTree(harness)
        try harness.client.roundtrip()
        weak var released: Surface?
        do {
            let parentSurface = try #require(harness.surfaces.first { $0.id == parent.id })
            let childSurface = try #require(harness.surfaces.first { $0.id == child.id })
            #expect(childSurface.subsurface?.parent === parentSurface)
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(parentSurface) == 1)
            released = parentSurface
        }
        if subsurfaceFirst { try subsurface.destroy() }
        try parent.destroy()
        try harness.client.roundtrip()
        #expect(released == nil)
        #expect(harness.surfaces.map(\.id) == [child.id])
    }

    @Test func aSurfaceCannotBecomeASubsurfaceOfItsOwnDescendant() throws {
        let harness = try Harness()
        let (parent, child, _) = try makeTree(harness)
        let subcompositor = try harness.client.bind(WlSubcompositorProxy.self, version: 1)
        try subcompositor.getSubsurface(surface: parent, parent: child)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(WlSubcompositorError.badSurface, on: subcompositor))) {
            try harness.client.roundtrip()
        }
    }
}

/// Coordinates from clients are clamped to ±2²⁴ where they enter, and offsets that accumulate
/// saturate there instead of overflowing.
@Suite struct ClientCoordinateTests {
    @Test func accumulatedOffsetsSaturateAtTheCoordinateLimit() throws {
        let harness = try Harness()
        let compositor = try harness.client.bind(WlCompositorProxy.self, version: 5)
        let surface = try compositor.createSurface()
        try surface.offset(x: Int32.max, y: Int32.min)
        try surface.offset(x: Int32.max, y: Int32.min)
        try surface.damage(x: Int32.min, y: 0, width: Int32.max, height: Int32.max)
        try surface.commit()
        try harness.client.roundtrip()
        let state = try #require(harness.commits.last?.state)
        #expect(state.offsetX == 1 << 24 && state.offsetY == -(1 << 24))
        #expect(state.surfaceDamage == [IntRect(x: -(1 << 24), y: 0, width: 1 << 24, height: 1 << 24)])
    }
}

extension Surface {
    /// The ids of the frame callbacks the compositor would take now, taken.
    func takeFrameCallbackIDs() -> [UInt32] {
        let taken = FrameCallbacks()
        moveFrameCallbacks(to: taken)
        return taken.ids
    }
}
