@testable import Compositor
import Graphics
import Testing
import WaylandServer

/// How screen capture tells what changed between two pictures of an output.
@Suite struct ScreenCaptureDamageTests {
    /// A 64×48 XRGB picture, black except `pixels` (x, y, RGB as 0x00RRGGBB; the top byte is ignored).
    private func picture(_ pixels: [(Int, Int, UInt32)] = []) throws -> Image {
        var words = [UInt32](repeating: 0xff00_0000, count: 64 * 48)
        for (x, y, value) in pixels { words[y * 64 + x] = value }
        return try words.withUnsafeBytes { bytes in
            try Image(width: 64, height: 48, pixelFormat: .xrgb8888, bytesPerRow: 256, bytes: bytes)
        }
    }

    private let whole = IntRect(x: 0, y: 0, width: 64, height: 48)

    @Test func oneChangedPixelDamagesItsBandFromItsColumn() throws {
        let damage = ScreenCapture.changedRects(from: try picture(), to: try picture([(10, 20, 0xff12_3456)]), in: whole)
        #expect(damage == [IntRect(x: 10, y: 16, width: 1, height: 16)])
    }

    @Test func changesInTwoBandsAreTwoRectanglesSpanningTheirColumns() throws {
        let damage = ScreenCapture.changedRects(
            from: try picture(), to: try picture([(3, 1, 0xffff_ffff), (40, 2, 0xffff_ffff), (5, 47, 0xff00_0001)]), in: whole)
        #expect(damage == [IntRect(x: 3, y: 0, width: 38, height: 16), IntRect(x: 5, y: 32, width: 1, height: 16)])
    }

    @Test func aChangeOfThePaddingByteAloneIsNoDamage() throws {
        let damage = ScreenCapture.changedRects(from: try picture(), to: try picture([(63, 47, 0x0000_0000)]), in: whole)
        #expect(damage == [])
    }

    @Test func damageIsRelativeToTheCapturedRegion() throws {
        let region = IntRect(x: 8, y: 8, width: 32, height: 32)
        let damage = ScreenCapture.changedRects(from: try picture(), to: try picture([(12, 30, 0xff00_ff00), (60, 30, 0xff00_ff00)]), in: region)
        #expect(damage == [IntRect(x: 4, y: 16, width: 1, height: 16)])
    }
}
