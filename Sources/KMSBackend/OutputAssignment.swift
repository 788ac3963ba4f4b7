/// What the outputs of a DRM device can be driven by, as plain numbers: the connectors with the
/// CRTCs their encoders allow, and the planes with the CRTCs they can serve (bit i of a mask is
/// the device's i-th CRTC, as the kernel's possible_crtcs fields count them).
public struct KMSTopology: Sendable, Equatable {
    public struct Connector: Sendable, Equatable {
        public var name: String
        public var isConnected: Bool
        /// The CRTCs (by index) any of its encoders can drive.
        public var possibleCRTCs: UInt32
        /// The CRTC (by index) driving it now, if any: kept where possible, to spare a modeset.
        public var currentCRTC: Int?

        public init(name: String, isConnected: Bool, possibleCRTCs: UInt32, currentCRTC: Int? = nil) {
            self.name = name
            self.isConnected = isConnected
            self.possibleCRTCs = possibleCRTCs
            self.currentCRTC = currentCRTC
        }
    }

    public struct Plane: Sendable, Equatable {
        public var id: UInt32
        public var possibleCRTCs: UInt32

        public init(id: UInt32, possibleCRTCs: UInt32) {
            self.id = id
            self.possibleCRTCs = possibleCRTCs
        }
    }

    /// The CRTCs' object ids, by index.
    public var crtcs: [UInt32]
    public var connectors: [Connector]
    /// Primary planes that scan out the frames' format, and cursor planes that take ARGB8888.
    public var primaryPlanes: [Plane]
    public var cursorPlanes: [Plane]

    public init(crtcs: [UInt32], connectors: [Connector], primaryPlanes: [Plane], cursorPlanes: [Plane]) {
        self.crtcs = crtcs
        self.connectors = connectors
        self.primaryPlanes = primaryPlanes
        self.cursorPlanes = cursorPlanes
    }

    /// What drives one connector.
    public struct Assignment: Sendable, Equatable {
        public var connector: String
        public var crtc: UInt32
        public var primaryPlane: UInt32
        public var cursorPlane: UInt32?

        public init(connector: String, crtc: UInt32, primaryPlane: UInt32, cursorPlane: UInt32?) {
            self.connector = connector
            self.crtc = crtc
            self.primaryPlane = primaryPlane
            self.cursorPlane = cursorPlane
        }
    }

    /// Why a connector cannot be driven.
    public enum Failure: Error, Sendable, Equatable {
        /// Every CRTC its encoders allow is taken (or has no free primary plane).
        case noCRTC(connector: String)
    }

    /// Gives each of `wanted` (connector names, most important first) its own CRTC, primary plane
    /// and, with `cursors`, a cursor plane where its CRTC has one; CRTCs and planes in `taken`
    /// (those of outputs already lit) are left alone.
    ///
    /// The CRTCs are a maximum matching (augmenting paths), so that a connector that could use
    /// several CRTCs does not take the only one another connector can use; each connector tries
    /// the CRTC driving it now first, then the others in the device's order; a connector met
    /// earlier is moved to another CRTC only when that lets a later one be lit, and never loses
    /// its own. A connector that cannot be matched fails alone. Planes then go in order of
    /// importance.
    public func assign(
        _ wanted: [String], takenCRTCs: Set<UInt32> = [], takenPlanes: Set<UInt32> = [], cursors: Bool = true
    ) -> [(connector: String, result: Result<Assignment, Failure>)] {
        // A CRTC is usable when it is free and a free primary plane can serve it.
        let usable = crtcs.indices.filter { index in
            !takenCRTCs.contains(crtcs[index])
                && primaryPlanes.contains { $0.possibleCRTCs & (1 << index) != 0 && !takenPlanes.contains($0.id) }
        }
        let candidates: [[Int]] = wanted.map { name in
            guard let connector = connectors.first(where: { $0.name == name }) else { return [] }
            let allowed = usable.filter { connector.possibleCRTCs & (1 << $0) != 0 }
            guard let current = connector.currentCRTC, allowed.contains(current) else { return allowed }
            return [current] + allowed.filter { $0 != current }
        }
        // matchedTo[crtc index] = index in `wanted`.
        var matchedTo: [Int: Int] = [:]
        // A free CRTC first; only then one whose holder can move to another (an augmenting path),
        // so that nobody moves without need.
        func augment(_ connector: Int, _ visited: inout Set<Int>) -> Bool {
            if let free = candidates[connector].first(where: { matchedTo[$0] == nil && !visited.contains($0) }) {
                visited.insert(free)
                matchedTo[free] = connector
                return true
            }
            for crtc in candidates[connector] where !visited.contains(crtc) {
                visited.insert(crtc)
                if let holder = matchedTo[crtc], augment(holder, &visited) {
                    matchedTo[crtc] = connector
                    return true
                }
            }
            return false
        }
        for connector in wanted.indices {
            var visited: Set<Int> = []
            _ = augment(connector, &visited)
        }
        var crtcOf: [Int: Int] = [:]
        for (crtc, connector) in matchedTo { crtcOf[connector] = crtc }
        // Planes in order of importance: each matched CRTC had a free primary plane, but two CRTCs
        // may share their only candidates, so a later one can still come up empty.
        var usedPlanes = takenPlanes
        return wanted.enumerated().map { position, name in
            guard let crtcIndex = crtcOf[position],
                  let primary = primaryPlanes.first(where: { $0.possibleCRTCs & (1 << crtcIndex) != 0 && !usedPlanes.contains($0.id) })
            else { return (name, .failure(.noCRTC(connector: name))) }
            usedPlanes.insert(primary.id)
            let cursor = cursors ? cursorPlanes.first { $0.possibleCRTCs & (1 << crtcIndex) != 0 && !usedPlanes.contains($0.id) } : nil
            if let cursor { usedPlanes.insert(cursor.id) }
            return (name, .success(Assignment(connector: name, crtc: crtcs[crtcIndex], primaryPlane: primary.id, cursorPlane: cursor?.id)))
        }
    }
}

/// Which connectors a configuration lights, given which are connected now.
public enum ConnectorChoice {
    /// `named` (the board's outputs, most important first): those connected, in that order;
    /// empty names every connected connector in the device's order.
    public static func wanted(named: [String], connectors: [(name: String, isConnected: Bool)]) -> [String] {
        let connected = connectors.filter(\.isConnected).map(\.name)
        guard !named.isEmpty else { return connected }
        return named.filter { connected.contains($0) }
    }

    /// What a hotplug changes: the lit outputs whose connector is no longer wanted go (in their
    /// order), the wanted connectors without an output come (in order of importance).
    public static func changes(lit: [String], wanted: [String]) -> (removed: [String], added: [String]) {
        (lit.filter { !wanted.contains($0) }, wanted.filter { !lit.contains($0) })
    }
}
