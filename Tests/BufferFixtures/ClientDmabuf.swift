import Buffers

/// A client's dma-buf as the compositor hands it to a renderer or a display: its layout, with the
/// descriptor the client's wl_buffer lends, and no pixels the CPU may map; it counts the holds on it.
public final class ClientDmabuf: CountingHolds {
    public let layout: DmabufLayout
    public var holds = 0
    public var returned: () -> Void

    public init(_ layout: DmabufLayout, returned: @escaping () -> Void = {}) {
        self.layout = layout
        self.returned = returned
    }

    public var width: Int { layout.width }
    public var height: Int { layout.height }
    public var format: PixelFormat { layout.format }
    public var kind: BufferKind { .clientDmabuf }
    public var dmabuf: DmabufLayout? { layout }
    public func withPixels<Result>(_ body: (PixelRows) throws -> Result) rethrows -> Result? { nil }
}
