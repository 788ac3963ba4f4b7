import ArgumentParser
import BoardConfig
import Foundation

/// Validates board configuration files with the parser the kiosk itself uses, so that a mistake is
/// found at the desk rather than on a device that does not boot into its app.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Check board configuration files and report every problem with its place and a fix.",
        discussion: """
            Each problem is printed on standard error as

              FILE:LINE:COLUMN: error: MESSAGE (fix: WHAT TO CHANGE)

            and all of a file's problems are reported, not only the first. For a valid file, an outline of the board (outputs, input, app, idle, cursor, splash) is printed on standard output. The exit status is 0 when every file is valid and 1 otherwise.

            The format is documented in board-configs/FORMAT.md. Example: vitrine check-config /etc/vitrine/*.toml
            """)

    @Argument(help: ArgumentHelp("Board configuration files (TOML).", valueName: "file"))
    var files: [String]

    func run() throws {
        var hasErrors = false
        for file in files {
            switch BoardConfiguration.load(contentsOfFile: file) {
            case .success(let board):
                print("\(file): valid")
                for line in board.outline() { print("  " + line) }
            case .failure(let error):
                hasErrors = true
                for diagnostic in error.diagnostics {
                    FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
                }
            }
        }
        if hasErrors { throw ExitCode.failure }
    }
}
