import Foundation
import Glibc
public import SystemCalls
import Logging

/// Vitrine's log for systemd's journal: every line on standard error as
/// `<N>label: [source] message`, where N is syslog's priority, which journald reads from a
/// service's stream (so `journalctl -p warning` finds Vitrine's warnings), and without a timestamp,
/// which the journal keeps itself. A message of several lines gives one entry per line, each with
/// the prefix.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let fileDescriptor: FileDescriptor

    /// Writes `label`'s entries to `fileDescriptor` (standard error unless a test says otherwise).
    public init(label: String, fileDescriptor: FileDescriptor = .standardError) {
        self.label = label
        self.fileDescriptor = fileDescriptor
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let given = event.metadata { merged.merge(given) { $1 } }
        let pairs = merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let bytes = Array(Self.entries(level: event.level, label: label, source: event.source, message: event.message.description + pairs).utf8)
        // One write per event (more only when the stream takes part of it), so that lines of
        // events from two threads do not interleave. A log that cannot be written is dropped.
        _ = try? fileDescriptor.writeAll(bytes)
    }

    /// syslog's priority for a level: debug 7 … critical 2.
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The text written for one event.
    static func entries(level: Logger.Level, label: String, source: String, message: String) -> String {
        let prefix = "<\(priority(of: level))>\(label): [\(source)] "
        return message.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 + "\n" }.joined()
    }

    /// Whether `fileDescriptor` is a stream to the journal: systemd sets `JOURNAL_STREAM` to its
    /// "device:inode" for a service's standard output and error (systemd.exec(5)); a redirected or
    /// inherited descriptor does not match.
    public static func isJournalStream(
        _ fileDescriptor: FileDescriptor = .standardError, environment: [String: String] = environmentValues(["JOURNAL_STREAM"])
    ) -> Bool {
        guard let stream = environment["JOURNAL_STREAM"] else { return false }
        var status = stat()
        guard fstat(fileDescriptor.rawValue, &status) == 0 else { return false }
        return stream == "\(status.st_dev):\(status.st_ino)"
    }
}
