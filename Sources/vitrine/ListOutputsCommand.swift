import ArgumentParser
import Compositor
import KMSBackend
import Renderer

/// Lists a DRM device's connectors and modes: the names a board configuration's `connector` and
/// `mode` take.
struct ListOutputs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list-outputs",
        abstract: "List the display connectors of a DRM device, whether a display is connected, and its modes.",
        discussion: """
            Reading the connectors does not take the display over, so this works while Vitrine or another compositor runs. Example output:

              /dev/dri/card0
                Virtual-1: connected, modes 1024x768@74.993 (preferred), 5120x2160@50.0, …
                frames with the Vulkan renderer: GBM buffer objects, linear (the device takes no format modifiers)
                frames with the CPU renderer: dumb buffers (the CPU renderer writes through a mapping)
            """)

    @Option(help: "The DRM device (default: the first /dev/dri/card* with a connected display).")
    var device: String?

    func run() throws {
        let (path, connectors) = try KMSBackend.connectors(devicePath: device)
        print(path)
        for connector in connectors { print("  \(connector)") }
        // The buffers of an output at the first connected display's preferred mode, with either
        // renderer (which one `auto` picks depends on the board and the machine: the log says).
        if let connected = connectors.first(where: { $0.isConnected && !$0.modes.isEmpty }) {
            let mode = connected.modes[connected.preferredMode ?? 0]
            do {
                // The layouts the Vulkan device renders into decide whether buffers may be tiled.
                let formats = (try? Renderer())?.renderTargetFormats ?? []
                let buffers = try KMSBackend.swapchainPath(devicePath: path, width: mode.width, height: mode.height, renderTargetFormats: formats)
                print("  frames with the Vulkan renderer: \(buffers)")
            } catch {
                print("  frames with the Vulkan renderer: unknown (\(error))")
            }
            print("  frames with the CPU renderer: dumb buffers (\(RendererKind.cpu.mappedBuffersReason!))")
        }
    }
}
