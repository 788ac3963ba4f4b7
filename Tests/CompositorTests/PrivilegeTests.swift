import Compositor
import Glibc
import Testing
import WaylandServer
import WaylandTestClient

@Suite struct PrivilegeTests {
    @Test func aClientHasNoPrivilegesWithoutRules() throws {
        let session = try HeadlessSession()
        let client = try SessionClient(session)
        #expect(session.compositor.privileges(of: client.server) == [])
    }

    @Test func aRuleNamingTheClientsExecutableGrantsItsPrivileges() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [
            PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture, .virtualInput]),
            PrivilegeRule(.executable("/usr/bin/true"), privileges: [.layerShell]),
        ]
        let client = try SessionClient(session)
        #expect(session.compositor.privileges(of: client.server) == [.screenCapture, .virtualInput])
    }

    @Test func aRuleNamingTheClientsUserGrantsItsPrivileges() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [
            PrivilegeRule(.user(getuid()), privileges: [.inputMethod]),
            PrivilegeRule(.user(getuid() &+ 1), privileges: [.layerShell]),
        ]
        let client = try SessionClient(session)
        #expect(session.compositor.privileges(of: client.server) == [.inputMethod])
    }

    /// The privileged globals among those the compositor advertises.
    private static let privilegedInterfaces = Set(Compositor.advertisedProtocols.map(\.name).filter { Privilege.required(forInterface: $0) != nil })

    private func privilegedGlobals(seenBy client: TestClient) -> Set<String> {
        Set(client.globals.values.map(\.interface)).intersection(Self.privilegedInterfaces)
    }

    @Test func onlyAListedClientSeesThePrivilegedGlobals() throws {
        #expect(Self.privilegedInterfaces == [
            "zwlr_layer_shell_v1", "zwp_virtual_keyboard_manager_v1", "zwlr_screencopy_manager_v1", "zwlr_virtual_pointer_manager_v1",
            "zwp_input_method_manager_v2", "ext_image_copy_capture_manager_v1", "ext_output_image_capture_source_manager_v1",
        ])
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.user(getuid() &+ 1), privileges: Set(Privilege.allCases))]
        let unlisted = try SessionClient(session)
        #expect(privilegedGlobals(seenBy: unlisted.client).isEmpty)
        session.compositor.privilegeRules = [
            PrivilegeRule(.user(getuid()), privileges: [.layerShell, .inputMethod]),
            PrivilegeRule(.executable(testExecutable()), privileges: [.screenCapture]),
        ]
        let listed = try SessionClient(session)
        #expect(privilegedGlobals(seenBy: listed.client) == [
            "zwlr_layer_shell_v1", "zwlr_screencopy_manager_v1", "zwp_input_method_manager_v2", "ext_image_copy_capture_manager_v1",
            "ext_output_image_capture_source_manager_v1",
        ])
    }

    /// A client that connects through a sandbox engine's security context sees no privileged
    /// global, though a rule names its user and its executable.
    @Test func aClientInASecurityContextSeesNoPrivilegedGlobal() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [
            PrivilegeRule(.user(getuid()), privileges: Set(Privilege.allCases)),
            PrivilegeRule(.executable(testExecutable()), privileges: Set(Privilege.allCases)),
        ]
        let engine = try SessionClient(session)
        #expect(privilegedGlobals(seenBy: engine.client) == Self.privilegedInterfaces)
        let path = "/tmp/vitrine-sandbox-\(getpid())"
        unlink(path)
        defer { unlink(path) }
        let listening = try OwnedFileDescriptor.unixStreamSocket()
        let address = try #require(UnixSocketAddress(path: path))
        #expect(address.withSocketAddress { bind(listening.rawValue, $0, $1) } == 0)
        #expect(listen(listening.rawValue, 4) == 0)
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        let (closeRead, closeWrite) = (OwnedFileDescriptor(rawValue: ends[0]), OwnedFileDescriptor(rawValue: ends[1]))
        let context = try engine.client.bind(WpSecurityContextManagerV1Proxy.self, version: 1)
            .createListener(listenFd: listening.fileDescriptor, closeFd: closeRead.fileDescriptor)
        try context.setSandboxEngine(name: "org.flatpak")
        try context.commit()
        try engine.client.roundtrip()

        let connection = try OwnedFileDescriptor.unixStreamSocket(blocking: true)
        #expect(address.withSocketAddress { connect(connection.rawValue, $0, $1) } == 0)
        let sandboxed = try TestClient(socket: connection.take()) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        #expect(sandboxed.globals.values.contains { $0.interface == "wl_compositor" })
        #expect(privilegedGlobals(seenBy: sandboxed).isEmpty)
        let server = try #require(session.compositor.display.connectedClients.first { $0.securityContext != nil })
        #expect(session.compositor.privileges(of: server) == [])
        _ = closeWrite
    }

    /// xwayland_shell_v1 is Xwayland's alone: a client with every privilege neither sees it nor
    /// can bind it by the name the Xwayland connection was told.
    @Test func onlyTheXwaylandConnectionSeesTheXwaylandShell() throws {
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.user(getuid()), privileges: Set(Privilege.allCases))]
        let (xwaylandServer, socket) = try session.compositor.display.createClientSocket()
        session.compositor.xwaylandClient = xwaylandServer
        let xwayland = try TestClient(socket: socket) { try? session.compositor.dispatch(timeoutMilliseconds: 0) }
        let name = try #require(xwayland.globals.first { $0.value.interface == "xwayland_shell_v1" }?.key)
        #expect(xwayland.globals[name]?.version == 1)
        _ = try xwayland.bind(XwaylandShellV1Proxy.self, version: 1)
        try xwayland.roundtrip()

        let ordinary = try SessionClient(session)
        #expect(ordinary.client.globals.values.contains { $0.interface == "zwlr_layer_shell_v1" })
        #expect(!ordinary.client.globals.values.contains { $0.interface == "xwayland_shell_v1" })
        // libwayland refuses a filtered global as an unknown one (an error on the registry).
        _ = try ordinary.client.bind(XwaylandShellV1Proxy.self, name: name, version: 1)
        #expect(throws: TestClientError.protocolError(ProtocolErrorReport(interface: "wl_registry", objectID: 2, code: 0))) {
            try ordinary.client.roundtrip()
        }
    }

    @Test func aRuleNamingASymbolicLinkMatchesTheExecutableItLinksTo() throws {
        let link = "/tmp/vitrine-privilege-link-\(getpid())"
        unlink(link)
        #expect(symlink(testExecutable(), link) == 0)
        defer { unlink(link) }
        let session = try HeadlessSession()
        session.compositor.privilegeRules = [PrivilegeRule(.executable(link), privileges: [.screenCapture])]
        let client = try SessionClient(session)
        #expect(session.compositor.privileges(of: client.server) == [.screenCapture])
    }
}

/// The executable of this test process, as a privilege rule names it.
func testExecutable() -> String {
    let resolved = realpath("/proc/self/exe", nil)!
    defer { free(resolved) }
    return String(cString: resolved)
}
