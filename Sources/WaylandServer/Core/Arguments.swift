internal import CWaylandServer
import Glibc

/// The decoded arguments of one request, read by position as the protocol XML orders them.
struct Arguments {
    let message: UnsafePointer<wl_message>
    let values: UnsafeMutablePointer<wl_argument>?

    private func value(_ index: Int) -> wl_argument {
        values![index]
    }

    func int(_ index: Int) -> Int32 { value(index).i }
    /// A surface-space coordinate or length (a position, offset, size or hotspot), clamped where it
    /// enters (see `ClientCoordinate`).
    func coordinate(_ index: Int) -> Int32 { ClientCoordinate.clamp(Int64(int(index))) }
    /// The x, y, width and height at `index`…`index + 3`, each a coordinate.
    func rectangle(at index: Int) -> IntRect {
        IntRect(x: coordinate(index), y: coordinate(index + 1), width: coordinate(index + 2), height: coordinate(index + 3))
    }
    func uint(_ index: Int) -> UInt32 { value(index).u }
    func fixed(_ index: Int) -> Double { wl_fixed_to_double(value(index).f) }
    func string(_ index: Int) -> String? { value(index).s.map { String(cString: $0) } }
    /// A string argument that must be UTF-8: nil when null or not UTF-8 (`string` repairs it instead).
    func validUTF8String(_ index: Int) -> String? { value(index).s.flatMap { String(validatingCString: $0) } }
    func newID(_ index: Int) -> UInt32 { value(index).n }

    /// A file descriptor the request carries; the receiver owns it and must close it.
    func fileDescriptor(_ index: Int) -> Int32 { value(index).h }

    func bytes(_ index: Int) -> [UInt8] {
        guard let array = value(index).a, let data = array.pointee.data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: array.pointee.size))
    }

    /// The raw resource of an object argument (libwayland has checked its interface).
    func rawObject(_ index: Int) -> OpaquePointer? {
        value(index).o
    }

    /// An object argument as Vitrine's own resource of type `T` (nil when null or not one of ours).
    func object<T: Resource>(_ index: Int, as type: T.Type = T.self) -> T? {
        rawObject(index).flatMap { Resource.own($0) as? T }
    }

    /// The interface a new_id argument must be created with (as the message's signature says).
    func interface(ofArgument index: Int) -> UnsafePointer<wl_interface>? {
        message.pointee.types?[index]
    }
}

/// The range surface-space values from clients are kept in: ±2²⁴, far beyond any output, so that
/// the sums and negations made of a few of them downstream (window origins, popup placement,
/// accumulated offsets) cannot overflow 32 bits. A rectangle at x = −2³¹ is not one a client means.
enum ClientCoordinate {
    static let limit: Int64 = 1 << 24

    static func clamp(_ value: Int64) -> Int32 {
        Int32(min(max(value, -limit), limit))
    }

    /// A surface-space coordinate or length a request carries (a position, offset, size or hotspot).
    static func clamp(_ value: Int32) -> Int32 {
        clamp(Int64(value))
    }

    /// A request's x, y, width and height, each a coordinate.
    static func rectangle(x: Int32, y: Int32, width: Int32, height: Int32) -> IntRect {
        IntRect(x: clamp(x), y: clamp(y), width: clamp(width), height: clamp(height))
    }

    /// `a + b`, for values that accumulate (wl_surface.offset).
    static func sum(_ a: Int32, _ b: Int32) -> Int32 {
        clamp(Int64(a) + Int64(b))
    }
}

/// One argument of an event.
enum EventArgument {
    case int(Int32)
    case uint(UInt32)
    case fixed(Double)
    case string(String?)
    case object(Resource?)
    case bytes([UInt8])
    /// libwayland duplicates the descriptor while marshalling; the caller keeps its own.
    case fileDescriptor(Int32)

    /// Lays the arguments out as `wl_argument`s, keeping strings and arrays alive during `body`.
    static func withMarshalled(_ arguments: [EventArgument], _ body: (UnsafeMutablePointer<wl_argument>) -> Void) {
        var storage: [UnsafeMutableRawPointer] = []
        defer { storage.forEach { $0.deallocate() } }
        var values = arguments.map { argument -> wl_argument in
            var value = wl_argument()
            switch argument {
            case .int(let v): value.i = v
            case .uint(let v): value.u = v
            case .fixed(let v): value.f = wl_fixed_from_double(v)
            case .string(let text):
                if let text {
                    let bytes = Array(text.utf8CString)
                    let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
                    bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
                    storage.append(copy)
                    value.s = UnsafePointer(copy.assumingMemoryBound(to: CChar.self))
                }
            case .object(let resource): value.o = resource?.raw
            case .bytes(let bytes):
                let array = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<wl_array>.size + max(1, bytes.count), alignment: 16)
                storage.append(array)
                let data = array + MemoryLayout<wl_array>.size
                bytes.withUnsafeBytes { if let base = $0.baseAddress { data.copyMemory(from: base, byteCount: bytes.count) } }
                let header = array.assumingMemoryBound(to: wl_array.self)
                header.initialize(to: wl_array(size: bytes.count, alloc: bytes.count, data: data))
                value.a = header
            case .fileDescriptor(let fd): value.h = fd
            }
            return value
        }
        values.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
