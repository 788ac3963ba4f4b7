import Glibc
public import SystemCalls
import Logging
import WaylandServer

/// Forwards what the kiosk app prints (standard output and error, through a pipe) to Vitrine's
/// log line by line, under the app's name, so that the journal shows whose line it is.
///
/// It reads on the compositor's loop whenever the pipe is readable, and stops when the app closes
/// its end (it exited) or the forwarder is released.
public final class AppOutputForwarder {
    private let fileDescriptor: FileDescriptor
    private var logger: Logger
    private var pending: [UInt8] = []
    private var source: EventSource?
    /// A line longer than this is logged in pieces, so a program that never ends a line cannot
    /// grow the buffer without bound.
    static let maximumLineLength = 4096

    /// Watches `fileDescriptor` (non-blocking; the caller keeps it open while the forwarder lives)
    /// on `eventLoop`; lines are logged at info level with `name` as the logger's label, through
    /// `logHandler` (by default the handler the logging system was set up with).
    public init(
        fileDescriptor: FileDescriptor, name: String, eventLoop: EventLoop, logHandler: (String) -> any LogHandler = { Logger(label: $0).handler }
    ) throws {
        self.fileDescriptor = fileDescriptor
        logger = Logger(label: name, factory: logHandler)
        logger.logLevel = .info
        source = try eventLoop.addFileDescriptor(fileDescriptor, events: .readable) { [unowned self] _ in readAvailable() }
    }

    deinit {
        source?.remove()
    }

    /// Logs what is still in the pipe (the app exited) and stops watching it; call it before the
    /// descriptor is closed, so that the loop never watches a number the system has reused.
    public func finish() {
        guard source != nil else { return }
        readAvailable()
        flush()
        source?.remove()
        source = nil
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fileDescriptor.rawValue, &buffer, buffer.count)
            if count > 0 {
                feed(buffer[..<count])
            } else if count < 0 && (errno == EINTR) {
                continue
            } else {
                // EAGAIN: all read for now. 0: the app closed its end; say what is left and stop.
                if count == 0 {
                    flush()
                    source?.remove()
                    source = nil
                }
                return
            }
        }
    }

    private func feed(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                flush()
            } else {
                pending.append(byte)
                if pending.count >= Self.maximumLineLength { flush() }
            }
        }
    }

    private func flush() {
        guard !pending.isEmpty else { return }
        logger.info("\(String(decoding: pending, as: UTF8.self))")
        pending.removeAll(keepingCapacity: true)
    }
}
