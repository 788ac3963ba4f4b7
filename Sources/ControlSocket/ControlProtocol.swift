import Compositor
import Foundation
public import SystemCalls

/// One request on the control socket, and the protocol it belongs to. A client connects, writes
/// one request: a line of JSON (at most `maximumLength` bytes, ended by "\n" or by shutting its
/// side down), and reads one reply: a header line of JSON (`ControlReplyHeader`), then exactly
/// `length` bytes of body when the header says `"ok":true`. The server closes the connection after
/// the reply.
///
///     → {"command":"capture","format":"png","output":0}
///     ← {"length":48213,"mediaType":"image/png","ok":true}\n<48213 bytes of PNG>
///     → {"command":"status"}
///     ← {"length":312,"mediaType":"application/json","ok":true}\n<a ControlStatus in JSON>
///     → {"command":"capture","format":"pdf","layer":"org.example.tickets"}
///     ← {"length":20711,"mediaType":"application/pdf","ok":true}\n<20711 bytes of PDF>
///     → {"command":"print","title":"Ticket 42"}
///     ← {"length":33,"mediaType":"text/plain","ok":true}\nrequest id is ticket-12 (1 file(s))
///     → {"command":"capture","format":"png","layer":"no such layer"}
///     ← {"error":"…","ok":false}\n
///
/// Keys are written sorted; readers must not depend on their order. Fields a reader does not know
/// are ignored, so that newer servers and clients can add some.
public struct ControlRequest: Codable, Equatable, Sendable {
    /// The longest request line the server reads; a longer one gets an error reply.
    public static let maximumLength = 64 * 1024

    public var command: ControlCommand
    /// For `capture`: the image format (PNG when absent).
    public var format: CaptureFormat?
    /// For `capture`: the output's index (0 when absent).
    public var output: Int?
    /// For `capture` and `print`: only this layer and its sublayers, named by the layer's name or
    /// by a window's app ID or title (the whole output when absent).
    public var layer: String?
    /// For `capture`: pixels per point of the image (the output's own when absent).
    public var scale: Double?
    /// For `print`: the job's title in the printer's queue.
    public var title: String?

    public init(
        command: ControlCommand, format: CaptureFormat? = nil, output: Int? = nil, layer: String? = nil, scale: Double? = nil,
        title: String? = nil
    ) {
        self.command = command
        self.format = format
        self.output = output
        self.layer = layer
        self.scale = scale
        self.title = title
    }

    /// The request as it travels: its JSON and a newline.
    public func encodedLine() throws -> [UInt8] {
        Array(try controlEncoder().encode(self)) + [UInt8(ascii: "\n")]
    }

    /// Reads a request line (its newline already taken off); the error says what is wrong with it
    /// in words a person can act on.
    public static func decode(line: [UInt8]) throws(ControlProtocolError) -> ControlRequest {
        do {
            return try JSONDecoder().decode(ControlRequest.self, from: Data(line))
        } catch let error as DecodingError {
            throw .malformedRequest(Self.describe(error))
        } catch {
            throw .malformedRequest("\(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            "not a line of JSON"
        case .dataCorrupted(let context):
            context.debugDescription
        case .keyNotFound(let key, _):
            "no \"\(key.stringValue)\" in the request"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "\"\(context.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        @unknown default:
            "\(error)"
        }
    }

    private enum CodingKeys: String, CodingKey {
        case command, format, output, layer, scale, title
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .command)
        guard let command = ControlCommand(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .command, in: container,
                debugDescription: "unknown command \"\(name)\" (known: \(ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        self.command = command
        if let formatName = try container.decodeIfPresent(String.self, forKey: .format) {
            guard let format = CaptureFormat(rawValue: formatName) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .format, in: container,
                    debugDescription: "unknown format \"\(formatName)\" (known: \(CaptureFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            self.format = format
        }
        output = try container.decodeIfPresent(Int.self, forKey: .output)
        layer = try container.decodeIfPresent(String.self, forKey: .layer)
        scale = try container.decodeIfPresent(Double.self, forKey: .scale)
        title = try container.decodeIfPresent(String.self, forKey: .title)
    }
}

/// What a request asks for.
public enum ControlCommand: String, Codable, Sendable, CaseIterable {
    /// An image of what an output shows.
    case capture
    /// A `ControlStatus` in JSON.
    case status
    /// A PDF of the output (or a layer) sent to the board's printer; the reply is lp's answer.
    case print
    #if DEBUG
    /// Blocks the compositor's loop for good, without a reply (for tests of the watchdog).
    case hang
    #endif
}

/// The image formats a capture request can name.
public enum CaptureFormat: String, Codable, Sendable, CaseIterable {
    case png, pdf, svg

    /// The IANA media type of a reply in this format.
    public var mediaType: String {
        switch self {
        case .png: "image/png"
        case .pdf: "application/pdf"
        case .svg: "image/svg+xml"
        }
    }
}

/// The header line of a reply.
public struct ControlReplyHeader: Codable, Equatable, Sendable {
    public var ok: Bool
    /// With `ok`: what the body is.
    public var mediaType: String?
    /// With `ok`: how many bytes of body follow the header line.
    public var length: Int?
    /// Without `ok`: what went wrong.
    public var error: String?

    public init(ok: Bool, mediaType: String? = nil, length: Int? = nil, error: String? = nil) {
        self.ok = ok
        self.mediaType = mediaType
        self.length = length
        self.error = error
    }
}

/// A reply, as the handler of a `ControlServer` gives it.
public enum ControlReply: Equatable, Sendable {
    case success(mediaType: String, body: [UInt8])
    case failure(String)

