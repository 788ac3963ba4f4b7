import DisplayBackend

/// The modes a connector offers, in the driver's order, and which one the display prefers.
public struct OfferedModes: Sendable, Equatable {
    public var modes: [OutputMode]
    /// The index of the mode the display flags as preferred, if any.
    public var preferred: Int?

    public init(modes: [OutputMode], preferred: Int?) {
        self.modes = modes
        self.preferred = preferred
    }
}

/// Which mode a connector is lit with, and which lit outputs need a new one after a hotplug: pure
/// maths over the offered modes, so every case is exact.
public enum ModeChoice {
    /// The index among `offered` of the mode to set. Without a request: the preferred mode, else
    /// the first. With one: its size, at the refresh closest to the one asked for within 1 Hz when
    /// it names one, otherwise the preferred mode of that size, else the first. nil when none fits.
    public static func choose(_ requested: KMSModeRequest?, among offered: OfferedModes) -> Int? {
        guard let requested else { return offered.preferred ?? (offered.modes.isEmpty ? nil : 0) }
        let sized = offered.modes.indices.filter {
            offered.modes[$0].width == requested.width && offered.modes[$0].height == requested.height
        }
        if let refresh = requested.refreshMillihertz {
            let distance = { (index: Int) in abs(offered.modes[index].refreshMillihertz - refresh) }
            return sized.filter { distance($0) <= 1000 }.min { distance($0) < distance($1) }
        }
        if let preferred = offered.preferred, sized.contains(preferred) { return preferred }
        return sized.first
    }

    /// What a hotplug means for an output whose display stayed connected.
    public enum Follow: Sendable, Equatable {
        /// The mode it shows is still the one to set.
        case keep
        /// Set the mode at this index of the offered modes.
        case change(to: Int)
        /// The board's mode is no longer offered: the output keeps the mode it shows.
        case requestedModeGone
    }

    /// A lit output as the choice sees it: its connector, the mode it shows, and the board's mode
    /// for it (nil: the display's preferred mode).
    public struct LitOutput: Sendable, Equatable {
        public var connector: String
        public var current: OutputMode
        public var requested: KMSModeRequest?

        public init(connector: String, current: OutputMode, requested: KMSModeRequest?) {
            self.connector = connector
            self.current = current
            self.requested = requested
        }
    }

    /// For each lit output whose connector offers modes now, what to do when that is not `keep`:
    /// an output that follows the preferred mode takes the new preferred mode; one with a board
    /// mode keeps it while the display offers it. A connector that lists no modes (gone, or not
    /// read) changes nothing.
    public static func changes(lit: [LitOutput], offered: [String: OfferedModes]) -> [(connector: String, follow: Follow)] {
        lit.compactMap { output in
            guard let modes = offered[output.connector], !modes.modes.isEmpty else { return nil }
            guard let index = choose(output.requested, among: modes) else { return (output.connector, .requestedModeGone) }
            return modes.modes[index] == output.current ? nil : (output.connector, .change(to: index))
        }
    }
}
