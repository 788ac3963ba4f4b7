// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Vitrine",
    products: [
        .executable(name: "vitrine", targets: ["vitrine"]),
        .executable(name: "vitrine-fuzz", targets: ["vitrine-fuzz"]),
        .library(name: "LayerKit", targets: ["LayerKit"]),
        .library(name: "Graphics", targets: ["Graphics"]),
        // Loaded by the Wayland Conformance Suite's runner (see docs/protocols.md, conformance).
        .library(name: "VitrineWLCS", type: .dynamic, targets: ["VitrineWLCS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/google/swift-benchmark", from: "0.1.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // Level 0: one system library per pkg-config name.
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        // Text shaping and layout: Pango with HarfBuzz and fontconfig, drawn through cairo.
        .systemLibrary(
            name: "CPangoCairo",
            pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev"])]
        ),
        // Linux interfaces Glibc's module leaves out (timerfd, memfd, signalfd); no library to link.
        .systemLibrary(name: "CLinux"),
        .systemLibrary(
            name: "CWaylandServer",
            pkgConfig: "wayland-server",
            providers: [.apt(["libwayland-dev"])]
        ),
        // The structures libwayland's server and client share (wl_argument, wl_interface); no library.
        .systemLibrary(name: "CWaylandUtil"),
        .systemLibrary(
            name: "CWaylandClient",
            pkgConfig: "wayland-client",
            providers: [.apt(["libwayland-dev"])]
        ),
        // The X window manager's connection to Xwayland: core protocol, Composite (redirecting the
        // root's children) and X-Resource (the process behind a window).
        .systemLibrary(name: "CXCB", pkgConfig: "xcb", providers: [.apt(["libxcb1-dev"])]),
        .systemLibrary(name: "CXCBComposite", pkgConfig: "xcb-composite", providers: [.apt(["libxcb-composite0-dev"])]),
        .systemLibrary(name: "CXCBXFixes", pkgConfig: "xcb-xfixes", providers: [.apt(["libxcb-xfixes0-dev"])]),
        .systemLibrary(name: "CXCBRes", pkgConfig: "xcb-res", providers: [.apt(["libxcb-res0-dev"])]),
        .systemLibrary(
            name: "CXKBCommon",
            pkgConfig: "xkbcommon",
            providers: [.apt(["libxkbcommon-dev"])]
        ),
        .systemLibrary(
            name: "CDRM",
            pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]
        ),
        .systemLibrary(
            name: "CGBM",
            pkgConfig: "gbm",
            providers: [.apt(["libgbm-dev"])]
        ),
        .systemLibrary(
            name: "CInput",
            pkgConfig: "libinput",
            providers: [.apt(["libinput-dev"])]
        ),
        .systemLibrary(
            name: "CUdev",
            pkgConfig: "libudev",
            providers: [.apt(["libudev-dev"])]
        ),
        .systemLibrary(
            name: "CSeat",
            pkgConfig: "libseat",
            providers: [.apt(["libseat-dev"])]
        ),
        // Regions (wl_region, damage): pixman's, as weston and wlroots use.
        .systemLibrary(
            name: "CPixman",
            pkgConfig: "pixman-1",
            providers: [.apt(["libpixman-1-dev"])]
        ),
        // Vulkan's headers (libvulkan-dev), no library to link: the Renderer opens the loader on
        // first use (CVitrineVulkan). Without pkgConfig, so that SwiftPM puts no -lvulkan on any
        // link line: a process that draws with the CPU renderer never maps the loader.
        .systemLibrary(name: "CVulkan"),

        // Level 1: the Vulkan loader opened on first use, and the tables of the commands the
        // Renderer calls (a process that draws with the CPU renderer never maps libvulkan).
        .target(name: "CVitrineVulkan", dependencies: ["CVulkan"]),
        // Level 1: the libwayland-server helpers Swift cannot express (variadic errors, wl_listener,
        // the dispatcher tag, the client object limit).
        .target(name: "CVitrineWayland", dependencies: ["CWaylandServer"]),
        // Level 1: the Wayland protocols' XML as a Swift model (the bindings generator's and the fuzzer's).
        .target(name: "WaylandProtocolModel"),
        // Typed bindings generated from the protocol XML at build time: the generator and the
        // build-tool plugin that runs it for WaylandProtocols, WaylandServer and WaylandTestClient.
        .executableTarget(name: "WaylandBindingsGenerator", dependencies: ["WaylandProtocolModel"]),
        .plugin(
            name: "WaylandBindingsPlugin", capability: .buildTool(), dependencies: ["WaylandBindingsGenerator"],
            path: "Sources/WaylandBindingsPlugin"
        ),
        // Level 1: what the server and the test client share: interface tables, protocol enums and
        // the marshalling of arguments to and from libwayland.
        .target(
            name: "WaylandProtocols", dependencies: ["CWaylandUtil"], exclude: ["protocols.txt", "xml"],
            plugins: ["WaylandBindingsPlugin"]
        ),
        // posix_spawn's GNU extensions, behind a header that does not turn them on for everyone.
        .target(name: "CVitrineProcess"),
        // Pango's functions taken from libpangocairo on the first text layout instead of linked, each
        // typed by Pango's own header (Graphics' PangoLibrary).
        .target(name: "CVitrinePango", dependencies: ["CPangoCairo"]),
        // Failures injected where the Renderer and the KMS backend translate a driver's result.
        .target(name: "FaultInjection"),
        // One event, any number of listeners (wl_signal's role): outputs coming and going, frames presented.
        .target(name: "Signals"),

        // Level 1: owning file descriptors and reporting failed system calls (swift-system's
        // FileDescriptor and Errno), for every module that makes system calls.
        .target(name: "SystemCalls", dependencies: ["CLinux", .product(name: "SystemPackage", package: "swift-system")]),
        // Level 1: one buffer abstraction (client shm and dma-buf, GBM, dumb buffers, host memory) and
        // one pixel-format type (DRM fourcc codes), for every module that shows or samples pixels.
        .target(name: "Buffers", dependencies: ["SystemCalls"]),

        // Level 2: the CoreGraphics and Core Text roles (cairo and Pango stay private to it) and the
        // Core Animation model.
        .target(
            name: "Graphics",
            dependencies: ["Buffers", "CCairo", "CPangoCairo", "CVitrinePango", "SystemCalls", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "LayerKit",
            dependencies: ["Graphics"]
        ),

        // The seeds' listings, shared by the tests that check them and the demo that shows them.
        .target(name: "SeedExamples", dependencies: ["LayerKit"]),

        // Level 3: draws committed render trees with Vulkan (Vulkan stays private to it); its
        // shaders are compiled to SPIR-V at build time.
        // Level 3: what the compositor asks of a renderer, whichever draws (LayerTreeRenderer), and
        // what both renderers share: damage tracking and client buffers as contents.
        .target(name: "RendererContract", dependencies: ["Buffers", "LayerKit", "SystemCalls"]),
        .target(name: "Renderer", dependencies: ["Buffers", "LayerKit", "RendererContract", "CVulkan", "CVitrineVulkan", "FaultInjection", "SystemCalls"], plugins: ["ShaderLibraryPlugin"]),
        // Level 3: draws the same render trees on the CPU with pixman (cairo for paths), for boards
        // without a hardware Vulkan device; no Vulkan.
        .target(name: "CPURenderer", dependencies: ["Buffers", "LayerKit", "RendererContract", "CPixman", "CCairo", "SystemCalls"]),
        // Runs glslc on Shaders/ for the Renderer.
        .plugin(name: "ShaderLibraryPlugin", capability: .buildTool(), path: "Sources/ShaderLibraryPlugin"),

        // Level 3: the Wayland protocols, policy-free (libwayland stays private to it).
        .target(
            name: "WaylandServer",
            dependencies: ["Buffers", "CWaylandServer", "CVitrineWayland", "WaylandProtocols", "CXKBCommon", "CLinux", "CPixman", "SystemCalls"],
            exclude: ["resource-classes.txt"], plugins: ["WaylandBindingsPlugin"]
        ),

        // Level 3: the output backend contract (output state, frame scheduler) every backend implements.
        .target(name: "DisplayBackend", dependencies: ["Buffers", "Graphics", "CLinux", "Signals", "SystemCalls"]),
        // Level 3: displays that exist only in memory, refreshed by a timer (tests, CI, screenshots).
        .target(name: "HeadlessBackend", dependencies: ["Buffers", "DisplayBackend", "Graphics", "Signals", "SystemCalls"]),
        // Level 3: the KMS/DRM backend (atomic modesetting, page flips); libdrm stays private to it.
        .target(name: "KMSBackend", dependencies: ["Buffers", "DisplayBackend", "Graphics", "CDRM", "CGBM", "CLinux", "CUdev", "FaultInjection", "Signals", "SystemCalls"]),

        // Level 3: a session on the seat through libseat (devices for an unprivileged process, VT switches).
        .target(name: "Seat", dependencies: ["CSeat", "SystemCalls"]),

        // Level 3: input devices through libinput (udev seat or a path list), as one event value type.
        .target(name: "Input", dependencies: ["CInput", "CUdev", "CLinux", "SystemCalls"]),

        // Level 3: views above the layer tree: they host layers and receive input (hit testing,
        // responder chain, capture, focus, gesture recognizers). Pure Swift, like LayerKit.
        .target(name: "Views", dependencies: ["LayerKit"]),

        // Level 4: the built-in on-screen keyboard: layouts as data, key geometry, and a view of
        // layers that reports what it types. Policy-free: the compositor wires it to text input.
        .target(name: "OnScreenKeyboard", dependencies: ["Views", "LayerKit", "Graphics"]),

        // Level 2: board configuration files (outputs, input, the kiosk app), parsed and validated.
        .target(name: "BoardConfig", dependencies: [.product(name: "TOMLKit", package: "TOMLKit")]),

        // Level 4: owns everything: surfaces as layers, outputs and their frame cycles.
        .target(
            name: "Compositor",
            dependencies: [
                "Buffers", "CPURenderer", "LayerKit", "Renderer", "RendererContract", "WaylandServer", "DisplayBackend", "Input", "Views", "Signals", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Level 2: the apps Vitrine starts (posix_spawn, with WAYLAND_DISPLAY), reaps and ends, and
        // the processes they started in turn.
        .target(name: "AppProcesses", dependencies: ["CVitrineProcess", "SystemCalls"]),
        // Xwayland on demand: the X display's sockets from the start, Xwayland started by the first
        // X client with a Wayland connection and the window manager's connection of its own.
        // The X window manager inside Vitrine, on libxcb: X windows paired with Xwayland's surfaces,
        // map and configure requests answered through a handler (the window policy).
        .target(
            name: "XWindowManager",
            dependencies: [
                "CXCB", "CXCBComposite", "CXCBRes", "CXCBXFixes", "Compositor", "Signals", "SystemCalls", "WaylandServer",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "Xwayland",
            dependencies: ["AppProcesses", "Compositor", "SystemCalls", "WaylandServer", "XWindowManager", .product(name: "Logging", package: "swift-log")]),

        // Level 4: the control socket (`vitrine capture`, `status`, `print`): a Unix socket served on
        // the compositor's loop without blocking it, its JSON protocol and its client. What each
        // command does is the kiosk shell's (ControlResponder); `status` reports the compositor's
        // OutputStatus and MirrorStatus as they are.
        .target(name: "ControlSocket", dependencies: ["Compositor", "WaylandServer", "DisplayBackend", "SystemCalls"]),

        // Level 4: the kiosk's window policy (fullscreen toplevels, centred dialogs, constrained
        // popups, focus), the compositor's windowPolicy in `vitrine run` and under WLCS.
        .target(name: "WindowPolicy", dependencies: ["BoardConfig", "Compositor", "LayerKit", "WaylandServer", "XWindowManager"]),

        // Level 4: kiosk policy: supervising the app, telling systemd the truth about health.
        .target(
            name: "KioskShell",
            dependencies: [
                "AppProcesses", "BoardConfig", "Compositor", "ControlSocket", "DisplayBackend", "Input", "LayerKit", "OnScreenKeyboard", "Renderer", "Signals", "Views",
                "WaylandServer", "SystemCalls", "Xwayland", .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The WLCS integration: C structs WLCS calls through, forwarding to the compositor in-process.
        .target(name: "CVitrineWLCS", dependencies: ["CWaylandClient"]),
        .target(name: "VitrineWLCS", dependencies: ["CVitrineWLCS", "Compositor", "DisplayBackend", "HeadlessBackend", "WaylandServer", "WindowPolicy", "CLinux", "SystemCalls"]),

        // A client that speaks any protocol by name, for tests that drive the server request by request.
        .target(
            name: "WaylandTestClient", dependencies: ["CWaylandClient", "CLinux", "SystemCalls", "WaylandProtocols"],
            plugins: ["WaylandBindingsPlugin"]
        ),

        // The protocol fuzzer: clients drawn from the protocol XML, run against `vitrine` as a process.
        .target(name: "ProtocolFuzzer", dependencies: ["WaylandProtocolModel", "CLinux", "SystemCalls"]),
        .executableTarget(
            name: "vitrine-fuzz",
            dependencies: ["ProtocolFuzzer", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // Level 5: the command.
        .executableTarget(
            name: "vitrine",
            dependencies: [
                "LayerKit",
                "AppProcesses",
                "Compositor",
                "ControlSocket",
                "WaylandServer",
                "DisplayBackend",
                "HeadlessBackend",
                "KMSBackend",
                "Input",
                "BoardConfig",
                "KioskShell",
                "WindowPolicy",
                "Xwayland",
                "Seat",
                "Signals",
                "FaultInjection",
                "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
                "Renderer",
                "SeedExamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["startup.order", "startup.ld", "link"],
            // The device build's start-up (docs/benchmarks.md): lld packs the executable's 110,000
            // relative relocations into a few kilobytes (DT_RELR, glibc 2.36 or later), and the
            // executable's own symbols are not exported, which the dynamic loader would otherwise
            // read and search (the Swift toolchain exports them; nothing looks them up). The code
            // that start-up and the kiosk's frames run is laid out together at the start of `.text`
            // (`startup.order`, written by benchmarks/startup_order.py), with what that list cannot
            // name just before it (`startup.ld`, written with it: the functions the compiler emits
            // without a symbol, local helpers defined in many files, the C start files' code), so
            // that the process maps a few megabytes of the binary instead of pages all over it.
            // The C++ library (the static Swift runtime's, ICU's and TOMLKit's) is linked from its
            // static archive: `link/libstdc++.so`, found first, says so to the linker. Libraries are
            // recorded only where the binary calls them (`link/as-needed.cfg`, clang's options put
            // before the libraries): Pango is loaded by the first text layout instead.
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
                     "-L\(Context.packageDirectory)/Sources/vitrine/link",
                     "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/vitrine/startup.order",
                     "-Xlinker", "--script=\(Context.packageDirectory)/Sources/vitrine/startup.ld",
                     "-Xlinker", "--no-warn-symbol-ordering",
                     "-Xclang-linker", "--config=\(Context.packageDirectory)/Sources/vitrine/link/as-needed.cfg"],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),

        .executableTarget(
            name: "LayerKitBenchmarks",
            dependencies: [
                "LayerKit",
                .product(name: "Benchmark", package: "swift-benchmark"),
            ]
        ),

        .executableTarget(name: "RendererBenchmarks", dependencies: ["CPURenderer", "Renderer"]),

        // An app with a TiledLayer that draws its tiles and waits, for IdleThreadsTests.
        .executableTarget(name: "tiled-layer-idle", dependencies: ["LayerKit"]),

        .testTarget(name: "BuffersTests", dependencies: ["Buffers"]),
        .testTarget(name: "GraphicsTests", dependencies: ["Graphics", "SystemCalls"]),
        .testTarget(name: "SignalsTests", dependencies: ["Signals"]),
        .testTarget(name: "DisplayBackendTests", dependencies: ["Buffers", "BufferFixtures", "DisplayBackend", "HeadlessBackend", "Graphics", "SystemCalls"]),
        .testTarget(name: "InputTests", dependencies: ["Input", "SystemCalls"]),
        .testTarget(name: "SeatTests", dependencies: ["Seat", "SystemCalls"]),
        .testTarget(name: "ViewsTests", dependencies: ["Views", "LayerKit"]),
        .testTarget(name: "OnScreenKeyboardTests", dependencies: ["OnScreenKeyboard", "Views", "LayerKit", "Graphics", "GoldenImages"], exclude: ["Golden"]),
        .testTarget(name: "KioskShellTests", dependencies: ["KioskShell", "AppProcesses", "BoardConfig", "Compositor", "ControlSocket", "DisplayBackend", "HeadlessBackend", "FaultInjection", "Graphics", "Input", "LayerKit", "OnScreenKeyboard", "Renderer", "Signals", "SystemCalls", "WaylandServer", "WaylandTestClient", "WindowPolicy", .product(name: "Logging", package: "swift-log")], exclude: ["Clients"]),
        .testTarget(name: "BoardConfigTests", dependencies: ["BoardConfig"], resources: [.copy("Fixtures")]),
        // Hardware in the loop: a QEMU guest with virtio-gpu runs Vitrine on a real KMS device.
        .testTarget(name: "KMSBackendTests", dependencies: ["KMSBackend", "SystemCalls"]),
        .testTarget(name: "FaultInjectionTests", dependencies: ["FaultInjection"]),
        .testTarget(name: "ControlSocketTests", dependencies: ["ControlSocket", "Compositor", "WaylandServer"]),
        .testTarget(name: "XwaylandTests", dependencies: ["Xwayland", "XWindowManager", "AppProcesses", "BoardConfig", "CLinux", "CXCB", "Compositor", "DisplayBackend", "Graphics", "GoldenImages", "HeadlessBackend", "Input", "LayerKit", "SystemCalls", "WaylandServer", "WaylandTestClient", "WindowPolicy", .product(name: "Logging", package: "swift-log")], exclude: ["Clients", "Golden"]),
        .testTarget(name: "AppProcessesTests", dependencies: ["AppProcesses", "SystemCalls"]),
        .testTarget(name: "HILTests", dependencies: ["KMSBackend", "DisplayBackend", "Graphics", "SystemCalls"], exclude: ["hil"]),
        .testTarget(name: "LayerKitTests", dependencies: ["CLinux", "LayerKit", "SeedExamples"]),
        .testTarget(name: "WaylandServerTests", dependencies: ["Buffers", "WaylandServer", "WaylandTestClient", "WaylandProtocols", "CWaylandUtil"]),
        // Runs its bounded pass against the vitrine product (built before `swift test`, see .ci/run).
        .testTarget(name: "ProtocolFuzzerTests", dependencies: ["ProtocolFuzzer", "WaylandProtocolModel"]),
        .testTarget(name: "CompositorTests", dependencies: ["BoardConfig", "Buffers", "CLinux", "Compositor", "CPURenderer", "GoldenImages", "Graphics", "HeadlessBackend", "AppProcesses", "DisplayBackend", "FaultInjection", "Input", "LayerKit", "Renderer", "Views", "WaylandTestClient", "WindowPolicy"], exclude: ["Clients", "Golden"]),
        // Runs WLCS against the VitrineWLCS product (built before `swift test`, see .ci/run).
        .testTarget(name: "ConformanceTests", exclude: ["wlcs-expected-pass.txt"]),
        .testTarget(name: "RendererTests", dependencies: ["Buffers", "BufferFixtures", "Renderer", "CPURenderer", "FaultInjection", "GoldenImages", "SystemCalls", "SeedExamples"], exclude: ["Golden"]),
        // Golden-image comparison shared by the test targets that render.
        .target(name: "GoldenImages", dependencies: ["Graphics"], path: "Tests/GoldenImages"),
        .target(name: "BufferFixtures", dependencies: ["Buffers"], path: "Tests/BufferFixtures"),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds of Vitrine's own code:
// - each function in a section of its own, so that the vitrine link can place the functions
//   `startup.order` names together (the Swift compiler otherwise puts a file's functions into one
//   section, which the linker moves only whole);
// - no run-time exclusivity checks: debug builds, which every test and the rig run, keep them and
//   trap on an overlapping access; the device build leaves them out, as C compositors have none to
//   pay for: 13.5 thousand of the kiosk's 72.5 thousand instructions a fullscreen frame (183
//   swift_beginAccess calls) and 16 thousand of simple-shm's 224 thousand (docs/benchmarks.md).
//   The compiler's static exclusivity diagnostics stay on in every build.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .unsafeFlags(
            ["-Xfrontend", "-function-sections", "-enforce-exclusivity=unchecked"], .when(platforms: [.linux], configuration: .release))
    ]
}