    /// The header line and the body, as they travel.
    public func encoded() -> [UInt8] {
        let header: ControlReplyHeader
        let body: [UInt8]
        switch self {
        case .success(let mediaType, let bytes):
            header = ControlReplyHeader(ok: true, mediaType: mediaType, length: bytes.count)
            body = bytes
        case .failure(let message):
            header = ControlReplyHeader(ok: false, error: message)
            body = []
        }
        // A header of strings and numbers always encodes.
        let line = (try? controlEncoder().encode(header)).map(Array.init) ?? Array(#"{"ok":false}"#.utf8)
        return line + [UInt8(ascii: "\n")] + body
    }

    /// A JSON body of `value`.
    public static func json(_ value: some Encodable) -> ControlReply {
        do {
            return .success(mediaType: "application/json", body: Array(try controlEncoder().encode(value)))
        } catch {
            return .failure("cannot encode the reply: \(error)")
        }
    }
}

/// Keys in sorted order and slashes as they are, so that the same message is always the same bytes (Foundation's
/// encoder otherwise orders keys as its dictionaries happen to).
private func controlEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}

/// How a `ControlServer` handler answers: with a reply at once, or with work that makes the reply
/// (encoding a frame, say), which the server runs off the compositor's thread and sends when done.
public enum ControlResponse: Sendable {
    case now(ControlReply)
    case later(@Sendable () -> ControlReply)
}

/// What the `status` command answers.
public struct ControlStatus: Codable, Equatable, Sendable {
    public struct App: Codable, Equatable, Sendable {
        public var command: [String]
        /// The running process, nil while it is down (between restarts).
        public var pid: Int32?
        /// How many times it was started (1 for an app that is not supervised).
        public var starts: Int

        public init(command: [String], pid: Int32?, starts: Int) {
            self.command = command
            self.pid = pid
            self.starts = starts
        }
    }

    /// X11 support: the display, and Xwayland while it runs.
    public struct X11: Codable, Equatable, Sendable {
        /// `DISPLAY`'s value, ":N".
        public var display: String
        /// Xwayland's pid while it runs (it starts with the first X client).
        public var pid: Int32?
        /// How many times Xwayland was started.
        public var starts: Int
        /// The X windows shown, bottom to top in the order X made them.
        public var windows: [Window]

        /// An X window shown, as its client describes it.
        public struct Window: Codable, Equatable, Sendable {
            /// The X window's id.
            public var id: UInt32
            public var title: String?
            /// WM_CLASS's class and instance names.
            public var className: String?
            public var instanceName: String?
            /// The X client's process, where X knows it.
            public var pid: Int32?
            /// Where X has it, in the output's points.
            public var x: Int32
            public var y: Int32
            public var width: Int32
            public var height: Int32
            /// A menu, tooltip or drop-down placed by its client.
            public var isOverrideRedirect: Bool

            public init(
                id: UInt32, title: String?, className: String?, instanceName: String?, pid: Int32?, x: Int32, y: Int32, width: Int32,
                height: Int32, isOverrideRedirect: Bool
            ) {
                self.id = id
                self.title = title
                self.className = className
                self.instanceName = instanceName
                self.pid = pid
                self.x = x
                self.y = y
                self.width = width
                self.height = height
                self.isOverrideRedirect = isOverrideRedirect
            }
        }

        public init(display: String, pid: Int32?, starts: Int, windows: [Window] = []) {
            self.display = display
            self.pid = pid
            self.starts = starts
            self.windows = windows
        }
    }

    public var version: String
    /// The Wayland socket's name (WAYLAND_DISPLAY).
    public var display: String
    public var outputs: [OutputStatus]
    public var mirrors: [MirrorStatus]
    /// Connected Wayland clients.
    public var clients: Int
    /// The kiosk app, when one runs.
    public var app: App?
    /// X11 support, when it is on.
    public var x11: X11?

    public init(
        version: String, display: String, outputs: [OutputStatus], mirrors: [MirrorStatus] = [], clients: Int, app: App?, x11: X11? = nil
    ) {
        self.version = version
        self.display = display
        self.outputs = outputs
        self.mirrors = mirrors
        self.clients = clients
        self.app = app
        self.x11 = x11
    }
}

/// Errors of the control socket, server and client side.
public enum ControlProtocolError: Error, Equatable, CustomStringConvertible {
    case malformedRequest(String)
    case pathTooLong(String)
    case notASocket(String)
    case inUse(String)
    case noSocket(String)
    case permissionDenied(String)
    case refused(String)
    case timedOut(String, seconds: Double)
    case malformedReply(String)
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .malformedRequest(let reason): "malformed request: \(reason)"
        case .pathTooLong(let path): "the socket path \(path) is longer than a Unix socket address allows (107 bytes)"
        case .notASocket(let path): "\(path) exists and is not a socket; remove it or choose another path"
        case .inUse(let path): "another vitrine is listening on \(path); stop it, or give this one another --control-socket"
        case .noSocket(let path): "no control socket at \(path): is vitrine running? looked for \(path)"
        case .permissionDenied(let path): "permission denied on \(path): the control socket belongs to the user vitrine runs as (use that user, or root)"
        case .refused(let path): "nothing listens on \(path) (left by a vitrine that is no longer running?)"
        case .timedOut(let path, let seconds): "no reply from \(path) within \(seconds) s (is the compositor's loop stuck?)"
        case .malformedReply(let reason): "malformed reply: \(reason)"
        case .system(let error): error.description
        }
    }
}
