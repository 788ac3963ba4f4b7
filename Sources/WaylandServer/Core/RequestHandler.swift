internal import CWaylandServer
import Glibc
import WaylandProtocols

/// A resource class that handles its interface's requests, decoded. The bindings generated from
/// the protocol XML (for the classes `resource-classes.txt` names) give the class its `interface`,
/// its `Request` enum and `decode`, and an `Event` enum with `send(_:)`; the class itself says
/// what each request does in `handle(_:)`.
protocol RequestHandler: Resource {
    associatedtype Request
    static var interface: Interface { get }
    static func decode(_ opcode: UInt32, _ arguments: MessageReader) throws(ProtocolError) -> Request
    func handle(_ request: Request) throws(ProtocolError)
    /// Decodes request `opcode` and has `resource` (an instance of the class) handle it. A
    /// requirement, so that every class's witness is specialized for it: through a generic
    /// function, each request looked its `Request` type up at run time.
    static func dispatch(_ resource: Resource, _ opcode: UInt32, _ arguments: MessageReader) throws(ProtocolError)
}

extension RequestHandler {
    static func dispatch(_ resource: Resource, _ opcode: UInt32, _ arguments: MessageReader) throws(ProtocolError) {
        try unsafeDowncast(resource, to: Self.self).handle(decode(opcode, arguments))
    }
}

extension RequestHandler where Request == Never {
    /// An interface without requests (wl_callback) has nothing to handle.
    func handle(_ request: Never) throws(ProtocolError) {}
}

/// What the generated `send(_:)` posts events through: every `Resource`, and `Buffer` for any
/// wl_buffer (libwayland's wl_shm ones too).
protocol EventSender {
    /// The version the client bound or created the object with; newer events are left out.
    var version: UInt32 { get }
    /// The wl_resource events go to; nil once it is destroyed (events are then dropped).
    var eventTarget: OpaquePointer? { get }
}

extension EventSender {
    /// Sends event `opcode`, which has no arguments (the generated `send(_:)` checks its version first).
    func post(_ opcode: UInt32) {
        guard let eventTarget else { return }
        wl_resource_post_event_array(eventTarget, opcode, nil)
    }

    /// Sends event `opcode`, whose one argument is the uint `value`, laid out here: a frame
    /// callback's `done`, sent for every frame, cost some 130 instructions more through the
    /// generic marshalling of `post(_:_:count:)` (the generated `send(_:)` checks versions first;
    /// a caller of this does).
    func post(_ opcode: UInt32, uint value: UInt32) {
        guard let eventTarget else { return }
        var argument = wl_argument()
        argument.u = value
        wl_resource_post_event_array(eventTarget, opcode, &argument)
    }

    /// Sends event `opcode` with `arguments`: one `WireArgument`, or a tuple of `count` of them
    /// (the generated `send(_:)` checks its version first). A tuple rather than an array: it lies
    /// on the stack, where an array was a heap allocation for every event.
    func post<Arguments>(_ opcode: UInt32, _ arguments: Arguments, count: Int) {
        precondition(MemoryLayout<Arguments>.stride == count * MemoryLayout<WireArgument>.stride, "\(Arguments.self) is not \(count) arguments")
        guard let eventTarget else { return }
        withUnsafePointer(to: arguments) { tuple in
            // A tuple of one type lays its elements out as an array does.
            tuple.withMemoryRebound(to: WireArgument.self, capacity: count) { first in
                WireArgument.withMarshalled(UnsafeBufferPointer(start: first, count: count)) {
                    wl_resource_post_event_array(eventTarget, opcode, $0)
                }
            }
        }
    }
}

/// An object argument of an interface that no one class of Vitrine's dispatches: wl_buffer, which
/// libwayland's wl_shm makes as well as Vitrine's own buffer kinds.
struct ForeignObject {
    let raw: OpaquePointer

    var id: UInt32 { wl_resource_get_id(raw) }
}

extension MessageReader {
    /// An object argument the XML allows to be null, as Vitrine's resource of class `type`.
    func resource<R: Resource>(_ index: Int, as type: R.Type) throws(ProtocolError) -> R? {
        guard let raw = object(index) else { return nil }
        guard let resource = Resource.own(raw) as? R else { throw Self.notOwn(raw) }
        return resource
    }

    /// An object argument that cannot be null (libwayland has checked that it is not, and that it
    /// is of the interface the XML names), as Vitrine's resource of class `type`.
    func requiredResource<R: Resource>(_ index: Int, as type: R.Type) throws(ProtocolError) -> R {
        guard let raw = object(index) else { throw ProtocolError(code: 0, "argument \(index) is null") }
        guard let resource = Resource.own(raw) as? R else { throw Self.notOwn(raw) }
        return resource
    }

    func foreignObject(_ index: Int) -> ForeignObject? {
        object(index).map(ForeignObject.init)
    }

    func requiredForeignObject(_ index: Int) throws(ProtocolError) -> ForeignObject {
        guard let raw = object(index) else { throw ProtocolError(code: 0, "argument \(index) is null") }
        return ForeignObject(raw: raw)
    }

    private static func notOwn(_ raw: OpaquePointer) -> ProtocolError {
        ProtocolError(code: 0, "\(String(cString: wl_resource_get_class(raw)))@\(wl_resource_get_id(raw)) is not an object this compositor made")
    }
}
