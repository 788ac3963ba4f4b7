import WaylandProtocolModel

/// One argument as it travels on a Wayland socket.
public enum WireValue: Equatable, Sendable {
    case int(Int32)
    case uint(UInt32)
    /// wl_fixed: a signed 24.8 number, as its raw 32 bits.
    case fixed(Int32)
    /// The bytes before the terminating NUL (which encoding adds); nil is the null string.
    case string([UInt8]?)
    case object(UInt32)
    case newID(UInt32)
    /// wl_registry.bind's new_id of an interface the XML does not name.
    case untypedNewID(interface: String, version: UInt32, id: UInt32)
    case array([UInt8])
    /// A descriptor, sent beside the bytes (SCM_RIGHTS); it takes no room in the message.
    case fd(Int32)
}

/// A request or an event: header (object id, then size << 16 | opcode) and 4-byte aligned
/// arguments, all in the host's byte order.
public struct WireMessage: Equatable, Sendable {
    public var objectID: UInt32
    public var opcode: UInt16
    public var arguments: [WireValue]

    public init(objectID: UInt32, opcode: UInt16, arguments: [WireValue]) {
        self.objectID = objectID
        self.opcode = opcode
        self.arguments = arguments
    }

    /// The message's bytes and the descriptors that go with them.
    public func encoded() -> (bytes: [UInt8], fds: [Int32]) {
        var body: [UInt8] = []
        var fds: [Int32] = []
        for argument in arguments {
            switch argument {
            case .int(let value): body.appendWord(UInt32(bitPattern: value))
            case .uint(let value), .object(let value), .newID(let value): body.appendWord(value)
            case .fixed(let raw): body.appendWord(UInt32(bitPattern: raw))
            case .string(let bytes): body.appendString(bytes)
            case .untypedNewID(let interface, let version, let id):
                body.appendString(Array(interface.utf8))
                body.appendWord(version)
                body.appendWord(id)
            case .array(let bytes):
                body.appendWord(UInt32(bytes.count))
                body.appendPadded(bytes)
            case .fd(let fd): fds.append(fd)
            }
        }
        return (Self.header(objectID: objectID, size: 8 + body.count, opcode: opcode) + body, fds)
    }

    /// A header with any size, including ones that do not match what follows.
    public static func header(objectID: UInt32, size: Int, opcode: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendWord(objectID)
        bytes.appendWord(UInt32(truncatingIfNeeded: size) << 16 | UInt32(opcode))
        return bytes
    }

    /// Decodes one message's arguments (`body` is what follows the header) by the event or request
    /// it is. Descriptors are not in the bytes: each fd argument decodes as `.fd(-1)`.
    public static func decodeArguments(_ body: ArraySlice<UInt8>, as message: Message) throws(WireError) -> [WireValue] {
        var reader = WordReader(bytes: body)
        var values: [WireValue] = []
        for argument in message.arguments {
            switch argument.kind {
            case .int: values.append(.int(Int32(bitPattern: try reader.word())))
            case .uint: values.append(.uint(try reader.word()))
            case .fixed: values.append(.fixed(Int32(bitPattern: try reader.word())))
            case .object: values.append(.object(try reader.word()))
            case .newID:
                if argument.interface == nil {
                    guard case let interface?? = try reader.string() else { throw .malformed("untyped new_id without an interface") }
                    let version = try reader.word()
                    values.append(.untypedNewID(interface: String(decoding: interface, as: UTF8.self), version: version, id: try reader.word()))
                } else {
                    values.append(.newID(try reader.word()))
                }
            case .string:
                guard case let string? = try reader.string() else { throw .malformed("string without terminator") }
                values.append(.string(string))
            case .array: values.append(.array(try reader.array()))
            case .fd: values.append(.fd(-1))
            }
        }
        guard reader.isAtEnd else { throw .malformed("\(message.name): bytes left after the arguments") }
        return values
    }
}

public enum WireError: Error, Equatable {
    case malformed(String)
}

/// Splits a byte stream into messages: returns each complete message's object id, opcode and body.
public struct MessageFramer {
    private var buffer: [UInt8] = []

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) { buffer.append(contentsOf: bytes) }

    public mutating func next() throws(WireError) -> (objectID: UInt32, opcode: UInt16, body: ArraySlice<UInt8>)? {
        guard buffer.count >= 8 else { return nil }
        let objectID = buffer.word(at: 0), sizeAndOpcode = buffer.word(at: 4)
        let size = Int(sizeAndOpcode >> 16)
        guard size >= 8, size % 4 == 0 else { throw .malformed("message size \(size)") }
        guard buffer.count >= size else { return nil }
        let body = ArraySlice(buffer[8..<size])
        buffer.removeFirst(size)
        return (objectID, UInt16(sizeAndOpcode & 0xffff), body)
    }
}

private struct WordReader {
    var bytes: ArraySlice<UInt8>

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func word() throws(WireError) -> UInt32 {
        guard bytes.count >= 4 else { throw .malformed("message ends inside an argument") }
        let value = Array(bytes.prefix(4)).word(at: 0)
        bytes = bytes.dropFirst(4)
        return value
    }

    /// nil for a missing terminator; .some(nil) for the null string.
    mutating func string() throws(WireError) -> [UInt8]?? {
        let bytes = try array()
        guard !bytes.isEmpty else { return .some(nil) }
        guard bytes.last == 0 else { return nil }
        return .some(Array(bytes.dropLast()))
    }

    mutating func array() throws(WireError) -> [UInt8] {
        let length = Int(try word())
        let padded = (length + 3) & ~3
        guard bytes.count >= padded else { throw .malformed("array of \(length) bytes past the message's end") }
        let value = Array(bytes.prefix(length))
        bytes = bytes.dropFirst(padded)
        return value
    }
}

extension [UInt8] {
    mutating func appendWord(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }

    /// Length (with the NUL), bytes, NUL, padding; the null string is length 0.
    mutating func appendString(_ bytes: [UInt8]?) {
        guard let bytes else { return appendWord(0) }
        appendWord(UInt32(bytes.count + 1))
        appendPadded(bytes + [0])
    }

    mutating func appendPadded(_ bytes: [UInt8]) {
        append(contentsOf: bytes)
        append(contentsOf: [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4))
    }

    func word(at offset: Int) -> UInt32 {
        self[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
