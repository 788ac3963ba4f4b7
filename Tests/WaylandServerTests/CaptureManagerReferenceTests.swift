import Testing
import WaylandServer

/// The image-copy capture manager, which the compositor tells of the cursor every loop turn, is
/// held without weak references: a weak reference gives an object a side table, which sends every
/// retain and release of it through the runtime's slow path.
@Suite struct CaptureManagerReferenceTests {
    @Test func theImageCopyCaptureManagerIsNotWeaklyReferenced() throws {
        let display = try Display()
        let imageCopy = ImageCopyCaptureManagerGlobal(display: display)
        // A count of 1 is the object's own: no weak reference.
        #expect(_getWeakRetainCount(imageCopy) == 1)
    }

    /// The compositor asks every loop turn whether any client watches the cursor: a stored field,
    /// false until a cursor session is made.
    @Test func aManagerWithoutCursorSessionsSaysSo() throws {
        let display = try Display()
        let imageCopy = ImageCopyCaptureManagerGlobal(display: display)
        #expect(!imageCopy.hasCursorSessions)
        imageCopy.cursorMayHaveChanged()
        #expect(!imageCopy.hasCursorSessions)
    }
}
