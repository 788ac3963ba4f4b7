import BoardConfig
import Compositor
import Glibc

/// The board's `[[privilege]]` and `[[compatibility]]` tables as the compositor's rules.
public enum BoardPrivileges {
    /// One rule per grant, users looked up by name now.
    public static func rules(for grants: [PrivilegeGrant]) throws(BoardPrivilegeError) -> [PrivilegeRule] {
        var rules: [PrivilegeRule] = []
        for grant in grants {
            rules.append(PrivilegeRule(try subject(grant.subject), privileges: Set(grant.privileges.map(privilege(for:)))))
        }
        return rules
    }

    /// The clients of the board's `[[compatibility]]` tables (`Compositor.clientsWithoutWindowCapabilities`).
    public static func clientsWithoutWindowCapabilities(_ entries: [ClientCompatibility]) throws(BoardPrivilegeError) -> [PrivilegeRule.Subject] {
        var subjects: [PrivilegeRule.Subject] = []
        for entry in entries { subjects.append(try subject(entry.subject)) }
        return subjects
    }

    private static func subject(_ subject: PrivilegeGrant.Subject) throws(BoardPrivilegeError) -> PrivilegeRule.Subject {
        switch subject {
        case .executable(let path): return .executable(path)
        case .user(let name):
            guard let entry = getpwnam(name) else { throw .unknownUser(name) }
            return .user(entry.pointee.pw_uid)
        }
    }

    static func privilege(for granted: GrantedPrivilege) -> Privilege {
        switch granted {
        case .capture: .screenCapture
        case .virtualInput: .virtualInput
        case .layerShell: .layerShell
        case .inputMethod: .inputMethod
        }
    }
}

public enum BoardPrivilegeError: Error, Equatable, CustomStringConvertible {
    case unknownUser(String)

    public var description: String {
        switch self {
        case .unknownUser(let name): "the user \(name), given privileges by the board, does not exist"
        }
    }
}
