import BoardConfig
import Compositor
import KioskShell
import Testing

/// The board's `[[privilege]]` tables become the compositor's privilege rules, users by id.
@Suite struct BoardPrivilegesTests {
    @Test func grantsBecomeRulesWithUsersLookedUp() throws {
        let rules = try BoardPrivileges.rules(for: [
            PrivilegeGrant(.executable("/usr/bin/wayvnc"), privileges: [.capture, .virtualInput]),
            PrivilegeGrant(.user("root"), privileges: [.layerShell, .inputMethod]),
        ])
        #expect(rules == [
            PrivilegeRule(.executable("/usr/bin/wayvnc"), privileges: [.screenCapture, .virtualInput]),
            PrivilegeRule(.user(0), privileges: [.layerShell, .inputMethod]),
        ])
        #expect(try BoardPrivileges.rules(for: []) == [])
    }

    @Test func compatibilityEntriesBecomeTheClientsWithoutWindowCapabilities() throws {
        #expect(try BoardPrivileges.clientsWithoutWindowCapabilities([
            ClientCompatibility(.executable("/usr/bin/mpv")), ClientCompatibility(.user("root")),
        ]) == [.executable("/usr/bin/mpv"), .user(0)])
        #expect(throws: BoardPrivilegeError.unknownUser("vitrine-no-such-user")) {
            try BoardPrivileges.clientsWithoutWindowCapabilities([ClientCompatibility(.user("vitrine-no-such-user"))])
        }
    }

    @Test func aUserThatDoesNotExistStopsTheStart() {
        #expect(throws: BoardPrivilegeError.unknownUser("vitrine-no-such-user")) {
            try BoardPrivileges.rules(for: [PrivilegeGrant(.user("vitrine-no-such-user"), privileges: [.capture])])
        }
    }
}
