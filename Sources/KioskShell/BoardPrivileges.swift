import BoardConfig
import Compositor
import Glibc

/// The board's `[[privilege]]` tables as the compositor's privilege rules.
public enum BoardPrivileges {
    /// One rule per grant, users looked up by name now.
    public static func rules(for grants: [PrivilegeGrant]) throws(BoardPrivilegeError) -> [PrivilegeRule] {
        var rules: [PrivilegeRule] = []
        for grant in grants {
            let privileges = Set(grant.privileges.map(privilege(for:)))
            switch grant.subject {
            case .executable(let path):
                rules.append(PrivilegeRule(.executable(path), privileges: privileges))
            case .user(let name):
                guard let entry = getpwnam(name) else { throw .unknownUser(name) }
                rules.append(PrivilegeRule(.user(entry.pointee.pw_uid), privileges: privileges))
            }
        }
        return rules
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
