import Buffers
import Foundation
import LayerKit
import Testing

@testable import Renderer

/// Whether the loader finds any Vulkan device; the suites skip only when it finds none.
let vulkanDeviceAvailable = VulkanContext.physicalDeviceCount() > 0
let noVulkanDeviceComment: Comment =
    "no Vulkan physical device: install mesa-vulkan-drivers (lavapipe) to run the renderer tests without a GPU"

/// Commits `body`'s changes at once, without implicit animations, and flushes.
func change(_ body: () -> Void) {
    Transaction.begin()
    Transaction.disableActions = true
    body()
    Transaction.commit()
    Transaction.flush()
}

/// Runs `body` with a validated lavapipe-or-GPU context and fails the test on any validation
/// message, including those that tearing the context down produces.
func withValidatedContext(
    options: VulkanOptions = VulkanOptions(enableValidation: true), _ body: (VulkanContext) throws -> Void
) throws {
    var log: ValidationLog?
    try {
        let context = try VulkanContext(options: options)
        log = context.validationLog
        try body(context)
        #expect(context.takeValidationMessages() == [])
    }()
    #expect(log?.take() == [], "validation messages during teardown")
}

/// SPIR-V of a small test shader pair, compiled with glslc at test time.
///
/// The vertex shader makes a quad of `rect` (pixels) from `gl_VertexIndex`, coloured with the
/// push-constant colour or, when `instance` ≥ 0, with `colors[instance]` of storage buffer 0. The
/// fragment shader multiplies that colour by texture 1 and by texture 2's alpha.
struct TestShaders {
    static let vertexSource = """
        #version 450
        layout(push_constant) uniform Draw {
            vec4 rect;
            vec4 color;
            vec2 targetSize;
            int instance;
            int unused;
        } draw;
        layout(std430, set = 0, binding = 0) readonly buffer Instances { vec4 colors[]; } instances;
        layout(location = 0) out vec2 uv;
        layout(location = 1) out vec4 color;
        void main() {
            const vec2 corners[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(0, 1), vec2(0, 1), vec2(1, 0), vec2(1, 1));
            vec2 corner = corners[gl_VertexIndex];
            vec2 position = draw.rect.xy + corner * draw.rect.zw;
            gl_Position = vec4(position / draw.targetSize * 2.0 - 1.0, 0.0, 1.0);
            uv = corner;
            color = draw.instance >= 0 ? instances.colors[draw.instance] : draw.color;
        }
        """
    static let fragmentSource = """
        #version 450
        layout(set = 0, binding = 1) uniform sampler2D contents;
        layout(set = 0, binding = 2) uniform sampler2D mask;
        layout(location = 0) in vec2 uv;
        layout(location = 1) in vec4 color;
        layout(location = 0) out vec4 result;
        void main() {
            result = color * texture(contents, uv) * texture(mask, uv).a;
        }
        """
    static let pushConstantSize = 48

    let vertex: [UInt32]
    let fragment: [UInt32]

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vitrine-shaders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        vertex = try Self.compile(Self.vertexSource, stage: "vert", in: directory)
        fragment = try Self.compile(Self.fragmentSource, stage: "frag", in: directory)
    }

    private static func compile(_ source: String, stage: String, in directory: URL) throws -> [UInt32] {
        let input = directory.appendingPathComponent("test.\(stage)")
        let output = directory.appendingPathComponent("test.\(stage).spv")
        try source.write(to: input, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["glslc", "--target-env=vulkan1.3", input.path, "-o", output.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "glslc failed on the test \(stage) shader")
        let data = try Data(contentsOf: output)
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    }
}

/// The test shader's push constants.
func testConstants(
    rect: (x: Float, y: Float, width: Float, height: Float), color: (Float, Float, Float, Float) = (0, 0, 0, 0),
    target: OffscreenTarget, instance: Int32 = -1
) -> [UInt8] {
    let floats: [Float] = [
        rect.x, rect.y, rect.width, rect.height, color.0, color.1, color.2, color.3, Float(target.width),
        Float(target.height),
    ]
    var bytes: [UInt8] = []
    for value in floats { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
    for value in [instance, 0] { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    return bytes
}

/// Checks every pixel of `image` against `expected`, reporting how many differ and the first few.
func expectPixels(
    _ image: Image, tolerance: Int = 0, sourceLocation: SourceLocation = #_sourceLocation,
    _ expected: (_ x: Int, _ y: Int) -> PremultipliedPixel
) {
    var mismatches: [String] = []
    for y in 0..<image.height {
        for x in 0..<image.width {
            let actual = image.pixel(x: x, y: y)
            let wanted = expected(x, y)
            let difference = [
                (actual.red, wanted.red), (actual.green, wanted.green), (actual.blue, wanted.blue),
                (actual.alpha, wanted.alpha),
            ].map { abs(Int($0.0) - Int($0.1)) }.max()!
            if difference > tolerance { mismatches.append("(\(x), \(y)): \(actual), expected \(wanted)") }
        }
    }
    #expect(
        mismatches.isEmpty, "\(mismatches.count) rgba(s) differ: \(mismatches.prefix(5).joined(separator: "; "))",
        sourceLocation: sourceLocation)
}

func rgba(_ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8) -> PremultipliedPixel {
    PremultipliedPixel(red: red, green: green, blue: blue, alpha: alpha)
}

/// An image from rows of pixels, in either format.
func makeImage(_ rows: [[PremultipliedPixel]], format: PixelFormat = .argb8888, alphaByte: UInt8? = nil)
    throws -> Image
{
    var bytes: [UInt8] = []
    for row in rows {
        for p in row { bytes += [p.blue, p.green, p.red, alphaByte ?? p.alpha] }
    }
    return try bytes.withUnsafeBytes {
        try Image(
            width: rows[0].count, height: rows.count, pixelFormat: format, bytesPerRow: rows[0].count * 4, bytes: $0)
    }
}
