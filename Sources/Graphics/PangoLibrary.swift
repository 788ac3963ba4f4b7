internal import CVitrinePango
import Logging

/// Pango, loaded when the process lays out its first text rather than linked: a kiosk that draws
/// no text never maps pango and what it brings (HarfBuzz, fribidi, libthai, gio, …), 1.3–1.5 MiB
/// of every idle compositor otherwise (docs/benchmarks.md). The release link of `vitrine` records
/// only the libraries the binary calls (`Sources/vitrine/link/as-needed.cfg`), so not these.
struct PangoLibrary: Sendable {
    /// libpangocairo's file name; pango, gobject and glib come with it.
    static let fileName = "libpangocairo-1.0.so.0"

    /// The library, loaded by the first use; a failure is logged then, once, and every text layout
    /// throws it.
    static let shared: Result<PangoLibrary, GraphicsError> = {
        let result = load(fileName)
        if case .failure(let error) = result {
            Logger(label: "vitrine.text").error("\(error)")
        }
        return result
    }()

    let functions: vitrine_pango_functions

    /// Loads the library `fileName` names (a file name the dynamic loader searches for, or a path).
    static func load(_ fileName: String) -> Result<PangoLibrary, GraphicsError> {
        withUnsafeTemporaryAllocation(of: vitrine_pango_functions.self, capacity: 1) { functions in
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { error in
                guard vitrine_pango_load(fileName, functions.baseAddress!, error.baseAddress!, error.count) == 0 else {
                    return .failure(.textUnavailable(reason: String(cString: error.baseAddress!)))
                }
                return .success(PangoLibrary(functions: functions[0]))
            }
        }
    }
}
