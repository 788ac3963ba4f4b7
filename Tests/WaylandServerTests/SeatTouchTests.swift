import Testing
import WaylandServer
import WaylandTestClient

@Suite struct SeatTouchTests {
    @Test func aTouchPointStaysWithTheSurfaceItWentDownOn() throws {
        let harness = try SeatHarness()
        let touch = try harness.touch(harness.client)
        let (proxy, surface) = try harness.makeSurface(harness.client)
        let down = harness.seat.touchDown(surface, id: 0, x: 5, y: 6, time: 10)
        harness.seat.touchFrame()
        harness.seat.touchMotion(id: 0, x: 500.5, y: -60, time: 11)
        harness.seat.touchFrame()
        let up = harness.seat.touchUp(id: 0, time: 12)
        harness.seat.touchFrame()
        try harness.client.roundtrip()

        #expect(touch.events == [
            .down(serial: down, time: 10, surface: proxy, id: 0, x: 5, y: 6), .frame,
            .motion(time: 11, id: 0, x: 500.5, y: -60), .frame,
            .up(serial: up, time: 12, id: 0), .frame,
        ])
    }

    /// A touched surface is retained every frame: its touch point holds it strongly, not weakly (a
    /// weak reference gives it a side table, which slows every retain and release of it), and
    /// lets go of it when the point goes up or its surface is gone, destroyed meanwhile or not.
    @Test(arguments: [false, true]) func aTouchedSurfaceIsNotWeaklyReferencedAndIsReleasedWhenItsPointEnds(surfaceGone: Bool) throws {
        let harness = try SeatHarness()
        let touch = try harness.touch(harness.client)
        weak var released: Surface?
        do {
            let (proxy, surface) = try harness.makeSurface(harness.client)
            harness.seat.touchDown(surface, id: 0, x: 1, y: 2, time: 1)
            // A count of 1 is the object's own: no weak reference.
            #expect(_getWeakRetainCount(surface) == 1)
            released = surface
            try proxy.destroy()
            try harness.client.roundtrip()
        }
        if surfaceGone { harness.seat.touchSurfaceGone(id: 0, time: 2) } else { harness.seat.touchUp(id: 0, time: 2) }
        #expect(released == nil)
        withExtendedLifetime(touch) {}
    }

    @Test func aPointWhoseSurfaceWentAwayEndsWithUpAndIsForgotten() throws {
        let harness = try SeatHarness()
        let touch = try harness.touch(harness.client)
        let (proxy, surface) = try harness.makeSurface(harness.client)
        harness.seat.touchDown(surface, id: 3, x: 1, y: 2, time: 1)
        harness.seat.touchFrame()
        try proxy.destroy()
        try harness.client.roundtrip()
        let up = harness.seat.touchSurfaceGone(id: 3, time: 2)
        harness.seat.touchFrame()
        // The point is gone: a later up for it sends nothing.
        harness.seat.touchUp(id: 3, time: 3)
        harness.seat.touchFrame()
        try harness.client.roundtrip()
        #expect(touch.events.map(\.name) == ["down", "frame", "up", "frame"])
        #expect(touch.events[2] == .up(serial: up, time: 2, id: 3))
    }

    @Test func framesGoToEveryClientThatGotPointsAndOnlyThose() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let idle = try harness.connect()
        let touchA = try harness.touch(harness.client)
        let touchB = try harness.touch(other)
        let touchIdle = try harness.touch(idle)
        let (_, surfaceA) = try harness.makeSurface(harness.client)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.touchDown(surfaceA, id: 1, x: 0, y: 0, time: 1)
        harness.seat.touchDown(surfaceB, id: 2, x: 0, y: 0, time: 1)
        harness.seat.touchFrame()
        harness.seat.touchMotion(id: 2, x: 1, y: 1, time: 2)
        harness.seat.touchFrame()
        try harness.client.roundtrip()
        try other.roundtrip()
        try idle.roundtrip()
        #expect(touchA.events.map(\.name) == ["down", "frame"])
        #expect(touchB.events.map(\.name) == ["down", "frame", "motion", "frame"])
        #expect(touchIdle.events.isEmpty)
    }

    @Test func cancelGoesToEveryClientWithPointsDownAndForgetsThem() throws {
        let harness = try SeatHarness()
        let other = try harness.connect()
        let touchA = try harness.touch(harness.client)
        let touchB = try harness.touch(other)
        let (_, surfaceA) = try harness.makeSurface(harness.client)
        let (_, surfaceB) = try harness.makeSurface(other)
        harness.seat.touchDown(surfaceA, id: 1, x: 0, y: 0, time: 1)
        harness.seat.touchDown(surfaceB, id: 2, x: 0, y: 0, time: 1)
        harness.seat.touchFrame()
        harness.seat.touchCancel()
        harness.seat.touchMotion(id: 1, x: 3, y: 3, time: 2)
        harness.seat.touchUp(id: 2, time: 3)
        harness.seat.touchFrame()
        try harness.client.roundtrip()
        try other.roundtrip()
        #expect(touchA.events.map(\.name) == ["down", "frame", "cancel"])
        #expect(touchB.events.map(\.name) == ["down", "frame", "cancel"])
    }
}
