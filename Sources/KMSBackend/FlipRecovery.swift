import Glibc
import SystemCalls

/// What an output does when the driver refuses a frame's nonblocking commit, so that a refusal
/// leaves the display neither black nor frozen: one value per frame, asked after each refusal.
///
/// - EBUSY (a commit the kernel has not finished, a fence holding the flip): the same frame is
///   committed again a refresh later, three times at most.
/// - EACCES, EPERM (DRM master went to another session): nothing more; the session's return
///   sets the mode again and draws a frame.
/// - Anything else (EINVAL, ERANGE, ENOSPC: a configuration the driver or its bandwidth refuse):
///   a client's buffer scanned out directly is composed instead; a commit that carried the cursor
///   plane is made again with the plane off for good (the cursor is drawn into frames); then the
///   whole state is set again in one blocking modeset with the frame's buffer; then the frame is
///   given up, and the display keeps what it showed.
struct FlipRecovery: Equatable {
    /// What a refused commit carried.
    struct Commit: Equatable {
        /// A client's buffer on the primary plane instead of a composed frame.
        var directScanout = false
        /// The cursor plane, shown or changed.
        var cursorPlane = false
    }

    enum Step: Equatable {
        case retryAfterRefresh
        case compose
        case retryWithoutCursorPlane
        case modeset
        case giveUp
    }

    static let maximumBusyRetries = 3
    private var busyRetries = 0
    private var triedModeset = false

    /// The next step after the driver refused `commit` with `errno`.
    mutating func refused(_ errno: Errno, commit: Commit) -> Step {
        if errno == .resourceBusy, busyRetries < Self.maximumBusyRetries {
            busyRetries += 1
            return .retryAfterRefresh
        }
        if errno == .permissionDenied || errno == .notPermitted { return .giveUp }
        if commit.directScanout { return .compose }
        if commit.cursorPlane { return .retryWithoutCursorPlane }
        guard !triedModeset else { return .giveUp }
        triedModeset = true
        return .modeset
    }
}
