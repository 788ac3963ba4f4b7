import Compositor
import DisplayBackend
import Testing
import WaylandProtocols
import WaylandTestClient

/// wl_surface.preferred_buffer_scale and preferred_buffer_transform (wl_compositor 6): a surface
/// shown on an output is told the integer scale and the transform that output scans out with.
@Suite struct PreferredBufferTests {
    /// The surface events of a 64×64 window shown by a client that bound wl_compositor at `version`
    /// and the output, on a 640×480 panel of `scale` turned by `transform`.
    private func surfaceEvents(compositorVersion version: UInt32, scale: Double, transform: OutputTransform) throws -> [WlSurfaceProxy.Event] {
        let session = try HeadlessSession(scale: scale, transform: transform)
        let client = try SessionClient(session, compositorVersion: version)
        _ = try client.client.bind(WlOutputProxy.self, version: 4)
        let (surface, _) = try client.makeToplevel()
        try client.show(client.makeBuffer(width: 64, height: 64, fill: fillPixels(0xffff_ffff, count: 64 * 64)), on: surface)
        try client.client.roundtrip()
        #expect(try session.run(seconds: 30) { session.compositor.capture(outputAt: 0)?.pixel(x: 320, y: 240) == white })
        try client.client.roundtrip()
        return surface.events
    }

    @Test func aSurfaceOnAQuarterTurnedOutputOfScaleOneAndAHalfIsAskedForScaleTwoTurnedAQuarter() throws {
        let events = try surfaceEvents(compositorVersion: 6, scale: 1.5, transform: .rotated90)
        #expect(events.map(\.name) == ["enter", "preferred_buffer_scale", "preferred_buffer_transform"])
        #expect(Array(events.dropFirst()) == [.preferredBufferScale(factor: 2), .preferredBufferTransform(transform: .transform90)])
    }

    @Test func aSurfaceOnAnUnturnedOutputOfScaleOneHearsOnlyWhatDiffersFromTheDefaults() throws {
        #expect(try surfaceEvents(compositorVersion: 6, scale: 1, transform: .normal).map(\.name) == ["enter"])
        let flipped = try surfaceEvents(compositorVersion: 6, scale: 2, transform: .flipped)
        #expect(Array(flipped.dropFirst()) == [.preferredBufferScale(factor: 2), .preferredBufferTransform(transform: .flipped)])
    }

    @Test func aSurfaceOfVersion5HearsNoPreference() throws {
        #expect(try surfaceEvents(compositorVersion: 5, scale: 2, transform: .rotated270).map(\.name) == ["enter"])
    }
}
