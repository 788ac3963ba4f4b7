import ArgumentParser
import Input

/// Lists the input devices libinput finds, the names a board configuration's calibration rules match.
struct ListInputs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list-inputs",
        abstract: "List input devices: event node, name, USB/virtual IDs, capabilities and physical size.",
        discussion: """
            Without --device, lists the devices udev assigns to the seat (needs root or the input group, and udevd). \
            Opening devices to list them does not grab them, so this works while Vitrine or another compositor runs. \
            Calibration rules in a board configuration match the quoted name or the event node's name. Example output:

              seat0
                event0: "QEMU Virtio Keyboard" [0627:0001] keyboard; size unknown
                event1: "QEMU Virtio Tablet" [0627:0003] pointer; size unknown; calibratable
                event2: "ILITEK Multi-Touch" [222a:0001] touch; 344×194 mm; calibratable
            """)

    @Option(name: .customLong("device"), help: "An evdev node to list (repeatable); lists only these instead of a seat.")
    var devicePaths: [String] = []

    @Option(help: "The udev seat whose devices to list (default: seat0).")
    var seat: String?

    func validate() throws {
        if seat != nil, !devicePaths.isEmpty {
            throw ValidationError("--seat and --device exclude each other: list a seat, or the given nodes")
        }
    }

    func run() throws {
        let context: InputContext
        let heading: String
        if devicePaths.isEmpty {
            let seat = seat ?? "seat0"
            context = try InputContext(seat: seat)
            heading = seat
        } else {
            context = try InputContext(devicePaths: devicePaths)
            heading = devicePaths.joined(separator: " ")
        }
        // A seat's devices arrive as device-added events; dispatching registers them.
        _ = try context.dispatch()
        print(heading)
        if context.devices.isEmpty {
            print("  no input devices (is this root or in the input group, and is udevd running?)")
        }
        for device in context.devices { print("  \(device)") }
    }
}
