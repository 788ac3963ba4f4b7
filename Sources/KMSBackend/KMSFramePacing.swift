import DisplayBackend

/// How one frame on a KMS output was paced (CLOCK_MONOTONIC nanoseconds): for presentation logs
/// and the rig's checks that frames start just in time.
public struct FramePacing: Sendable, Equatable {
    /// When the frame was asked for (or, with a flip pending then, when the flip completed).
    public let requestedNanoseconds: UInt64
    /// The predicted time from start to commit, including the margin.
    public let leadNanoseconds: UInt64
    /// The refresh the frame was aimed at.
    public let target: Refresh
    /// When drawing started and when the page flip was committed.
    public internal(set) var startedNanoseconds: UInt64
    public internal(set) var committedNanoseconds: UInt64
}
