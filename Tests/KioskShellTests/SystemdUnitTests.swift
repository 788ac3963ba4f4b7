import Foundation
import Testing

private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
private let unitPath = repositoryRoot.appendingPathComponent("systemd/vitrine@.service").path
private let systemdAnalyze = "/usr/bin/systemd-analyze"
private let hasSystemdAnalyze = FileManager.default.isExecutableFile(atPath: systemdAnalyze)

/// The unit's assignments in file order, `[Section] Key=Value`, comments dropped.
private func assignments(of text: String) -> [String] {
    var section = ""
    var result: [String] = []
    for line in text.split(separator: "\n") {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        if trimmed.hasPrefix("[") {
            section = trimmed
        } else {
            result.append("\(section) \(trimmed)")
        }
    }
    return result
}

/// Runs `systemd-analyze COMMAND OPTIONS` on the unit as an instance, against a root that holds
/// the unit, an executable at ExecStart's path and the system's own units (for its dependencies).
/// Returns the exit status and everything it printed: warnings such as unknown keys go to the
/// output only.
private func analyze(
    _ command: String, options: [String] = [], unitText: String, installsBinary: Bool = true
) throws -> (status: Int32, output: String) {
    let files = FileManager.default
    let root = files.temporaryDirectory.appendingPathComponent("vitrine-unit-\(UUID().uuidString)")
    defer { try? files.removeItem(at: root) }
    let units = root.appendingPathComponent("etc/systemd/system")
    try files.createDirectory(at: units, withIntermediateDirectories: true)
    try unitText.write(to: units.appendingPathComponent("vitrine@.service"), atomically: true, encoding: .utf8)
    let libraryUnits = root.appendingPathComponent("usr/lib/systemd")
    try files.createDirectory(at: libraryUnits, withIntermediateDirectories: true)
    try files.copyItem(atPath: "/usr/lib/systemd/system", toPath: libraryUnits.appendingPathComponent("system").path)
    if installsBinary {
        let bin = root.appendingPathComponent("usr/local/bin")
        try files.createDirectory(at: bin, withIntermediateDirectories: true)
        try files.copyItem(atPath: "/bin/true", toPath: bin.appendingPathComponent("vitrine").path)
    }

    let process = Process()
    process.executableURL = URL(fileURLWithPath: systemdAnalyze)
    process.arguments = [command, "--root=\(root.path)"] + options + ["vitrine@qemu-virtio-gpu.service"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
}

/// `systemd-analyze security` of the unit file (offline: no running systemd needed), failing
/// (status 1) above the exposure the unit is held at, 3.2 (docs/kiosk-shell.md, "systemd"; a
/// change that lowers the score lowers the threshold too). Returns the status and the
/// overall score it printed.
private func securityAnalysis(unitText: String) throws -> (status: Int32, exposure: String?) {
    // The threshold counts tenths.
    let result = try analyze("security", options: ["--offline=true", "--threshold=32"], unitText: unitText)
    // "→ Overall exposure level for vitrine@qemu-virtio-gpu.service: 3.2 OK 🙂"
    let overall = result.output.split(separator: "\n").first { $0.contains("Overall exposure level for ") }
    let exposure = overall?.split(separator: ": ", maxSplits: 1).last?.split(separator: " ").first.map(String.init)
    return (result.status, exposure)
}

@Suite struct SystemdUnitTests {
    @Test func unitHasTheKioskServiceSettings() throws {
        let lines = assignments(of: try String(contentsOfFile: unitPath, encoding: .utf8))
        for expected in [
            "[Service] Type=notify",
            "[Service] NotifyAccess=main",
            "[Service] ExecStart=/usr/local/bin/vitrine run --kms --config /etc/vitrine/%i.toml",
            "[Service] WatchdogSec=10s",
            "[Service] Restart=always",
            "[Service] User=vitrine",
            "[Service] SupplementaryGroups=video input render",
            "[Service] PAMName=login",
            "[Service] TimeoutAbortSec=5s",
            "[Service] TTYPath=/dev/tty1",
            "[Service] ProtectSystem=strict",
            "[Service] InaccessiblePaths=-/home -/root",
            "[Service] PrivateTmp=yes",
            "[Service] NoNewPrivileges=yes",
            "[Service] DevicePolicy=closed",
            "[Service] DeviceAllow=char-drm rw",
            "[Service] DeviceAllow=char-input rw",
            "[Install] WantedBy=graphical.target",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
        #expect(!lines.contains { $0.hasPrefix("[Service] PrivateDevices=yes") }, "it would hide /dev/dri")
        #expect(!lines.contains { $0.hasPrefix("[Service] ProtectHome=") }, "it would hide /run/user, the session's runtime folder")
    }

    @Test(.enabled(if: hasSystemdAnalyze, "needs systemd-analyze (Debian package systemd)"))
    func systemdAnalyzeVerifiesTheUnitWithoutAnyWarning() throws {
        let result = try analyze("verify", unitText: try String(contentsOfFile: unitPath, encoding: .utf8))
        #expect(result.status == 0)
        #expect(result.output == "")
    }

    /// Proves the check above can fail: systemd only warns about an unknown key, and the warning
    /// is caught.
    @Test(.enabled(if: hasSystemdAnalyze, "needs systemd-analyze (Debian package systemd)"))
    func systemdAnalyzeReportsAMisspeltDirective() throws {
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        let misspelt = unit.replacingOccurrences(of: "Restart=always", with: "Restrat=always")
        try #require(misspelt != unit)
        let result = try analyze("verify", unitText: misspelt)
        #expect(result.output.contains("Unknown key 'Restrat' in section [Service], ignoring."))
    }

    @Test(.enabled(if: hasSystemdAnalyze, "needs systemd-analyze (Debian package systemd)"))
    func systemdAnalyzeFailsWhenExecStartIsNotInstalled() throws {
        let result = try analyze("verify", unitText: try String(contentsOfFile: unitPath, encoding: .utf8), installsBinary: false)
        #expect(result.status != 0)
        #expect(result.output.contains("Command /usr/local/bin/vitrine is not executable"))
    }

    @Test(.enabled(if: hasSystemdAnalyze, "needs systemd-analyze (Debian package systemd)"))
    func systemdAnalyzeSecurityRatesTheUnitsExposureAtTheHeldScore() throws {
        let result = try securityAnalysis(unitText: try String(contentsOfFile: unitPath, encoding: .utf8))
        #expect(result.status == 0)
        #expect(result.exposure == "3.2")
    }

    /// Proves the check above can fail: without NoNewPrivileges= the exposure rises past the
    /// threshold.
    @Test(.enabled(if: hasSystemdAnalyze, "needs systemd-analyze (Debian package systemd)"))
    func systemdAnalyzeSecurityFailsAUnitThatLostPartOfItsHardening() throws {
        let unit = try String(contentsOfFile: unitPath, encoding: .utf8)
        let weaker = unit.replacingOccurrences(of: "NoNewPrivileges=yes\n", with: "")
        try #require(weaker != unit)
        let result = try securityAnalysis(unitText: weaker)
        #expect(result.status == 1)
        #expect(result.exposure == "3.4")
    }
}
