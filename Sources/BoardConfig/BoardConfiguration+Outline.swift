extension BoardConfiguration {
    /// A few lines that tell a person what the board will do, one subject a line (what
    /// `vitrine check-config` prints for a valid file).
    public func outline() -> [String] {
        var lines = [summary.map { "board \(name): \($0)" } ?? "board \(name)"]
        var placedBefore = false
        for output in outputs {
            var parts: [String] = []
            switch output.mode {
            case .preferred: parts.append("preferred mode")
            case .exact(let width, let height, let refreshRate):
                parts.append("\(width)x\(height)" + (refreshRate.map { " at \(formatNumber($0)) Hz" } ?? ""))
            }
            parts.append("scale \(formatNumber(output.scale))")
            if output.transform != .normal { parts.append("rotation \(output.transform.rawValue)") }
            switch output.placement {
            case .automatic: parts.append(placedBefore ? "right of the rightmost output before it, top-aligned" : "at 0,0")
            case .position(let x, let y): parts.append("at \(x),\(y)")
            case .mirror(let source): parts.append("mirrors \(source), scaled to fit, no wl_output")
            }
            if case .mirror = output.placement {} else { placedBefore = true }
            lines.append("output \(output.connector): " + parts.joined(separator: ", "))
        }
        let keyboard = input.keyboard
        var layout = keyboard.layout
        if !keyboard.variant.isEmpty { layout += " (\(keyboard.variant))" }
        if !keyboard.options.isEmpty { layout += " [\(keyboard.options.joined(separator: ", "))]" }
        let repeatDelay = keyboard.repeatDelay.components.seconds * 1000
            + keyboard.repeatDelay.components.attoseconds / 1_000_000_000_000_000
        lines.append(
            "keyboard \(layout), "
                + (keyboard.repeatRate == 0
                    ? "no repeat" : "repeat \(keyboard.repeatRate)/s after \(repeatDelay) ms"))
        if let natural = input.naturalScrolling {
            lines.append("pointers: natural scrolling \(natural ? "on" : "off")")
        }
        for touchscreen in input.touchscreens {
            let calibrated = touchscreen.calibration == .identity ? "" : ", calibrated"
            lines.append("touchscreen \"\(touchscreen.deviceName)\" on \(touchscreen.output)\(calibrated)")
        }
        var app = "app " + self.app.command.joined(separator: " ")
        if let user = self.app.user { app += ", as \(user)" }
        if let directory = self.app.workingDirectory { app += ", in \(directory)" }
        if !self.app.x11 { app += ", no X11" }
        if self.app.fit != .center { app += ", windows fitted by \(self.app.fit)" }
        lines.append(app)
        let blank = idle.blankAfter.map { "blank after \($0.components.seconds) s" } ?? "never blank"
        lines.append("idle: \(blank)" + (idle.wakesOnTouch ? ", a touch wakes" : ", a touch does not wake"))
        lines.append("cursor " + (cursor.isVisible ? "visible" : "hidden"))
        lines.append(
            "splash " + (splash.imagePath.map { "\($0) on " } ?? "") + splash.backgroundColor.description
                + (splash.animation == .none ? "" : ", animated \(splash.animation.rawValue)"))
        if let printer {
            lines.append("printer \(printer.queue) (\(printer.paper.rawValue))" + (printer.server.map { " on \($0)" } ?? ""))
        }
        if onScreenKeyboard.isEnabled, onScreenKeyboard.keyboard == .external {
            lines.append("on-screen keyboard: external, " + onScreenKeyboard.externalCommand.joined(separator: " "))
        } else if onScreenKeyboard.isEnabled {
            lines.append(
                "on-screen keyboard \(onScreenKeyboard.layouts.joined(separator: ", "))"
                    + (onScreenKeyboard.heightShare.map { ", \(formatNumber($0 * 100))% of the output's height" } ?? "")
                    + (onScreenKeyboard.hidesWhenKeyboardAttached ? ", hidden while a keyboard is attached" : ""))
        }
        for grant in privileges {
            lines.append("privileges of \(grant.subject): " + grant.privileges.map(\.rawValue).joined(separator: ", "))
        }
        for entry in compatibility {
            lines.append("xdg-shell 4 for \(entry.subject)")
        }
        if renderer != .auto { lines.append("renderer \(renderer)") }
        return lines
    }
}

/// Numbers as people write them: `2`, not `2.0`.
func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}
