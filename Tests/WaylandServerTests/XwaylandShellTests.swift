import Testing
import WaylandServer
import WaylandTestClient

/// xwayland_shell_v1: a serial set on a surface's xwayland_surface_v1 associates the surface once
/// committed, and misuse is a protocol error.
@Suite struct XwaylandShellTests {
    private final class ShellHarness {
        let extensions: ExtensionHarness
        let shell: XwaylandShellGlobal
        let proxy: XwaylandShellV1Proxy
        var associated: [Surface] = []

        init() throws {
            extensions = try ExtensionHarness()
            shell = XwaylandShellGlobal(display: extensions.core.display)
            try extensions.client.roundtrip()
            proxy = try extensions.client.bind(XwaylandShellV1Proxy.self, version: 1)
            shell.surfaceAssociated = { [unowned self] surface in associated.append(surface) }
        }
    }

    @Test func aCommittedSerialAssociatesTheSurfaceAndOutlivesTheRoleObject() throws {
        let harness = try ShellHarness()
        let (proxy, surface) = try harness.extensions.makeSurface()
        let role = try harness.proxy.getXwaylandSurface(surface: proxy)
        // The serial's low bits come first.
        try role.setSerial(serialLo: 7, serialHi: 1)
        try harness.extensions.client.roundtrip()
        #expect(surface.xwaylandSerial == nil)
        #expect(harness.shell.surface(withSerial: 0x1_0000_0007, of: surface.client) == nil)
        try proxy.commit()
        try harness.extensions.client.roundtrip()
        #expect(surface.xwaylandSerial == 0x1_0000_0007)
        #expect(harness.associated.map(ObjectIdentifier.init) == [ObjectIdentifier(surface)])
        #expect(harness.shell.surface(withSerial: 0x1_0000_0007, of: surface.client) === surface)
        #expect(harness.shell.surface(withSerial: 7, of: surface.client) == nil)
        #expect(harness.shell.isBound(by: surface.client))

        try role.destroy()
        try proxy.commit()
        try harness.extensions.client.roundtrip()
        #expect(harness.shell.surface(withSerial: 0x1_0000_0007, of: surface.client) === surface)
        #expect(harness.associated.count == 1)
        try proxy.destroy()
        try harness.extensions.client.roundtrip()
        #expect(harness.shell.surface(withSerial: 0x1_0000_0007, of: surface.client) == nil)
    }

    @Test func anotherClientsLookupDoesNotFindTheSurface() throws {
        let harness = try ShellHarness()
        let (proxy, surface) = try harness.extensions.makeSurface()
        let role = try harness.proxy.getXwaylandSurface(surface: proxy)
        try role.setSerial(serialLo: 3, serialHi: 0)
        try proxy.commit()
        try harness.extensions.client.roundtrip()
        let other = try harness.extensions.core.connect()
        _ = try other.bind(WlCompositorProxy.self, version: 5).createSurface()
        try other.roundtrip()
        let otherClient = try #require(harness.extensions.core.surfaces.last?.client)
        #expect(otherClient !== surface.client)
        #expect(harness.shell.surface(withSerial: 3, of: surface.client) === surface)
        #expect(harness.shell.surface(withSerial: 3, of: otherClient) == nil)
        #expect(!harness.shell.isBound(by: otherClient))
    }

    @Test func aSurfaceWithAnotherRoleCannotBecomeAnXwaylandSurface() throws {
        let harness = try ShellHarness()
        let (child, _) = try harness.extensions.makeSurface()
        let (parent, _) = try harness.extensions.makeSurface()
        try harness.extensions.makeSubsurface(child, of: parent)
        _ = try harness.proxy.getXwaylandSurface(surface: child)
        harness.extensions.expectProtocolError(XwaylandShellV1Error.role, on: harness.proxy)
    }

    @Test func aSurfaceHasOneXwaylandSurfaceObjectAtATime() throws {
        let harness = try ShellHarness()
        let (proxy, _) = try harness.extensions.makeSurface()
        _ = try harness.proxy.getXwaylandSurface(surface: proxy)
        _ = try harness.proxy.getXwaylandSurface(surface: proxy)
        harness.extensions.expectProtocolError(XwaylandShellV1Error.role, on: harness.proxy)
    }

    @Test func aSecondSerialCommittedOnASurfaceIsAlreadyAssociated() throws {
        let harness = try ShellHarness()
        let (proxy, _) = try harness.extensions.makeSurface()
        let role = try harness.proxy.getXwaylandSurface(surface: proxy)
        try role.setSerial(serialLo: 1, serialHi: 0)
        try proxy.commit()
        try harness.extensions.client.roundtrip()
        try role.setSerial(serialLo: 2, serialHi: 0)
        try proxy.commit()
        harness.extensions.expectProtocolError(XwaylandSurfaceV1Error.alreadyAssociated, on: role)
    }

    @Test func aNewRoleObjectCannotAssociateAnAssociatedSurfaceAgain() throws {
        let harness = try ShellHarness()
        let (proxy, _) = try harness.extensions.makeSurface()
        let first = try harness.proxy.getXwaylandSurface(surface: proxy)
        try first.setSerial(serialLo: 1, serialHi: 0)
        try proxy.commit()
        try first.destroy()
        let second = try harness.proxy.getXwaylandSurface(surface: proxy)
        try second.setSerial(serialLo: 2, serialHi: 0)
        try proxy.commit()
        harness.extensions.expectProtocolError(XwaylandSurfaceV1Error.alreadyAssociated, on: second)
    }

    @Test func serialZeroIsInvalid() throws {
        let harness = try ShellHarness()
        let (proxy, _) = try harness.extensions.makeSurface()
        let role = try harness.proxy.getXwaylandSurface(surface: proxy)
        try role.setSerial(serialLo: 0, serialHi: 0)
        harness.extensions.expectProtocolError(XwaylandSurfaceV1Error.invalidSerial, on: role)
    }

    /// The protocol has no error for it, and Xwayland may destroy a window's surface before its
    /// role object: the object is inert.
    @Test func anXwaylandSurfaceWhoseSurfaceWasDestroyedIsInert() throws {
        let harness = try ShellHarness()
        let (proxy, _) = try harness.extensions.makeSurface()
        let role = try harness.proxy.getXwaylandSurface(surface: proxy)
        try proxy.destroy()
        try role.setSerial(serialLo: 5, serialHi: 0)
        try harness.extensions.client.roundtrip()
        try role.destroy()
        try harness.extensions.client.roundtrip()
        #expect(harness.associated.isEmpty)
        #expect(harness.extensions.client.protocolError == nil)
    }
}
