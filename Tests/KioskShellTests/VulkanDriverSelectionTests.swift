import Foundation
import Testing

/// `vitrine run` with the Vulkan loader told which drivers to load, as a board's unit drop-in
/// does (systemd/README.md), and without Vulkan at all where `auto` chooses the CPU renderer.
@Suite struct VulkanDriverSelectionTests {
    func run(selecting glob: String, renderer: String = "vulkan") throws -> (status: Int32, output: Data, error: String) {
        try #require(FileManager.default.isExecutableFile(atPath: KioskSessionTests.vitrine), "build vitrine first: swift build --product vitrine")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-drivers-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try runVitrine(
            ["run", "--renderer", renderer, "--headless", "320x240@60", "--socket", "wayland-drivers", "--no-control-socket",
             "--screenshot", folder + "/shot.png", "--after", "0.2"],
            runtimeFolder: folder, display: "wayland-drivers", environment: ["VK_LOADER_DRIVERS_SELECT": glob])
    }

    @Test func aSelectionMatchingNoDriverStopsVitrineNamingIt() throws {
        let result = try run(selecting: "no-such-driver*")
        #expect(result.status != 0)
        #expect(
            result.error.contains("no suitable Vulkan device: the Vulkan loader found no driver with VK_LOADER_DRIVERS_SELECT=no-such-driver*"),
            "\(result.error)")
    }

    /// This machine has no GPU: `auto` draws with pixman and never asks the Vulkan loader for a
    /// device, so a selection matching no driver does not matter.
    @Test func autoWithoutAHardwareVulkanDeviceDrawsOnTheCPUWithoutVulkan() throws {
        let result = try run(selecting: "no-such-driver*", renderer: "auto")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("drawing with the CPU renderer (pixman): auto: no hardware Vulkan device"), "\(result.error)")
        #expect(result.error.contains("wrote "), "\(result.error)")
    }

    @Test func selectingLavapipeAloneRuns() throws {
        let result = try run(selecting: "lvp_icd*")
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("wrote "), "\(result.error)")
    }
}
