import Foundation
import Glibc
import Graphics
import Testing

/// A CUPS daemon of the test's own (Debian's cupsd), listening on a socket in a scratch folder,
/// with one raw queue whose device keeps each job as a file: the printer a ticket kiosk has, with
/// paper replaced by a folder.
final class PrivateCUPS {
    let folder: String
    let socket: String
    /// Where the queue's jobs land, one file each (the backend runs as CUPS's lp user).
    let output: String
    private let daemon = Process()

    static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/cupsd")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/lp")
    }

    init(queue: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-cups-\(UUID().uuidString.prefix(8))").path
        socket = folder + "/cups.sock"
        output = folder + "-jobs"
        let fileManager = FileManager.default
        for sub in ["", "/spool", "/cache", "/state", "/tmp", "/log", "/serverbin/backend"] {
            try fileManager.createDirectory(atPath: folder + sub, withIntermediateDirectories: true)
        }
        // Outside ServerRoot, whose permissions cupsd resets, and writable by the lp user.
        try fileManager.createDirectory(atPath: output, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        // CUPS's own filters and backends, and one device more: "keep:PATH-PREFIX".
        for entry in try fileManager.contentsOfDirectory(atPath: "/usr/lib/cups") where entry != "backend" {
            try fileManager.createSymbolicLink(atPath: folder + "/serverbin/" + entry, withDestinationPath: "/usr/lib/cups/" + entry)
        }
        try """
            #!/bin/sh
            # With no arguments a backend lists its devices; with a job, it writes the job's file.
            [ $# -eq 0 ] && { echo 'direct keep "Unknown" "Keeps each job as a file"'; exit 0; }
            target="${DEVICE_URI#keep:}-$1.pdf"
            if [ -n "$6" ]; then cat "$6" > "$target"; else cat > "$target"; fi

            """.write(toFile: folder + "/serverbin/backend/keep", atomically: true, encoding: .utf8)
        try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/serverbin/backend/keep")
        try """
            Listen \(socket)
            Browsing No
            WebInterface No
            LogLevel info
            DefaultAuthType None
            <Location />
              Order allow,deny
              Allow all
            </Location>
            <Location /admin>
              Order allow,deny
              Allow all
            </Location>
            <Policy default>
              <Limit All>
                Order deny,allow
              </Limit>
            </Policy>

            """.write(toFile: folder + "/cupsd.conf", atomically: true, encoding: .utf8)
        try """
            ServerRoot \(folder)
            RequestRoot \(folder)/spool
            CacheDir \(folder)/cache
            StateDir \(folder)/state
            TempDir \(folder)/tmp
            ErrorLog \(folder)/log/error_log
            AccessLog \(folder)/log/access_log
            PageLog \(folder)/log/page_log
            ServerBin \(folder)/serverbin
            DataDir /usr/share/cups

            """.write(toFile: folder + "/cups-files.conf", atomically: true, encoding: .utf8)
        daemon.executableURL = URL(fileURLWithPath: "/usr/sbin/cupsd")
        daemon.arguments = ["-f", "-c", folder + "/cupsd.conf", "-s", folder + "/cups-files.conf"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        do {
            let deadline = Date().addingTimeInterval(20)
            while !fileManager.fileExists(atPath: socket), Date() < deadline, daemon.isRunning { usleep(50_000) }
            try #require(fileManager.fileExists(atPath: socket), "cupsd did not start; see \(folder)/log/error_log")
            // A raw queue passes the PDF through untouched (CUPS warns raw queues are deprecated).
            // cupsd binds its socket before it listens on it, and a connection in between is
            // refused (a loaded CI run saw lpadmin fail so): lpadmin is retried until cupsd answers.
            while true {
                do {
                    _ = try runTool("/usr/sbin/lpadmin", ["-h", socket, "-p", queue, "-E", "-v", "keep:\(output)/job", "-m", "raw"])
                    break
                } catch where Date() < deadline && daemon.isRunning {
                    usleep(100_000)
                }
            }
        } catch {
            stop()
            throw error
        }
    }

    /// The files the queue has written so far.
    var jobs: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).sorted().map { output + "/" + $0 }
    }

    func stop() {
        if daemon.isRunning {
            // cupsd may be between jobs for a while after SIGTERM; nothing of it needs keeping.
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.removeItem(atPath: output)
    }
}

/// `vitrine print`: a kiosk whose board names a printer sends a PDF to it through CUPS.
@Suite(.serialized, .enabled(if: PrivateCUPS.isAvailable, "needs root, cupsd and lp (cups-daemon, cups-client)"))
struct PrintingTests {
    /// A headless kiosk running weston-simple-shm whose board prints to `queue` on `cups`, on `paper`.
    func kiosk(printingTo queue: String, on cups: PrivateCUPS, paper: String = "a4") throws -> RunningVitrine {
        let folder = try RunningVitrine.makeFolder()
        let board = folder + "/kiosk.toml"
        try """
            [[output]]
            connector = "first-connected"

            [app]
            command = ["weston-simple-shm"]

            [printer]
            queue = "\(queue)"
            server = "\(cups.socket)"
            paper = "\(paper)"

            """.write(toFile: board, atomically: true, encoding: .utf8)
        return try RunningVitrine(options: ["--config", board], folder: folder)
    }

    @Test func aWindowIsPrintedOnTheReceiptRollThroughCUPS() throws {
        let cups = try PrivateCUPS(queue: "ticket")
        defer { cups.stop() }
        let vitrine = try kiosk(printingTo: "ticket", on: cups, paper: "receipt-80mm")
        defer { vitrine.stop() }
        let folder = vitrine.folder
        let status = try vitrine.waitUntilShowing(app: true, window: "simple-shm")
        let app = try #require(status.app?.pid)
        Glibc.kill(app, SIGSTOP)
        defer { Glibc.kill(app, SIGCONT) }

        let result = try vitrine.command(["print", "--layer", "simple-shm", "--title", "Ticket 42"])
        #expect(result.error == "")
        #expect(result.status == 0)
        #expect(String(decoding: result.output, as: UTF8.self) == "request id is ticket-1 (1 file(s))\n")

        let deadline = Date().addingTimeInterval(20)
        while cups.jobs.isEmpty, Date() < deadline { usleep(100_000) }
        let job = try #require(cups.jobs.first, "no job reached the printer; see \(cups.folder)/log/error_log")
        let info = try runTool("/usr/bin/pdfinfo", [job])
        // 80 mm wide; the 250-point square window fitted inside 3 mm margins makes a square page.
        #expect(info.split(separator: "\n").contains { $0.split(separator: " ").joined(separator: " ") == "Page size: 226.772 x 226.772 pts" }, "\(info)")
        _ = try runTool("/usr/bin/pdftocairo", ["-png", "-r", "72", "-singlefile", job, folder + "/printed"])
        let page = try Image(contentsOfPNGFile: folder + "/printed.png")
        // The window's white border, 20 points scaled by 0.839 inside the 8.5-point margin.
        #expect(page.pixel(x: 14, y: 113) == PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255))
    }

    @Test func aQueueCUPSDoesNotKnowIsReportedWithLpsAnswer() throws {
        let cups = try PrivateCUPS(queue: "ticket")
        defer { cups.stop() }
        let vitrine = try kiosk(printingTo: "office", on: cups)
        defer { vitrine.stop() }
        try vitrine.waitUntilShowing(app: true)
        let result = try vitrine.command(["print"])
        #expect(result.status == 1)
        #expect(
            result.error == "Error: vitrine answered: the print queue office refused the job: lp: Error - The printer or class does not exist.\n")
        #expect(cups.jobs.isEmpty)
    }
}
