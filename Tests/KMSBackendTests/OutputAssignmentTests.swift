import KMSBackend
import Testing

/// Which CRTC and planes drive which connector, and what a hotplug changes: pure maths over a
/// described device, so every case is exact.
@Suite struct OutputAssignmentTests {
    /// Two CRTCs (ids 40, 41), each with its own primary plane (31, 32) and cursor plane (33, 34).
    private func twoCRTCs(_ connectors: [KMSTopology.Connector]) -> KMSTopology {
        KMSTopology(
            crtcs: [40, 41], connectors: connectors,
            primaryPlanes: [.init(id: 31, possibleCRTCs: 0b01), .init(id: 32, possibleCRTCs: 0b10)],
            cursorPlanes: [.init(id: 33, possibleCRTCs: 0b01), .init(id: 34, possibleCRTCs: 0b10)])
    }

    private func results(_ list: [(connector: String, result: Result<KMSTopology.Assignment, KMSTopology.Failure>)])
        -> [Result<KMSTopology.Assignment, KMSTopology.Failure>] {
        list.map(\.result)
    }

    @Test func eachConnectorGetsItsOwnCRTCWithThatCRTCsPlanes() {
        let topology = twoCRTCs([
            .init(name: "Virtual-1", isConnected: true, possibleCRTCs: 0b11),
            .init(name: "Virtual-2", isConnected: true, possibleCRTCs: 0b11),
        ])
        #expect(results(topology.assign(["Virtual-1", "Virtual-2"])) == [
            .success(.init(connector: "Virtual-1", crtc: 40, primaryPlane: 31, cursorPlane: 33)),
            .success(.init(connector: "Virtual-2", crtc: 41, primaryPlane: 32, cursorPlane: 34)),
        ])
        // Without the hardware cursor no cursor plane is taken.
        #expect(results(topology.assign(["Virtual-2"], cursors: false)) == [
            .success(.init(connector: "Virtual-2", crtc: 40, primaryPlane: 31, cursorPlane: nil)),
        ])
    }

    @Test func aConnectorThatCanUseEitherCRTCLeavesTheOnlyOneAnotherCanUse() {
        // HDMI can use both CRTCs, eDP only the first: greedy in order would give HDMI the first
        // and leave eDP none; the matching moves HDMI to the second.
        let topology = twoCRTCs([
            .init(name: "HDMI-A-1", isConnected: true, possibleCRTCs: 0b11),
            .init(name: "eDP-1", isConnected: true, possibleCRTCs: 0b01),
        ])
        #expect(results(topology.assign(["HDMI-A-1", "eDP-1"])) == [
            .success(.init(connector: "HDMI-A-1", crtc: 41, primaryPlane: 32, cursorPlane: 34)),
            .success(.init(connector: "eDP-1", crtc: 40, primaryPlane: 31, cursorPlane: 33)),
        ])
    }

    @Test func theCRTCDrivingAConnectorNowIsKept() {
        let topology = twoCRTCs([.init(name: "DP-1", isConnected: true, possibleCRTCs: 0b11, currentCRTC: 1)])
        #expect(results(topology.assign(["DP-1"])) == [.success(.init(connector: "DP-1", crtc: 41, primaryPlane: 32, cursorPlane: 34))])
    }

    @Test func crtcsAndPlanesOfLitOutputsAreLeftAloneAndTheMoreImportantConnectorWins() {
        let topology = twoCRTCs([
            .init(name: "Virtual-1", isConnected: true, possibleCRTCs: 0b11),
            .init(name: "Virtual-2", isConnected: true, possibleCRTCs: 0b11),
            .init(name: "Virtual-3", isConnected: true, possibleCRTCs: 0b11),
        ])
        // Virtual-1 already drives CRTC 40 with planes 31 and 33: a hotplugged Virtual-2 gets 41.
        #expect(results(topology.assign(["Virtual-2"], takenCRTCs: [40], takenPlanes: [31, 33])) == [
            .success(.init(connector: "Virtual-2", crtc: 41, primaryPlane: 32, cursorPlane: 34)),
        ])
        // Three connectors, two CRTCs: the last one named fails alone.
        #expect(results(topology.assign(["Virtual-3", "Virtual-1", "Virtual-2"])) == [
            .success(.init(connector: "Virtual-3", crtc: 40, primaryPlane: 31, cursorPlane: 33)),
            .success(.init(connector: "Virtual-1", crtc: 41, primaryPlane: 32, cursorPlane: 34)),
            .failure(.noCRTC(connector: "Virtual-2")),
        ])
        // Every CRTC taken: none left.
        #expect(results(topology.assign(["Virtual-3"], takenCRTCs: [40, 41])) == [.failure(.noCRTC(connector: "Virtual-3"))])
    }

    @Test func aCRTCWithoutAFreePrimaryPlaneCannotDriveAnything() {
        // One primary plane shared by both CRTCs: only one output can be lit, the more important.
        let topology = KMSTopology(
            crtcs: [40, 41],
            connectors: [.init(name: "A-1", isConnected: true, possibleCRTCs: 0b11), .init(name: "B-1", isConnected: true, possibleCRTCs: 0b10)],
            primaryPlanes: [.init(id: 31, possibleCRTCs: 0b11)], cursorPlanes: [])
        #expect(results(topology.assign(["A-1", "B-1"])) == [
            .success(.init(connector: "A-1", crtc: 40, primaryPlane: 31, cursorPlane: nil)),
            .failure(.noCRTC(connector: "B-1")),
        ])
        #expect(results(topology.assign(["B-1"], takenPlanes: [31])) == [.failure(.noCRTC(connector: "B-1"))])
        // A connector the device does not have cannot be driven.
        #expect(results(topology.assign(["C-1"])) == [.failure(.noCRTC(connector: "C-1"))])
    }

    @Test func theBoardsNamedConnectorsAreLitWhenConnectedInTheirOrder() {
        let connectors = [("Virtual-1", true), ("Virtual-2", false), ("HDMI-A-1", true)].map { (name: $0.0, isConnected: $0.1) }
        #expect(ConnectorChoice.wanted(named: [], connectors: connectors) == ["Virtual-1", "HDMI-A-1"])
        #expect(ConnectorChoice.wanted(named: ["HDMI-A-1", "Virtual-2", "Virtual-1"], connectors: connectors) == ["HDMI-A-1", "Virtual-1"])
        #expect(ConnectorChoice.wanted(named: ["DP-1"], connectors: connectors) == [])
    }

    @Test func aHotplugRemovesTheOutputsThatWentAndAddsTheConnectorsThatCame() {
        #expect(ConnectorChoice.changes(lit: ["Virtual-1"], wanted: ["Virtual-1", "Virtual-2"]) == ([], ["Virtual-2"]))
        #expect(ConnectorChoice.changes(lit: ["Virtual-1", "Virtual-2"], wanted: ["Virtual-1"]) == (["Virtual-2"], []))
        #expect(ConnectorChoice.changes(lit: ["Virtual-1", "Virtual-2"], wanted: []) == (["Virtual-1", "Virtual-2"], []))
        #expect(ConnectorChoice.changes(lit: ["Virtual-2"], wanted: ["Virtual-1", "HDMI-A-1"]) == (["Virtual-2"], ["Virtual-1", "HDMI-A-1"]))
        #expect(ConnectorChoice.changes(lit: ["Virtual-1"], wanted: ["Virtual-1"]) == ([], []))
    }
}
