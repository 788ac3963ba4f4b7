package import CWaylandUtil

/// The arguments of one message as libwayland decoded them (a request on the server, an event on
/// the client), read by position as the XML orders them. The generated bindings read them; hand
/// code reads the typed values they make.
package struct MessageReader {
    private let values: UnsafeMutablePointer<wl_argument>?

    package init(_ values: UnsafeMutablePointer<wl_argument>?) {
        self.values = values
    }

    private func value(_ index: Int) -> wl_argument {
        values![index]
    }

    package func int(_ index: Int) -> Int32 { value(index).i }
    package func uint(_ index: Int) -> UInt32 { value(index).u }
    package func fixed(_ index: Int) -> Double { wl_fixed_to_double(value(index).f) }
    /// A string argument (nil only where the XML allows null); bytes that are not UTF-8 are
    /// replaced with U+FFFD, as wayland-rs does.
    package func string(_ index: Int) -> String? { value(index).s.map { String(cString: $0) } }
    /// The object of an object argument, or of a new_id argument of an event (the client's new proxy).
    package func object(_ index: Int) -> OpaquePointer? { value(index).o }
    /// The id of a new_id argument of a request.
    package func newID(_ index: Int) -> UInt32 { value(index).n }
    /// A descriptor the message carried: the receiver owns it.
    package func fileDescriptor(_ index: Int) -> Int32 { value(index).h }

    package func array(_ index: Int) -> [UInt8] {
        guard let array = value(index).a, let data = array.pointee.data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: array.pointee.size))
    }
}

/// One argument of a message to send (an event on the server, a request on the client), as the
/// generated bindings lay it out.
package enum WireArgument {
    case int(Int32)
    case uint(UInt32)
    case fixed(Double)
    case string(String?)
    case object(OpaquePointer?)
    /// A request's new object: libwayland-client makes its proxy and fills in the id.
    case newID
    case array([UInt8])
    /// libwayland duplicates the descriptor while marshalling; the caller keeps its own.
    case fileDescriptor(Int32)

    /// Lays the arguments out as `wl_argument`s, keeping strings and arrays alive during `body`.
    package static func withMarshalled<Result>(
        _ arguments: [WireArgument], _ body: (UnsafeMutablePointer<wl_argument>?) -> Result
    ) -> Result {
        var result: Result?
        arguments.withUnsafeBufferPointer { arguments in withMarshalled(arguments) { result = body($0) } }
        return result!
    }

    /// Lays the arguments out as `wl_argument`s, keeping strings and arrays alive during `body`.
    /// Not generic, and the arguments need not be an array: the server sends every event through
    /// it, from a tuple on the stack; generic across modules, each event cost a few hundred
    /// instructions of run-time metadata lookups and an array on the heap.
    package static func withMarshalled(
        _ arguments: UnsafeBufferPointer<WireArgument>, _ body: (UnsafeMutablePointer<wl_argument>?) -> Void
    ) {
        var storage: [UnsafeMutableRawPointer] = []
        defer { storage.forEach { $0.deallocate() } }
        // On the stack: every event sent lays its arguments out here.
        withUnsafeTemporaryAllocation(of: wl_argument.self, capacity: max(1, arguments.count)) { values in
            for index in arguments.indices {
                values.initializeElement(at: index, to: wireValue(arguments[index], keepingIn: &storage))
            }
            body(values.baseAddress)
        }
    }

    /// `argument` as libwayland reads it; a string's or an array's bytes are copied into memory
    /// added to `storage`, which the caller frees once the message is sent.
    private static func wireValue(_ argument: WireArgument, keepingIn storage: inout [UnsafeMutableRawPointer]) -> wl_argument {
        var value = wl_argument()
        switch argument {
        case .int(let number): value.i = number
        case .uint(let number): value.u = number
        case .fixed(let number): value.f = wl_fixed_from_double(number)
        case .string(let text):
            if let text {
                let bytes = Array(text.utf8CString)
                let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
                bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
                storage.append(copy)
                value.s = UnsafePointer(copy.assumingMemoryBound(to: CChar.self))
            }
        case .object(let object): value.o = object
        case .newID: value.n = 0
        case .array(let bytes):
            let array = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<wl_array>.size + max(1, bytes.count), alignment: 16)
            storage.append(array)
            let data = array + MemoryLayout<wl_array>.size
            bytes.withUnsafeBytes { if let base = $0.baseAddress { data.copyMemory(from: base, byteCount: bytes.count) } }
            let header = array.assumingMemoryBound(to: wl_array.self)
            header.initialize(to: wl_array(size: bytes.count, alloc: bytes.count, data: data))
            value.a = header
        case .fileDescriptor(let descriptor): value.h = descriptor
        }
        return value
    }
}
