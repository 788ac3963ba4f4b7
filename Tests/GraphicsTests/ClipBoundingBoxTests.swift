import Testing

import Graphics

/// `clipBoundingBox`: the clip in user space, as CGContext's boundingBoxOfClipPath gives it.
@Suite struct ClipBoundingBoxTests {
    @Test func withoutAClipItIsTheWholeTargetInUserSpace() throws {
        let context = try GraphicsContext(width: 40, height: 20)
        #expect(context.clipBoundingBox == Rect(x: 0, y: 0, width: 40, height: 20))
        context.scaleBy(x: 0.5, y: 0.5)
        #expect(context.clipBoundingBox == Rect(x: 0, y: 0, width: 80, height: 40))
    }

    @Test func itFollowsTheCTMAFractionalClipIsRoundedOutToPixels() throws {
        let context = try GraphicsContext(width: 64, height: 64)
        context.scaleBy(x: 0.25, y: 0.25)
        context.translateBy(x: -1024, y: -256)
        context.clip(to: Rect(x: 1024, y: 256, width: 256, height: 256))
        #expect(context.clipBoundingBox == Rect(x: 1024, y: 256, width: 256, height: 256))
        // Cairo keeps the extents of a clip on whole pixels, here four user units each.
        context.clip(to: Rect(x: 1030, y: 256, width: 100, height: 100))
        #expect(context.clipBoundingBox == Rect(x: 1028, y: 256, width: 104, height: 100))
    }
}
