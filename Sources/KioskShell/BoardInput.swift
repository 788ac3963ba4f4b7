import BoardConfig
import Compositor
import Input

/// The board's input settings, applied to the compositor and to the devices libinput opens.
public enum BoardInput {
    /// What libinput sets on each device as it is added: every mapped touchscreen's calibration
    /// matrix, matched by the device's name, and natural scrolling where the board chose it.
    public static func deviceConfiguration(for input: BoardConfig.InputConfiguration) throws -> Input.InputConfiguration {
        var rules: [CalibrationRule] = []
        for touchscreen in input.touchscreens {
            let matrix = try CalibrationMatrix(touchscreen.calibration.coefficients.map { Float($0) })
            rules.append(CalibrationRule(pattern: touchscreen.deviceName, matrix: matrix))
        }
        return Input.InputConfiguration(calibrationRules: rules, naturalScrolling: input.naturalScrolling)
    }

    /// The keymap and repeat clients get, the touchscreens' outputs, and whether the cursor shows.
    public static func apply(_ board: BoardConfiguration, to compositor: Compositor) throws {
        let keyboard = board.input.keyboard
        try compositor.seat.setKeymap(
            layout: keyboard.layout, variant: keyboard.variant.isEmpty ? nil : keyboard.variant,
            options: keyboard.options.isEmpty ? nil : keyboard.options.joined(separator: ","))
        let delay = keyboard.repeatDelay.components
        compositor.seat.setKeyRepeat(
            rate: Int32(keyboard.repeatRate),
            delay: Int32(delay.seconds * 1000 + delay.attoseconds / 1_000_000_000_000_000))
        for touchscreen in board.input.touchscreens {
            compositor.mapTouchscreen(named: touchscreen.deviceName, toOutput: touchscreen.output)
        }
        compositor.cursorVisibility = board.cursor.isVisible ? .automatic : .hidden
    }
}
