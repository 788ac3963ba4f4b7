import Compositor
import DisplayBackend
import Graphics
import Testing

/// A client's buffer scale, buffer transform and wp_viewport become the content layer's
/// contentsScale, transform, contentsRect and bounds (docs/protocols.md, "Surfaces are layers").
/// Each test runs a weston client no one here wrote and checks probe pixels derived
/// from its drawing code and the kiosk policy (windows centred on the 640×480 output, rounded
/// down; fullscreen when the client follows the configure).
@Suite(.serialized) struct ClientBufferGeometryTests {
    private let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
    private let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
    private let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)

    /// The screen once `pixel` at (x, y) shows, after the client is launched.
    private func screen(
        _ arguments: [String], scale: Double = 1, transform: OutputTransform = .normal, showing pixel: PremultipliedPixel,
        at x: Int, _ y: Int
    ) throws -> (HeadlessSession, Image) {
        let session = try HeadlessSession(width: 640, height: 480, scale: scale, transform: transform)
        try session.launch(arguments)
        let shown = try session.run(seconds: 30) { session.screen?.pixel(x: x, y: y) == pixel }
        #expect(shown, "\(arguments) printed: \(session.clientOutput)")
        return (session, try #require(session.screen))
    }

    /// weston-scaler -n: a 842×674 buffer at buffer scale 2 (red, with a blue box at buffer
    /// (42, 50, 110, 154)) is a 421×337 window, at (109, 71); the box is at (21, 25, 55, 77) in it.
    @Test func bufferScaleTwoHalvesTheWindow() throws {
        let (session, screen) = try self.screen(["weston-scaler", "-n"], showing: blue, at: 109 + 48, 71 + 63)
        #expect(screen.pixel(x: 108, y: 200) == black && screen.pixel(x: 109, y: 200) == red)
        #expect(screen.pixel(x: 529, y: 200) == red && screen.pixel(x: 530, y: 200) == black)
        #expect(screen.pixel(x: 300, y: 70) == black && screen.pixel(x: 300, y: 71) == red)
        #expect(screen.pixel(x: 300, y: 407) == red && screen.pixel(x: 300, y: 408) == black)
        #expect(screen.pixel(x: 109 + 23, y: 71 + 27) == blue)   // just inside the box's top-left
        #expect(screen.pixel(x: 109 + 74, y: 71 + 100) == blue)  // and its bottom-right
        #expect(screen.pixel(x: 109 + 78, y: 71 + 60) == red)    // right of it
        #expect(screen.pixel(x: 109 + 48, y: 71 + 104) == red)   // below it
        withExtendedLifetime(session) {}
    }

    /// weston-scaler -s: the viewport source (21.25, 25.25, 55, 77) alone crops the box out and
    /// makes a 55×77 window at (292, 201). Its last column's centre samples buffer x 151.5, the
    /// centre of the box's white right border.
    @Test func aViewportSourceCropsToItsSize() throws {
        let (session, screen) = try self.screen(["weston-scaler", "-s"], showing: blue, at: 319, 239)
        #expect(screen.pixel(x: 291, y: 239) == black && screen.pixel(x: 292, y: 239) == blue)
        #expect(screen.pixel(x: 346, y: 239) == white && screen.pixel(x: 347, y: 239) == black)
        #expect(screen.pixel(x: 319, y: 200) == black && screen.pixel(x: 319, y: 202) == blue)
        #expect(screen.pixel(x: 319, y: 276) == blue && screen.pixel(x: 319, y: 278) == black)
        withExtendedLifetime(session) {}
    }

    /// weston-scaler -d: the viewport destination 220×308 alone squashes the whole 421×337 surface
    /// into a window at (210, 86): the box (21…76 × 25…102) lands at 10.97…39.71 × 22.85…93.22.
    @Test func aViewportDestinationScalesTheWholeBuffer() throws {
        let (session, screen) = try self.screen(["weston-scaler", "-d"], showing: blue, at: 210 + 25, 86 + 58)
        #expect(screen.pixel(x: 209, y: 200) == black && screen.pixel(x: 210, y: 200) == red)
        #expect(screen.pixel(x: 429, y: 200) == red && screen.pixel(x: 430, y: 200) == black)
        #expect(screen.pixel(x: 300, y: 85) == black && screen.pixel(x: 300, y: 86) == red)
        #expect(screen.pixel(x: 300, y: 393) == red && screen.pixel(x: 300, y: 394) == black)
        #expect(screen.pixel(x: 210 + 12, y: 86 + 24) == blue && screen.pixel(x: 210 + 38, y: 86 + 92) == blue)
        #expect(screen.pixel(x: 210 + 9, y: 86 + 58) == red && screen.pixel(x: 210 + 41, y: 86 + 58) == red)
        #expect(screen.pixel(x: 210 + 25, y: 86 + 21) == red && screen.pixel(x: 210 + 25, y: 86 + 95) == red)
        withExtendedLifetime(session) {}
    }

    /// weston-scaler -b: source (21.25, 25.25, 54.75, 76.75) stretched to 220×308 at (210, 86).
    /// The edge pixels' centres sample between two buffer texels, bilinearly: the first column at
    /// buffer x 42.749 (green 42 and blue 43: 0.249 blue), the last at 151.75 (white 151 and red
    /// 152: 0.25 red), the first row at buffer y 50.749 (green and blue) and the last at 203.75
    /// (blue 203 and the black border 204: 0.25 black).
    @Test func aViewportSourceAndDestinationStretchTheCrop() throws {
        let (session, screen) = try self.screen(["weston-scaler", "-b"], showing: blue, at: 320, 240)
        func near(_ x: Int, _ y: Int, _ expected: (Int, Int, Int)) -> Bool {
            screen.pixel(x: x, y: y).isNear(PremultipliedPixel(
                red: UInt8(expected.0), green: UInt8(expected.1), blue: UInt8(expected.2), alpha: 255))
        }
        #expect(near(210, 240, (0, 191, 64)) && screen.pixel(x: 209, y: 240) == black)
        #expect(near(429, 240, (255, 191, 191)) && screen.pixel(x: 430, y: 240) == black)
        #expect(near(320, 86, (0, 191, 64)) && screen.pixel(x: 320, y: 85) == black)
        #expect(near(320, 393, (0, 0, 191)) && screen.pixel(x: 320, y: 394) == black)
        #expect(screen.pixel(x: 212, y: 88) == blue && screen.pixel(x: 425, y: 389) == blue)
        withExtendedLifetime(session) {}
    }

    /// weston-transformed draws, from the centre of its fullscreen surface, a red line up, a green
    /// one right and white ones down and left, 2 units wide; it sets its buffer scale and
    /// transform to its output's. At scale 2 the 320×240-point surface's lines are 4 pixels wide
    /// about the centre (320, 240).
    @Test func bufferScaleFollowsTheOutputScale() throws {
        let (session, screen) = try self.screen(["weston-transformed"], scale: 2, showing: red, at: 318, 100)
        #expect(screen.pixel(x: 317, y: 100) == black && screen.pixel(x: 321, y: 100) == red)
        #expect(screen.pixel(x: 322, y: 100) == black)
        #expect(screen.pixel(x: 500, y: 238) == green && screen.pixel(x: 500, y: 241) == green)
        #expect(screen.pixel(x: 500, y: 237) == black && screen.pixel(x: 500, y: 242) == black)
        #expect(screen.pixel(x: 100, y: 239) == white && screen.pixel(x: 319, y: 400) == white)
        withExtendedLifetime(session) {}
    }

    /// On a quarter-turned output the client draws its buffer turned like the scanout (buffer
    /// transform 90) on a 480×640 surface; the compositor undoes it and turns the output, so the
    /// scanout shows the buffer as it is: logical (x, y) is scanout (y, 480 − x), which puts the
    /// red line (logical up) left of the centre, the green one (right) above it and the white
    /// ones right of and below it.
    @Test func aQuarterTurnBufferTransformIsUndone() throws {
        let (session, screen) = try self.screen(
            ["weston-transformed"], transform: .rotated90, showing: red, at: 100, 239)
        #expect(screen.pixel(x: 100, y: 240) == red && screen.pixel(x: 100, y: 238) == black)
        #expect(screen.pixel(x: 100, y: 241) == black)
        #expect(screen.pixel(x: 319, y: 100) == green && screen.pixel(x: 320, y: 100) == green)
        #expect(screen.pixel(x: 318, y: 100) == black && screen.pixel(x: 321, y: 100) == black)
        #expect(screen.pixel(x: 500, y: 239) == white && screen.pixel(x: 319, y: 400) == white)
        withExtendedLifetime(session) {}
    }

    /// On a flipped output (logical (x, y) is scanout (640 − x, y)) the client mirrors its buffer
    /// (buffer transform flipped): the red line stays up, the green one shows left of the centre.
    @Test func aFlippedBufferTransformIsUndone() throws {
        let (session, screen) = try self.screen(["weston-transformed"], transform: .flipped, showing: green, at: 100, 239)
        #expect(screen.pixel(x: 100, y: 240) == green && screen.pixel(x: 500, y: 239) == white)
        #expect(screen.pixel(x: 319, y: 100) == red && screen.pixel(x: 320, y: 100) == red)
        #expect(screen.pixel(x: 318, y: 100) == black && screen.pixel(x: 321, y: 100) == black)
        #expect(screen.pixel(x: 319, y: 400) == white)
        withExtendedLifetime(session) {}
    }
}
