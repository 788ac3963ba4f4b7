import DisplayBackend
import SystemCalls
import WaylandServer

/// What tells the kiosk shell that its app hung or stopped drawing (it restarts it then): pings a
/// client must answer within `pingTimeoutMilliseconds`, and when each client process last
/// committed a new buffer.
extension Compositor {
    /// How long a client has to answer a ping.
    public var pingTimeoutMilliseconds: Int32 {
        get { shell.pingTimeoutMilliseconds }
        set { shell.pingTimeoutMilliseconds = newValue }
    }

    /// Pings every client whose process `belongs` accepts (and that has an xdg_wm_base); an
    /// unanswered ping ends in `clientUnresponsive`.
    public func pingClients(where belongs: (Int32) -> Bool) {
        for client in display.connectedClients where belongs(client.processID) {
            do {
                try shell.ping(client)
            } catch {
                logger.error("cannot ping client \(client.processID): \(error)")
            }
        }
    }

    /// A client left a ping unanswered (the window policy hears it, as xdg-shell's handler):
    /// logged, and passed on to `clientUnresponsive`.
    public func clientDidNotAnswerPing(_ client: Client) {
        logger.warning("client \(client.processID) did not answer a ping")
        clientUnresponsive?(client.processID)
    }

    /// When a client of a process that `belongs` accepts last committed a new buffer (monotonic
    /// ns), nil when none has: how the kiosk shell tells an app that stopped drawing.
    public func lastNewBufferNanoseconds(where belongs: (Int32) -> Bool) -> UInt64? {
        lastNewBuffer.filter { belongs($0.key) }.values.max()
    }

    /// Counts the new buffers of `surface` as `process`'s (nil: its client's again): an X
    /// window's surface is Xwayland's, but what it shows is the X client's drawing, and the
    /// kiosk shell asks whether its app draws.
    public func countBuffers(of surface: Surface, asProcess process: Int32?) {
        bufferProcesses[ObjectIdentifier(surface)] = process
    }

    func noteNewBuffer(from process: Int32) {
        let now = loopClock.now
        // The process of the last new buffer again (the kiosk's app, every frame): its time
        // written where it lies, without hashing its key.
        if let slot = lastNewBufferSlot, slot.process == process {
            lastNewBuffer.values[slot.index] = now
            return
        }
        lastNewBuffer[process] = now
        // Processes come and go over months of restarts: keep only those still connected.
        if lastNewBuffer.count > 64 {
            let connected = Set(display.connectedClients.map(\.processID) + bufferProcesses.values)
            lastNewBuffer = lastNewBuffer.filter { connected.contains($0.key) }
        }
        lastNewBufferSlot = lastNewBuffer.index(forKey: process).map { (process, $0) }
    }
}
