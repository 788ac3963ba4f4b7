import AppProcesses
import Foundation
import Glibc
import GoldenImages
import Graphics
import Testing
import WaylandServer
import XWindowManager

/// Chromium (Debian's) on X11 in kiosk mode through Xwayland, on a headless 640×480 output:
/// `chromium_form.html` reports through its title, which the window manager reads from the
/// window (`_NET_WM_NAME`), where its button is, what its field holds and that it was clicked.
@Suite(.serialized) struct ChromiumTests {
    private static let golden = GoldenImages(besideFile: #filePath)

    @Test func chromiumInKioskModeOnX11IsFullscreenAndGetsTypingAndClicks() throws {
        let session = try XwaylandSession(width: 640, height: 480)
        // A throwaway profile; its path also names every process of this Chromium.
        let profile = NSTemporaryDirectory() + "vitrine-chromium-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let page = URL(fileURLWithPath: XwaylandSession.client("chromium_form.html")).absoluteString
        let arguments = [
            "chromium", "--ozone-platform=x11", "--kiosk", "--user-data-dir=\(profile)", "--no-first-run",
            "--no-default-browser-check", "--password-store=basic", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-breakpad", "--noerrdialogs",
            // Software compositing: the same pixels on any machine, and no GPU process to wait for.
            "--disable-gpu", "--force-device-scale-factor=1",
            // Chromium's sandbox refuses root (as CI runs), and otherwise needs user namespaces
            // or the setuid chromium-sandbox; it is not what this test is about.
            "--no-sandbox",
        ]
        let chromium = try session.launch(arguments + [page], output: "/dev/null")
        defer {
            chromium.terminate(graceSeconds: 2)
            // Its helpers (zygotes, renderer, GPU and network services) end with it (within
            // 5 s of the kill); any left is a failure, and is killed.
            var left = processes(naming: profile)
            for _ in 0..<50 where !left.isEmpty {
                usleep(100_000)
                left = processes(naming: profile)
            }
            #expect(left.isEmpty, "Chromium processes left: \(left)")
            for pid in left { kill(pid, SIGKILL) }
        }
        func window(titled prefix: String) -> XWindow? {
            session.shownWindows.first { $0.title?.hasPrefix(prefix) == true }
        }

        #expect(try session.run(seconds: 120) { window(titled: "button at ") != nil })
        let shown = try #require(window(titled: "button at "))
        #expect(shown.frame == IntRect(x: 0, y: 0, width: 640, height: 480))
        #expect(shown.className == "Chromium")
        #expect(shown.processID == chromium.pid)
        let state = try session.output(of: ["xprop", "-id", "\(shown.id)", "_NET_WM_STATE"])
        #expect(state == "_NET_WM_STATE(ATOM) = _NET_WM_STATE_FULLSCREEN\n")
        // Laid out across the output between the page's 40-pixel margins.
        let button = try #require(geometry(named: "button", in: shown.title ?? ""))
        #expect(button == IntRect(x: 40, y: 376, width: 560, height: 64))

        try session.type("kiosk")
        #expect(try session.run(seconds: 10) { window(titled: "text:kiosk") != nil })
        try session.click(x: Double(button.x + button.width / 2), y: Double(button.y + button.height / 2), outputSize: (640, 480))
        #expect(try session.run(seconds: 10) { window(titled: "clicked:kiosk") != nil })
        try session.run(seconds: 1)
        let screen = try #require(session.compositor.capture())
        // Chromium's text rasterization may differ by a step of antialiasing between runs.
        try Self.golden.check(screen, named: "x11-chromium", tolerance: 24, maxDifferingShare: 0.01)
    }

    /// Processes whose command line contains `text`.
    private func processes(naming text: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry), pid != getpid(),
                  let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  String(decoding: commandLine, as: UTF8.self).contains(text) else { return nil }
            return pid
        }
    }
}
