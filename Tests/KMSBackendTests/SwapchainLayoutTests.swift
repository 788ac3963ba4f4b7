import Buffers
import Testing

@testable import KMSBackend

/// Which layout an output's GBM buffers take, from what the display device and the renderer both
/// take, and what the log says when GBM refuses one: pure steps, each case exact. (Only the linear
/// cases can run on a device here: the rig's virtio-gpu and vkms list no tiled modifier, and
/// lavapipe renders into none; the rig checks those.)
@Suite struct SwapchainLayoutTests {
    static let linear = FormatModifier.linear
    /// drm_fourcc.h's I915_FORMAT_MOD_X_TILED, I915_FORMAT_MOD_Y_TILED and
    /// I915_FORMAT_MOD_Y_TILED_CCS (two planes: no renderer lists it as single-plane).
    static let xTiled: UInt64 = 0x0100_0000_0000_0001
    static let yTiled: UInt64 = 0x0100_0000_0000_0002
    static let yTiledCCS: UInt64 = 0x0100_0000_0000_0004

    @Test func aDeviceWithoutModifiersTakesImpliedLinearBuffersWhateverTheRendererRendersInto() {
        let (layouts, why) = SwapchainLayout.candidates(takesModifiers: false, planeModifiers: [], renderModifiers: [Self.yTiled])
        #expect(layouts == [.linear(explicitModifier: false)])
        #expect(why == "the device takes no format modifiers")
    }

    @Test func aPlaneListingOnlyLinearTakesExplicitLinearBuffers() {
        for renderer in [[], [Self.linear]] {
            let (layouts, why) = SwapchainLayout.candidates(takesModifiers: true, planeModifiers: [Self.linear], renderModifiers: renderer)
            #expect(layouts == [.linear(explicitModifier: true)])
            #expect(why == "the renderer renders into no tiled layout")
        }
        let (layouts, why) = SwapchainLayout.candidates(takesModifiers: true, planeModifiers: [Self.linear], renderModifiers: [Self.yTiled])
        #expect(layouts == [.linear(explicitModifier: true)])
        #expect(why == "the renderer renders into none of the plane's modifiers (NONE LINEAR (0x0))")
    }

    @Test func aPlaneWithoutInFormatsTakesImpliedLinearBuffers() {
        let (layouts, why) = SwapchainLayout.candidates(takesModifiers: true, planeModifiers: [], renderModifiers: [Self.yTiled])
        #expect(layouts == [.linear(explicitModifier: false)])
        #expect(why == "the plane lists no modifiers for XRGB8888")
    }

    @Test func theTiledModifiersBothListAreOfferedToGBMInThePlanesOrderThenLinear() {
        let (layouts, why) = SwapchainLayout.candidates(
            takesModifiers: true, planeModifiers: [Self.linear, Self.xTiled, Self.yTiled, Self.yTiledCCS, FormatModifier.invalid],
            renderModifiers: [Self.linear, Self.yTiled, Self.xTiled])
        #expect(layouts == [.tiled([Self.xTiled, Self.yTiled]), .linear(explicitModifier: true)])
        #expect(why == nil)
        // A plane that lists no linear layout falls back to an implied one.
        let (withoutLinear, _) = SwapchainLayout.candidates(
            takesModifiers: true, planeModifiers: [Self.yTiled], renderModifiers: [Self.yTiled])
        #expect(withoutLinear == [.tiled([Self.yTiled]), .linear(explicitModifier: false)])
    }

    @Test func aRendererThatCouldNotDrawIntoTiledBuffersGetsLinearOnesWithItsReason() {
        let (layouts, why) = SwapchainLayout.candidates(
            takesModifiers: true, planeModifiers: [Self.linear, Self.yTiled], renderModifiers: [Self.yTiled],
            tiledRefused: "the renderer cannot draw into its GBM buffer objects: no memory")
        #expect(layouts == [.linear(explicitModifier: true)])
        #expect(why == "the renderer cannot draw into its GBM buffer objects: no memory")
        // Where no tiled layout was on offer anyway, the reason stays the choice's own.
        let (linearOnly, ownReason) = SwapchainLayout.candidates(
            takesModifiers: false, planeModifiers: [], renderModifiers: [Self.yTiled], tiledRefused: "refused")
        #expect(linearOnly == [.linear(explicitModifier: false)])
        #expect(ownReason == "the device takes no format modifiers")
    }

