/// A buffer a client lends the compositor (a wl_buffer), which it gets back once the compositor no
/// longer reads it: whatever reads it later than the call it was handed in holds it meanwhile (a
/// surface until a frame read it or a commit replaced it, a frame on the GPU, a display scanning
/// it out), and the last `endHold()` gives it back, as the last unlock of wlroots' `wlr_buffer`
/// does. Holds are counts on the buffer itself: a buffer committed again and again costs no
/// object per commit.
public protocol LentBuffer: PixelBuffer {
    /// Keeps the buffer from its client until a matching `endHold()`.
    func hold()
    /// Ends one `hold()`; the last gives the buffer back to its client.
    func endHold()
}
