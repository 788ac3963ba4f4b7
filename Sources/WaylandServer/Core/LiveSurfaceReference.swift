/// A strong reference to a surface that lets go of it when the surface is destroyed: for a
/// reference that must neither keep a destroyed surface nor be weak (docs/architecture.md: a weak
/// reference would give the surface, which every frame retains, a side table).
public final class LiveSurfaceReference {
    /// The surface, nil from its destruction on.
    public private(set) var surface: Surface?
    private var destruction: ResourceDestructionListener?

    public init(_ surface: Surface) {
        self.surface = surface
        // Unowned: this object owns the listener, whose deinit unhooks it.
        destruction = ResourceDestructionListener(surface) { [unowned self] in self.surface = nil }
    }
}
