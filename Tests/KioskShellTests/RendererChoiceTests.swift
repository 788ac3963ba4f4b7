import BoardConfig
import Compositor
import Foundation
import KioskShell
import Testing

/// What `renderer = "auto"` decides from the render nodes and the installed Vulkan drivers, and
/// that it reads them from the file system as the loader would find them.
@Suite struct RendererChoiceTests {
    /// Debian's mesa-vulkan-drivers on amd64: drivers for GPUs the machine may not have.
    let mesa = ["libvulkan_intel.so", "libvulkan_intel_hasvk.so", "libvulkan_lvp.so", "libvulkan_radeon.so", "libvulkan_virtio.so"]

    @Test func aMachineWithoutRenderNodesDrawsOnTheCPUThoughVulkanDriversAreInstalled() {
        let choice = RendererChoice.choose(.auto, in: GraphicsInventory(renderNodes: [], vulkanLibraries: mesa))
        #expect(choice.kind == .cpu)
        #expect(choice.reason == "auto: no hardware Vulkan device (no DRM render node), and a software one would cost more than pixman")
    }

    @Test func aGPUWhoseVulkanDriverIsInstalledDrawsWithVulkan() {
        let inventory = GraphicsInventory(renderNodes: [.init(name: "renderD128", kernelDriver: "i915")], vulkanLibraries: mesa)
        let choice = RendererChoice.choose(.auto, in: inventory)
        #expect(choice.kind == .vulkan)
        #expect(choice.reason == "auto: renderD128 is driven by i915, whose Vulkan driver libvulkan_intel.so is installed")
    }

    /// A Raspberry Pi 3 (vc4), a virtual machine's virtio-gpu, or a Pi 4 without Mesa's broadcom
    /// driver installed: no Vulkan for the GPU there is.
    @Test func gpusWithoutAnInstalledVulkanDriverDrawOnTheCPU() {
        for (driver, libraries) in [("vc4", mesa), ("virtio_gpu", mesa), ("v3d", mesa), ("simpledrm", mesa)] {
            let inventory = GraphicsInventory(renderNodes: [.init(name: "renderD128", kernelDriver: driver)], vulkanLibraries: libraries)
            let choice = RendererChoice.choose(.auto, in: inventory)
            #expect(choice.kind == .cpu, "\(driver)")
            #expect(choice.reason.contains("no installed Vulkan driver for renderD128 (\(driver))"), "\(choice.reason)")
        }
        let pi4 = GraphicsInventory(
            renderNodes: [.init(name: "renderD128", kernelDriver: "v3d")], vulkanLibraries: mesa + ["libvulkan_broadcom.so"])
        #expect(RendererChoice.choose(.auto, in: pi4).kind == .vulkan)
    }

    /// The Vulkan loader is opened only for a GPU with a Vulkan driver; where it cannot be opened,
    /// the CPU renderer draws and the log says why.
    @Test func aGPUWithoutALoadableVulkanLoaderDrawsOnTheCPU() {
        var asked = 0
        let loaderMissing = {
            asked += 1
            return "libvulkan.so.1: cannot open shared object file: No such file or directory"
        }
        let noGPU = GraphicsInventory(renderNodes: [.init(name: "renderD128", kernelDriver: "vc4")], vulkanLibraries: mesa)
        #expect(RendererChoice.choose(.auto, in: noGPU, vulkanLoaderProblem: loaderMissing).kind == .cpu)
        #expect(asked == 0)
        let intel = GraphicsInventory(renderNodes: [.init(name: "renderD128", kernelDriver: "i915")], vulkanLibraries: mesa)
        let choice = RendererChoice.choose(.auto, in: intel, vulkanLoaderProblem: loaderMissing)
        #expect(asked == 1)
        #expect(
            choice == RendererChoice(
                kind: .cpu,
                reason: "auto: renderD128 has a Vulkan driver (libvulkan_intel.so), but "
                    + "libvulkan.so.1: cannot open shared object file: No such file or directory"))
    }

    @Test func aNamedRendererIsTakenWhateverTheMachineHas() {
        let none = GraphicsInventory(renderNodes: [], vulkanLibraries: [])
        #expect(RendererChoice.choose(.vulkan, namedBy: "--renderer", in: none) == RendererChoice(kind: .vulkan, reason: "--renderer vulkan"))
        #expect(RendererChoice.choose(.cpu, in: none) == RendererChoice(kind: .cpu, reason: "renderer cpu"))
    }

    @Test func theInventoryReadsTheManifestsTheLoaderIsToldOf() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-icd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = folder.appendingPathComponent("broadcom_icd.json")
        try Data(#"{"ICD": {"api_version": "1.3.0", "library_path": "/usr/lib/aarch64-linux-gnu/libvulkan_broadcom.so"}, "file_format_version": "1.0.0"}"#.utf8)
            .write(to: manifest)
        let inventory = GraphicsInventory.current(environment: ["VK_DRIVER_FILES": manifest.path])
        #expect(inventory.vulkanLibraries == ["libvulkan_broadcom.so"])
    }
}
