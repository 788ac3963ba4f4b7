/// A protocol enum (`xdg_toplevel.resize_edge`, `wl_surface.error`) as the bindings generate it:
/// an open set of values, as Swift imports a C enum, so that a number the XML does not define
/// reaches the handler as itself (which then posts the protocol's own error for it) and a test can
/// send one. Bitfields are also `OptionSet`s.
public protocol WaylandEnumeration: RawRepresentable, Hashable, Sendable where RawValue == UInt32 {
    init(rawValue: UInt32)
    /// Whether the XML defines the value (for a bitfield: every bit set is one of its flags).
    var isKnown: Bool { get }
}
