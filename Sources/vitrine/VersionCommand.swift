import ArgumentParser
import Renderer
import WaylandServer

/// What was built and with what, for a bug report: the version, the build configuration and
/// compiler, the libwayland it was built against, and the Vulkan device it would render with.
struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version and build information, and the Vulkan device Vitrine would render with.")

    func run() throws {
        print("vitrine \(Vitrine.version)")
        print("build: \(Self.buildConfiguration), Swift \(Self.compiler) compiler")
        print("libwayland-server: \(Display.libwaylandVersion)")
        do {
            print("Vulkan device: \(try Renderer().deviceName)")
        } catch {
            print("Vulkan device: none usable (\(error))")
        }
    }

    static var buildConfiguration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    /// The compiler's version, to the minor release the toolchains this project supports have.
    static var compiler: String {
        #if compiler(>=6.3)
            "6.3 or newer"
        #elseif compiler(>=6.2)
            "6.2"
        #elseif compiler(>=6.1)
            "6.1"
        #else
            "6.0"
        #endif
    }
}
