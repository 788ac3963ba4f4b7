import Glibc
import WaylandServer

/// What a client may do beyond its own windows. The globals that grant it are shown (and may be
/// bound) only to clients that a `PrivilegeRule` of the compositor names, and never to clients in
/// a security context (wp_security_context_v1: a sandbox's); every other global is every client's.
public enum Privilege: String, CaseIterable, Sendable {
    /// Read what the outputs show (screen capture, remote viewing).
    case screenCapture = "capture"
    /// Make pointer and keyboard input as if from a device (remote control, on-screen keyboards).
    case virtualInput = "virtual-input"
    /// Show surfaces outside the window policy, over or under the kiosk app (layer shell).
    case layerShell = "layer-shell"
    /// Read and write the text of other clients' text fields (input methods).
    case inputMethod = "input-method"

    /// The privilege a global of interface `name` needs; nil for the globals every client sees.
    public static func required(forInterface name: String) -> Privilege? {
        switch name {
        case "zwlr_screencopy_manager_v1", "ext_image_copy_capture_manager_v1", "ext_output_image_capture_source_manager_v1":
            .screenCapture
        case "zwlr_virtual_pointer_manager_v1", "zwp_virtual_keyboard_manager_v1":
            .virtualInput
        case "zwlr_layer_shell_v1":
            .layerShell
        case "zwp_input_method_manager_v2":
            .inputMethod
        default:
            nil
        }
    }
}

/// Privileges given to the clients of one executable or one user.
public struct PrivilegeRule: Sendable, Equatable {
    /// Whom the rule is for.
    public enum Subject: Sendable, Equatable {
        /// Processes running this executable (an absolute path; symbolic links are resolved, so
        /// `/usr/bin/python3` names the interpreter it links to, and every script it runs).
        case executable(String)
        /// Processes of this user id.
        case user(UInt32)
    }

    public var subject: Subject
    public var privileges: Set<Privilege>

    public init(_ subject: Subject, privileges: Set<Privilege>) {
        self.subject = subject
        self.privileges = privileges
    }
}

extension Compositor {
    /// The privileges of `client`: those of every rule that names its executable or its user
    /// (from the socket's credentials, taken when it connected); none for a client in a security
    /// context, whose process is the sandbox's and may well run a privileged executable.
    public func privileges(of client: Client) -> Set<Privilege> {
        guard client.securityContext == nil else { return [] }
        let executable = Self.executablePath(ofProcess: client.processID)
        var granted: Set<Privilege> = []
        for rule in privilegeRules where Self.subject(rule.subject, names: client, running: executable) {
            granted.formUnion(rule.privileges)
        }
        return granted
    }

    /// Whether `client` is one of `clientsWithoutWindowCapabilities`.
    func lacksWindowCapabilities(_ client: Client) -> Bool {
        guard !clientsWithoutWindowCapabilities.isEmpty else { return false }
        let executable = Self.executablePath(ofProcess: client.processID)
        return clientsWithoutWindowCapabilities.contains { Self.subject($0, names: client, running: executable) }
    }

    private static func subject(_ subject: PrivilegeRule.Subject, names client: Client, running executable: String?) -> Bool {
        switch subject {
        case .user(let user): user == client.userID
        case .executable(let path): executable != nil && resolvedPath(path) == executable
        }
    }

    /// Shows each privileged global only to the clients whose privileges include the one it
    /// needs, xwayland_shell_v1 only to the Xwayland Vitrine started, and each client one of the
    /// two xdg_wm_base globals.
    func filterPrivilegedGlobals() {
        display.globalFilter = { [unowned self] client, global in
            if global.interfaceName == XwaylandShellGlobal.interfaceName {
                return client === xwaylandClient
            }
            if global.interfaceName == XdgShellGlobal.interfaceName {
                return shell.isWithoutCapabilities(global) == lacksWindowCapabilities(client)
            }
            guard let needed = Privilege.required(forInterface: global.interfaceName) else { return true }
            return privileges(of: client).contains(needed)
        }
    }

    /// The executable a process runs (/proc/PID/exe); nil once it has exited or when it is not
    /// readable (another user's process without the capability to look).
    static func executablePath(ofProcess processID: Int32) -> String? {
        guard processID > 0 else { return nil }
        return resolvedPath("/proc/\(processID)/exe")
    }

    private static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
