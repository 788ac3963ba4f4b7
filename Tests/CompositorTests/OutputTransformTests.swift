import Compositor
import DisplayBackend
import Graphics
import Testing
import WaylandTestClient

/// A rotated or flipped output: windows are laid out on the turned logical output, and the
/// scanout shows them turned as wl_output.transform says (counter-clockwise, after a flip).
@Suite(.serialized) struct OutputTransformTests {
    private let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)
    private let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)

    /// A 64×64 red window with a blue 8×8 block in its top-left corner.
    private func markedWindow(_ session: HeadlessSession) throws -> SessionClient {
        let client = try SessionClient(session)
        let (surface, _) = try client.makeToplevel()
        let buffer = try client.makeBuffer(width: 64, height: 64) { memory in
            for row in 0..<64 {
                for column in 0..<64 {
                    let pixel: UInt32 = row < 8 && column < 8 ? 0xff00_00ff : 0xffff_0000
                    memory.storeBytes(of: pixel, toByteOffset: (row * 64 + column) * 4, as: UInt32.self)
                }
            }
        }
        try client.show(buffer, on: surface)
        try client.client.roundtrip()
        return client
    }

    @Test func aQuarterTurnLaysWindowsOutOnThePortraitOutputAndTurnsThemCounterClockwise() throws {
        let session = try HeadlessSession(width: 640, height: 480, transform: .rotated90)
        let client = try SessionClient(session)
        let surface = try client.compositor.createSurface()
        let xdgSurface = try client.shell.getXdgSurface(surface: surface)
        let toplevel = try xdgSurface.getToplevel()
        try surface.commit()
        try client.client.roundtrip()
        // Fullscreen on the logical output: 480 wide, 640 high.
        #expect(configuredSize(toplevel) == [480, 640])

        // The marked window is centred on the logical output at (208, 288); logical (x, y) is
        // scanout (y, 480 − x): its blue corner covers scanout 288…296 × 264…272.
        let window = try markedWindow(session)
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 290, y: 270) == blue })
        #expect(session.screen?.width == 640 && session.screen?.height == 480)
        #expect(session.screen?.pixel(x: 295, y: 264) == blue)
        #expect(session.screen?.pixel(x: 296, y: 270) == red)
        #expect(session.screen?.pixel(x: 290, y: 263) == red)
        #expect(session.screen?.pixel(x: 287, y: 270) == black)
        withExtendedLifetime(window) {}
    }

    @Test func aFlipMirrorsTheOutputAroundItsVerticalAxis() throws {
        let session = try HeadlessSession(width: 640, height: 480, transform: .flipped)
        let window = try markedWindow(session)
        // Centred at (288, 208); mirrored, the blue corner covers scanout 344…352 × 208…216.
        #expect(try session.run(seconds: 30) { session.screen?.pixel(x: 350, y: 210) == blue })
        #expect(session.screen?.pixel(x: 344, y: 215) == blue)
        #expect(session.screen?.pixel(x: 343, y: 210) == red)
        #expect(session.screen?.pixel(x: 352, y: 210) == black)
        withExtendedLifetime(window) {}
    }
}