    @Test func noSharedTiledModifierNamesThePlanesModifiers() {
        let (layouts, why) = SwapchainLayout.candidates(
            takesModifiers: true, planeModifiers: [Self.linear, Self.yTiledCCS], renderModifiers: [Self.linear, Self.yTiled])
        #expect(layouts == [.linear(explicitModifier: true)])
        #expect(why == "the renderer renders into none of the plane's modifiers (NONE LINEAR (0x0), INTEL Y_TILED_CCS (0x100000000000004))")
    }

    @Test func aTiledBufferIsNamedByTheModifierGBMChose() throws {
        let made = try SwapchainLayout.allocate([.tiled([Self.xTiled, Self.yTiled]), .linear(explicitModifier: true)], whyLinear: nil) {
            layout throws(KMSError) in ("buffers of \(layout)", Self.yTiled)
        }.get()
        #expect(made.buffers == "buffers of a GBM buffer with modifiers INTEL X_TILED (0x100000000000001), INTEL Y_TILED (0x100000000000002)")
        #expect(made.path == "GBM buffer objects, modifier INTEL Y_TILED (0x100000000000002)")
    }

    @Test func aTiledLayoutGBMRefusesFallsBackToLinearWithTheReason() throws {
        var tried: [SwapchainLayout] = []
        let made = try SwapchainLayout.allocate([.tiled([Self.yTiled]), .linear(explicitModifier: true)], whyLinear: nil) {
            layout throws(KMSError) in
            tried.append(layout)
            if case .tiled = layout { throw KMSError.unusableLayout("GBM chose INTEL Y_TILED_CCS (0x100000000000004) with 2 plane(s)") }
            return ("linear", Self.linear)
        }.get()
        #expect(tried == [.tiled([Self.yTiled]), .linear(explicitModifier: true)])
        #expect(made.buffers == "linear")
        #expect(made.path == "GBM buffer objects, linear (explicit modifier; a GBM buffer with modifiers INTEL Y_TILED (0x100000000000002) refused: GBM chose INTEL Y_TILED_CCS (0x100000000000004) with 2 plane(s))")
    }

    @Test func linearBuffersSayWhyTheyAreLinear() throws {
        let virtio = try SwapchainLayout.allocate([.linear(explicitModifier: false)], whyLinear: "the device takes no format modifiers") {
            _ throws(KMSError) in ((), Self.linear)
        }.get()
        #expect(virtio.path == "GBM buffer objects, linear (the device takes no format modifiers)")
        let vkms = try SwapchainLayout.allocate([.linear(explicitModifier: true)], whyLinear: "the renderer renders into no tiled layout") {
            _ throws(KMSError) in ((), Self.linear)
        }.get()
        #expect(vkms.path == "GBM buffer objects, linear (explicit modifier; the renderer renders into no tiled layout)")
    }

    @Test func everyLayoutRefusedGivesEveryReason() {
        let made = SwapchainLayout.allocate([.tiled([Self.yTiled]), .linear(explicitModifier: false)], whyLinear: nil) {
            layout throws(KMSError) -> ((), modifier: UInt64) in throw KMSError.unusableLayout("no memory for \(layout)")
        }
        #expect(throws: SwapchainLayout.Refusals(reasons: [
            "a GBM buffer with modifiers INTEL Y_TILED (0x100000000000002) refused: no memory for a GBM buffer with modifiers INTEL Y_TILED (0x100000000000002)",
            "a linear GBM buffer refused: no memory for a linear GBM buffer",
        ])) { try made.get() }
    }
}
