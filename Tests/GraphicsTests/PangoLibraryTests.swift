import Testing
@testable import Graphics

/// Loading Pango on first use (`PangoLibrary`): what the loader reports when it cannot.
@Suite struct PangoLibraryTests {
    @Test func aMissingLibraryIsAnErrorInTheDynamicLoadersWords() {
        let result = PangoLibrary.load("libvitrine-no-such-pango.so.0")
        #expect(throws: GraphicsError.textUnavailable(
            reason: "libvitrine-no-such-pango.so.0: cannot open shared object file: No such file or directory"
        )) { try result.get() }
    }

    @Test func aLibraryWithoutPangosFunctionsIsAnErrorThatNamesTheFirstMissing() {
        // cairo is loaded in every process that draws, and has none of Pango's or GObject's functions.
        let result = PangoLibrary.load("libcairo.so.2")
        #expect(throws: GraphicsError.textUnavailable(reason: "libcairo.so.2 has no g_object_unref")) { try result.get() }
    }
}
