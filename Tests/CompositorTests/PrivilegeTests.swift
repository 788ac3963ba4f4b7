import Compositor
import Glibc
import Testing

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
