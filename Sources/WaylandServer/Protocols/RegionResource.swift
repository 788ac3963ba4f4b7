internal import CVitrineWayland

/// wl_region: a region a client builds to set a surface's opaque or input region.
final class RegionResource: Resource {
    /// More disjoint rectangles than any toolkit sends; each add or subtract costs time in
    /// proportion to the region's rectangles, so a client may not go past this.
    static let maximumRectangles = 16_384

    private(set) var region = Region()

    init(client: Client, id: UInt32) {
        super.init(client: client, interface: vitrine_wl_region_interface(), version: 1, id: id)
    }

    override func handle(_ opcode: UInt32, _ arguments: Arguments) throws(ProtocolError) {
        let rectangle = { IntRect(x: arguments.int(0), y: arguments.int(1), width: arguments.int(2), height: arguments.int(3)) }
        switch opcode {
        case 0: destroy()
        case 1: region.add(rectangle())
        case 2: region.subtract(rectangle())
        default: try super.handle(opcode, arguments)
        }
        // wl_region defines no error: like an allocation the compositor refuses, the client is
        // told the server is out of memory for it.
        if region.rectangleCount > Self.maximumRectangles {
            region = Region()
            client.postNoMemory()
        }
    }
}
