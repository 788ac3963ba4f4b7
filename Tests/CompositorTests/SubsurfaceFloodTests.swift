import Compositor
import Graphics
import Testing
import WaylandTestClient

/// A client with thousands of subsurfaces is served, and its leaving takes them all away, while
/// other clients go on. (10,000 of them once took minutes to set up and 10 s to remove: a hit test
/// of every surface after each commit, and a search of the siblings for each removal.)
@Suite(.serialized) struct SubsurfaceFloodTests {
    @Test func twoThousandSubsurfacesShowAndLeaveWithTheirClient() throws {
        let session = try HeadlessSession(width: 640, height: 480)
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        let subcompositor = try client.client.bind(WlSubcompositorProxy.self, version: 1)
        let blue = try client.makeBuffer(width: 640, height: 480) { memory in
            memory.initializeMemory(as: UInt32.self, repeating: 0xFF00_00FF, count: 640 * 480)
        }
        let red = try client.makeBuffer(width: 8, height: 8) { memory in
            memory.initializeMemory(as: UInt32.self, repeating: 0xFFFF_0000, count: 64)
        }
        try client.show(blue, on: surface)
        // 80 across, 25 down: the top 200 rows of the window.
        for index in 0..<2000 {
            let child = try client.compositor.createSurface()
            let subsurface = try subcompositor.getSubsurface(surface: child, parent: surface)
            try subsurface.setPosition(x: Int32(index % 80) * 8, y: Int32(index / 80) * 8)
            try subsurface.setSync()
            try client.show(red, on: child)
            if index % 500 == 499 { try client.client.roundtrip() }
        }
        try surface.commit()
        try client.client.roundtrip()
        let redPixel = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
        let bluePixel = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 636, y: 196) == redPixel })
        #expect(session.screen?.pixel(x: 3, y: 3) == redPixel)
        #expect(session.screen?.pixel(x: 320, y: 300) == bluePixel)
        let other = try SessionClient(session)
        try other.client.roundtrip()

        client.server.disconnect()
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 636, y: 196) == PremultipliedPixel(red: 0, green: 0, blue: 0, alpha: 255) })
        try other.client.roundtrip()
        #expect(session.compositor.display.connectedClients.map(\.processID) == [other.server.processID])
    }
}
