import Glibc
import SystemCalls
import WaylandServer

/// Bytes written into a pipe (a Wayland client's paste) without blocking the compositor: what the
/// pipe does not take at once is kept and written as it drains. More may be given while it
/// writes (the chunks of an incremental transfer); `finish(closingAfter:)` closes the pipe once
/// all is written, or at a deadline.
final class PipeWriter {
    private let descriptor: OwnedFileDescriptor
    private let loop: EventLoop
    private var pending: [UInt8] = []
    private var written = 0
    private var source: FileDescriptorSource?
    private var isFinishing = false
    /// When a finished pipe is closed though its reader has not taken everything.
    private var deadline: TimerSource?
    /// The pipe is closed: all was written after `finish(closingAfter:)`, its deadline passed,
    /// or its reader went away.
    private(set) var isClosed = false
    /// Called on the loop when the pipe took everything given so far, or closed.
    var drained: ((PipeWriter) -> Void)?

    init(_ descriptor: OwnedFileDescriptor, on loop: EventLoop) {
        self.descriptor = descriptor
        self.loop = loop
        _ = fcntl(descriptor.rawValue, F_SETFL, fcntl(descriptor.rawValue, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        source?.remove()
    }

    /// The bytes given and not yet in the pipe.
    var pendingCount: Int { pending.count - written }

    /// Writes `bytes` after those given before (nothing once closed).
    func write(_ bytes: [UInt8]) {
        guard !isClosed else { return }
        pending.removeFirst(written)
        written = 0
        pending += bytes
        writeSome()
    }

    /// Closes the pipe once everything given is written, or after `milliseconds` with what its
    /// reader has not taken by then dropped (a client that stops reading holds no memory for long).
    func finish(closingAfter milliseconds: Int32) {
        isFinishing = true
        writeSome()
        guard !isClosed else { return }
        deadline = try? loop.addTimer { [weak self] in
            guard let self else { return }
            close()
            drained?(self)
        }
        guard let deadline else { return close() }
        deadline.arm(milliseconds: milliseconds)
    }

    /// Writes what the pipe takes; waits for it to drain when it takes no more.
    private func writeSome() {
        while !isClosed, written < pending.count {
            let count = pending.withUnsafeBytes { Glibc.write(descriptor.rawValue, $0.baseAddress! + written, $0.count - written) }
            if count > 0 {
                written += count
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                if source == nil {
                    source = try? loop.addFileDescriptor(descriptor.fileDescriptor, events: .writable) { [unowned self] _ in
                        writeSome()
                        if isClosed || pendingCount == 0 { drained?(self) }
                    }
                    // Without a source the pipe cannot be waited on: it is given up.
                    if source == nil { close() }
                }
                return
            } else {
                // The reader went away.
                close()
            }
        }
        pending = []
        written = 0
        source?.remove()
        source = nil
        if isFinishing { close() }
    }

    /// Closes the pipe now; what it did not take is dropped.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        pending = []
        written = 0
        source?.remove()
        source = nil
        deadline?.remove()
        deadline = nil
        descriptor.close()
    }
}

/// The reading end of a pipe a Wayland source writes its data into (for an X client), read on
/// the compositor's loop into a buffer, and not read while the buffer holds `limit` bytes or
/// more, so that a source writing without end costs no more than that.
final class PipeReader {
    /// The end the Wayland source writes into (handed to it).
    let writingEnd: OwnedFileDescriptor
    private let readingEnd: OwnedFileDescriptor
    private let loop: EventLoop
    private let limit: Int
    private var source: FileDescriptorSource?
    private var buffer: [UInt8] = []
    private var start = 0
    /// The source closed its end: the buffer holds the rest of the data.
    private(set) var isEnded = false
    /// Called on the loop when bytes arrived or the data ended.
    var received: (() -> Void)?

    init(limit: Int, on loop: EventLoop) throws(SystemCallError) {
        var ends: [Int32] = [-1, -1]
        try SystemCallError.check(pipe(&ends), "pipe")
        readingEnd = OwnedFileDescriptor(rawValue: ends[0])
        writingEnd = OwnedFileDescriptor(rawValue: ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        self.loop = loop
        self.limit = limit
        try listen()
    }

    deinit {
        source?.remove()
    }

    /// The bytes read and not yet taken.
    var count: Int { buffer.count - start }

    /// Takes up to `maximum` of the bytes read, oldest first; reading goes on below the limit.
    func take(_ maximum: Int) -> [UInt8] {
        let end = start + min(maximum, count)
        let taken = Array(buffer[start..<end])
        start = end
        // What was taken goes once it is most of the buffer.
        if start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        if source == nil, !isEnded, count < limit { try? listen() }
        return taken
    }

    private func listen() throws(SystemCallError) {
        source = try loop.addFileDescriptor(readingEnd.fileDescriptor, events: .readable) { [unowned self] _ in
            readSome()
            received?()
        }
    }

    private func readSome() {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while count < limit {
            let read = chunk.withUnsafeMutableBytes { Glibc.read(readingEnd.rawValue, $0.baseAddress, $0.count) }
            if read > 0 {
                buffer += chunk.prefix(read)
            } else if read < 0, errno == EINTR {
                continue
            } else if read < 0, errno == EAGAIN {
                return
            } else {
                isEnded = true
                readingEnd.close()
                break
            }
        }
        // Full (or ended): the pipe waits until bytes are taken.
        source?.remove()
        source = nil
    }
}
