internal import CDRM
import DisplayBackend
import Glibc
import SystemCalls

/// Outputs whose display stays connected but offers another preferred mode after a hotplug (a
/// monitor swapped on the same port, a virtual display resized).
extension KMSBackend {
    /// Sets the new mode of each lit output that follows its display's preferred mode when that
    /// changed (a board's explicit mode is kept while the display offers it); `outputModeChanged`
    /// follows each. A mode the driver refuses leaves the output as it was.
    func followModes(_ probe: Probe) {
        let lit = kmsOutputs.map { output in
            ModeChoice.LitOutput(connector: output.name, current: output.mode, requested: configuration.resolved(for: output.name).mode)
        }
        for output in kmsOutputs { output.offeredModes = probe.modes[output.name] ?? [] }
        for (name, follow) in ModeChoice.changes(lit: lit, offered: probe.offered) {
            guard let output = kmsOutputs.first(where: { $0.name == name }) else { continue }
            switch follow {
            case .keep:
                break
            case .requestedModeGone:
                let requested = configuration.resolved(for: name).mode?.description ?? "preferred"
                onHotplugMessage?("\(name) no longer offers the board's mode \(requested): it stays at \(output.mode)")
            case .change(let index):
                guard let info = probe.modes[name]?[index] else { continue }
                let previous = output.mode
                waitForFlip(of: output)
                do throws(KMSError) {
                    try output.changeMode(to: info)
                    onHotplugMessage?("\(name) changed mode from \(previous) to \(output.mode)")
                    outputModeChanged.emit(output)
                } catch {
                    onHotplugMessage?("\(name) now prefers \(OutputMode(info)), which cannot be set: \(error); it stays at \(previous)")
                }
            }
        }
    }

    /// Handles DRM events until `output` has no commit in flight (at most a second: a flip that
    /// never reports back is given up on), so that the modeset does not race its flip event.
    private func waitForFlip(of output: KMSOutput) {
        let deadline = monotonicNanoseconds() + 1_000_000_000
        while output.hasCommitInFlight, monotonicNanoseconds() < deadline {
            var entry = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 100) > 0, entry.revents & Int16(POLLIN) != 0 { handleEvents() }
        }
    }
}
