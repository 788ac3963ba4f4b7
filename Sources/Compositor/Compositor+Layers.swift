import LayerKit
import WaylandServer

extension Compositor {
    /// The layer that shows `surface` and its subsurfaces (nil until its first commit). Anything
    /// LayerKit does to it — opacity, transforms, animations such as a fade between two apps —
    /// applies to what the client drew; the client's own commits keep replacing only its contents.
    public func layer(for surface: Surface) -> Layer? {
        node(for: surface)?.container
    }
}
