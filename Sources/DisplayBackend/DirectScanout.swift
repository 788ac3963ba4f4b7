import Buffers

/// An output that can show a client's buffer on its primary plane as the frame (direct scanout).
public protocol DirectScanoutOutput: BackendOutput {
    /// Shows `buffer` as the frame for `request` when the device takes it on the primary plane as
    /// it is (a TEST_ONLY commit decides), and returns true; `presented` follows, with the
    /// zero-copy flag. False when the device refuses it: nothing was committed, and the frame is
    /// to be composed. `released` is called once the buffer is no longer scanned out (a later
    /// frame replaced it, or the output stopped showing it); until then the client must not
    /// write into it.
    func scanOut(_ buffer: DmabufLayout, for request: FrameRequest, released: @escaping () -> Void) throws -> Bool
}
