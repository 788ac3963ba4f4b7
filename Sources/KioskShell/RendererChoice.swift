import BoardConfig
import Compositor
import Foundation
import Renderer

/// Which renderer draws, and why (for the log): what `renderer = "auto"` decides, or what the
/// board or `--renderer` named.
public struct RendererChoice: Equatable, Sendable, CustomStringConvertible {
    public let kind: RendererKind
    public let reason: String

    public init(kind: RendererKind, reason: String) {
        (self.kind, self.reason) = (kind, reason)
    }

    public var description: String { "\(kind == .cpu ? "the CPU renderer (pixman)" : "the Vulkan renderer"): \(reason)" }

    /// The renderer `selection` asks for (`namedBy` says who asked: the board, `--renderer`);
    /// for `auto`, Vulkan when `system` has a hardware Vulkan device
    /// (`GraphicsInventory.hardwareVulkanDevices`) and the Vulkan loader can be opened
    /// (`vulkanLoaderProblem` is nil), the CPU renderer otherwise. `system` is read only for
    /// `auto` (reading it parses the Vulkan drivers' JSON manifests), and the loader is opened only
    /// once a hardware device is found.
    public static func choose(
        _ selection: RendererSelection, namedBy source: String = "renderer", in system: @autoclosure () -> GraphicsInventory,
        vulkanLoaderProblem: () -> String? = { Renderer.vulkanLoaderProblem }
    ) -> RendererChoice {
        switch selection {
        case .vulkan: return RendererChoice(kind: .vulkan, reason: "\(source) vulkan")
        case .cpu: return RendererChoice(kind: .cpu, reason: "\(source) cpu")
        case .auto:
            let system = system()
            let devices = system.hardwareVulkanDevices
            if let first = devices.first {
                if let problem = vulkanLoaderProblem() {
                    return RendererChoice(
                        kind: .cpu, reason: "auto: \(first.node) has a Vulkan driver (\(first.vulkanLibrary)), but \(problem)")
                }
                return RendererChoice(
                    kind: .vulkan,
                    reason: "auto: \(first.node) is driven by \(first.kernelDriver), whose Vulkan driver \(first.vulkanLibrary) is installed")
            }
            let nodes = system.renderNodes.map { "\($0.name) (\($0.kernelDriver))" }
            return RendererChoice(
                kind: .cpu,
                reason: "auto: no hardware Vulkan device ("
                    + (nodes.isEmpty ? "no DRM render node" : "no installed Vulkan driver for \(nodes.joined(separator: ", "))")
                    + "), and a software one would cost more than pixman")
        }
    }
}

/// The machine's GPUs as the file system shows them, read without loading any Vulkan driver (the
/// point of `renderer = "auto"` is not to pay for lavapipe's LLVM on a machine that then draws
/// with pixman): the DRM render nodes with the kernel driver behind each
/// (`/sys/class/drm/renderD*/device/driver`), and the Vulkan drivers installed (the `library_path`
/// of each ICD manifest in the loader's folders, or those `VK_DRIVER_FILES` / `VK_ICD_FILENAMES` name).
public struct GraphicsInventory: Equatable, Sendable {
    public struct RenderNode: Equatable, Sendable {
        public var name: String
        public var kernelDriver: String

        public init(name: String, kernelDriver: String) {
            (self.name, self.kernelDriver) = (name, kernelDriver)
        }
    }

    public var renderNodes: [RenderNode]
    /// The file names of the installed Vulkan drivers' libraries ("libvulkan_intel.so").
    public var vulkanLibraries: [String]

    public init(renderNodes: [RenderNode], vulkanLibraries: [String]) {
        (self.renderNodes, self.vulkanLibraries) = (renderNodes, vulkanLibraries)
    }

    /// Mesa's (and NVIDIA's) Vulkan drivers by the kernel driver of the GPUs they drive. Absent:
    /// GPUs without a Vulkan driver (vc4 on the Raspberry Pi 3 and older, etnaviv, lima, simpledrm,
    /// vgem), and virtio_gpu, whose Vulkan driver (venus) works only where the host offers it,
    /// which no file tells: a virtual machine asks for `renderer = "vulkan"` when it does.
    static let vulkanLibraryPrefixes: [String: [String]] = [
        "i915": ["libvulkan_intel", "libvulkan_intel_hasvk"], "xe": ["libvulkan_intel"],
        "amdgpu": ["libvulkan_radeon"], "nouveau": ["libvulkan_nouveau"], "v3d": ["libvulkan_broadcom"],
        "panfrost": ["libvulkan_panfrost"], "panthor": ["libvulkan_panfrost"], "msm": ["libvulkan_freedreno"],
        "asahi": ["libvulkan_asahi"], "powervr": ["libvulkan_powervr_mesa"], "nvidia": ["libGLX_nvidia"],
    ]

    /// The render nodes whose GPU has an installed Vulkan driver, with that driver.
    public var hardwareVulkanDevices: [(node: String, kernelDriver: String, vulkanLibrary: String)] {
        renderNodes.compactMap { node in
            let prefixes = Self.vulkanLibraryPrefixes[node.kernelDriver] ?? []
            guard let library = vulkanLibraries.first(where: { library in prefixes.contains { library.hasPrefix($0 + ".") } })
            else { return nil }
            return (node.name, node.kernelDriver, library)
        }
    }

    /// What this machine has.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment) -> GraphicsInventory {
        let files = FileManager.default
        let nodes = ((try? files.contentsOfDirectory(atPath: "/sys/class/drm")) ?? []).filter { $0.hasPrefix("renderD") }.sorted()
            .map { name in
                let driver = (try? files.destinationOfSymbolicLink(atPath: "/sys/class/drm/\(name)/device/driver")) ?? ""
                return RenderNode(name: name, kernelDriver: (driver as NSString).lastPathComponent)
            }
        var manifests: [String] = []
        if let named = environment["VK_DRIVER_FILES"] ?? environment["VK_ICD_FILENAMES"] {
            manifests = named.split(separator: ":").map(String.init)
        } else {
            let dataDirectories = (environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share").split(separator: ":")
            let folders = ["/etc/vulkan/icd.d"] + dataDirectories.map { "\($0)/vulkan/icd.d" }
            for folder in folders {
                let names = (try? files.contentsOfDirectory(atPath: folder)) ?? []
                manifests += names.filter { $0.hasSuffix(".json") }.sorted().map { "\(folder)/\($0)" }
            }
        }
        let libraries = manifests.compactMap { path -> String? in
            guard let data = files.contents(atPath: path),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let icd = object["ICD"] as? [String: Any], let library = icd["library_path"] as? String
            else { return nil }
            return (library as NSString).lastPathComponent
        }
        return GraphicsInventory(renderNodes: nodes, vulkanLibraries: libraries)
    }
}
