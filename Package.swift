// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Vitrine",
    products: [
        .executable(name: "vitrine", targets: ["vitrine"]),
        .library(name: "LayerKit", targets: ["LayerKit"]),
        .library(name: "Graphics", targets: ["Graphics"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/google/swift-benchmark", from: "0.1.2"),
    ],
    targets: [
        // Level 0: one system library per pkg-config name.
        .systemLibrary(
            name: "CCairo",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev"])]
        ),
        .systemLibrary(
            name: "CVulkan",
            pkgConfig: "vulkan",
            providers: [.apt(["libvulkan-dev"])]
        ),

        // Level 2: the CoreGraphics role (cairo stays private to it) and the Core Animation model.
        .target(name: "Graphics", dependencies: ["CCairo"]),
        .target(
            name: "LayerKit",
            dependencies: [
                "Graphics",
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ]
        ),

        // The seeds' listings, shared by the tests that check them and the demo that shows them.
        .target(name: "SeedExamples", dependencies: ["LayerKit"]),

        // Level 3: draws committed render trees with Vulkan (Vulkan stays private to it).
        .target(name: "Renderer", dependencies: ["LayerKit", "CVulkan"]),

        // Level 5: the command.
        .executableTarget(
            name: "vitrine",
            dependencies: [
                "LayerKit",
                "Renderer",
                "SeedExamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .executableTarget(
            name: "LayerKitBenchmarks",
            dependencies: [
                "LayerKit",
                .product(name: "Benchmark", package: "swift-benchmark"),
            ]
        ),

        .executableTarget(name: "RendererBenchmarks", dependencies: ["Renderer"]),

        .testTarget(name: "GraphicsTests", dependencies: ["Graphics"]),
        .testTarget(name: "LayerKitTests", dependencies: ["LayerKit", "SeedExamples"]),
        .testTarget(name: "RendererTests", dependencies: ["Renderer"], exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v6]
)
