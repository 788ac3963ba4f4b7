/// wl_region: a region a client builds to set a surface's opaque or input region.
final class RegionResource: Resource, RequestHandler {
    /// More disjoint rectangles than any toolkit sends; each add or subtract costs time in
    /// proportion to the region's rectangles, so a client may not go past this.
    static let maximumRectangles = 16_384

    private(set) var region = Region()

    init(client: Client, id: UInt32) {
        super.init(RegionResource.self, client: client, version: 1, id: id)
    }

    func handle(_ request: Request) {
        switch request {
        case .destroy: destroy()
        case .add(let x, let y, let width, let height): region.add(IntRect(x: x, y: y, width: width, height: height))
        case .subtract(let x, let y, let width, let height): region.subtract(IntRect(x: x, y: y, width: width, height: height))
        }
        // wl_region defines no error: like an allocation the compositor refuses, the client is
        // told the server is out of memory for it.
        if region.rectangleCount > Self.maximumRectangles {
            region = Region()
            client.postNoMemory()
        }
    }
}
