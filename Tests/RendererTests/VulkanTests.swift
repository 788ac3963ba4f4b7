import Buffers
import LayerKit
import Testing

@testable import Renderer

@Suite("Vulkan plumbing", .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment), .serialized)
struct VulkanTests {
    let shaders: TestShaders

    init() throws {
        shaders = try TestShaders()
    }

    func makeRenderer(_ context: VulkanContext, framesInFlight: Int = 2) throws -> FrameRenderer {
        try FrameRenderer(
            context: context, vertexSPIRV: shaders.vertex, fragmentSPIRV: shaders.fragment,
            pushConstantSize: TestShaders.pushConstantSize, framesInFlight: framesInFlight)
    }

    static let white = rgba(255, 255, 255, 255)

    @Test func deviceIsLavapipeWithWhatTheRendererNeeds() throws {
        try withValidatedContext { context in
            #expect(context.deviceName.contains("llvmpipe"), "device: \(context.deviceName)")
            #expect(context.validationLog != nil)
            let frames = try makeRenderer(context)
            #expect(frames.whiteTexture.width == 1 && frames.whiteTexture.height == 1)
        }
    }

    @Test func validationMessagesAreCollectedAndThrown() throws {
        let context = try VulkanContext(options: VulkanOptions(enableValidation: true))
        // An image without any usage breaks VUID-VkImageCreateInfo-usage-requiredbitmask.
        _ = try? GPUImage(context: context, width: 1, height: 1, usage: 0)
        do {
            try context.checkValidation()
            Issue.record("an image without usage passed validation")
        } catch VulkanError.validation(let messages) {
            #expect(
                messages.contains {
                    $0.hasPrefix("[ERROR]") && $0.contains("VUID-VkImageCreateInfo-usage-requiredbitmask")
                })
        }
        #expect(context.takeValidationMessages() == [], "checkValidation() takes the messages")

        let unvalidated = try VulkanContext(options: VulkanOptions())
        #expect(unvalidated.validationLog == nil)
        #expect(unvalidated.takeValidationMessages() == [])
    }

    @Test func missingDRMRenderNodeFallsBackToTheFirstDevice() throws {
        let firstDevice = try VulkanContext(options: VulkanOptions()).deviceName
        try withValidatedContext(
            options: VulkanOptions(preferredDRMRenderNode: "/dev/dri/renderD-does-not-exist", enableValidation: true)
        ) { context in
            #expect(context.deviceName == firstDevice)
        }
    }

    @Test func clearReadsBackExactBytes() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 5, height: 3)
            try frames.renderFrame(
                into: target, clearColor: (0.2, 0.4, 0.6, 1),
                instanceBytes: UnsafeRawBufferPointer(start: nil, count: 0),
                draws: [], loadPrevious: false)
            let image = try target.readback()
            #expect(image.pixelFormat == .argb8888)
            #expect((image.width, image.height) == (5, 3))
            // B8G8R8A8: 0.6 × 255 = 153 blue, 102 green, 51 red, in that byte order.
            image.withUnsafeBytes { bytes in
                #expect(Array(bytes.prefix(8)) == [153, 102, 51, 255, 153, 102, 51, 255])
            }
            expectPixels(image) { _, _ in rgba(51, 102, 153, 255) }
        }
    }

    @Test func quadBlendsPremultipliedOverTheClearColorOnExactlyItsPixels() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 10, height: 10)
            let draw = DrawCall(
                pushConstants: testConstants(rect: (2, 3, 4, 5), color: (0.5, 0, 0, 0.5), target: target),
                texture: frames.whiteTexture, texture2: frames.whiteTexture, sampler: .linear)
            try frames.renderFrame(
                into: target, clearColor: (1, 1, 1, 1), instanceBytes: UnsafeRawBufferPointer(start: nil, count: 0),
                draws: [draw], loadPrevious: false)
            // 50% red premultiplied over opaque white: (0.5 + 1 × 0.5, 0 + 0.5, 0 + 0.5, 0.5 + 0.5).
            expectPixels(try target.readback(), tolerance: 1) { x, y in
                (2..<6).contains(x) && (3..<8).contains(y) ? rgba(255, 128, 128, 255) : Self.white
            }
        }
    }

    @Test func scissorRestrictsDrawingAndIsClippedToTheTarget() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 8, height: 8)
            func fill(_ scissor: (x: Int32, y: Int32, width: UInt32, height: UInt32)) -> DrawCall {
                DrawCall(
                    pushConstants: testConstants(rect: (0, 0, 8, 8), color: (0, 0, 1, 1), target: target),
                    texture: frames.whiteTexture, texture2: frames.whiteTexture, sampler: .nearest, scissor: scissor)
            }
            // One inside, one hanging off the top-left corner, one wholly off the target.
            let draws = [
                fill((x: 4, y: 5, width: 3, height: 2)), fill((x: -2, y: -3, width: 3, height: 4)),
                fill((x: 20, y: 0, width: 4, height: 4)),
            ]
            try frames.renderFrame(
                into: target, clearColor: (0, 0, 0, 0), instanceBytes: UnsafeRawBufferPointer(start: nil, count: 0),
                draws: draws, loadPrevious: false)
            expectPixels(try target.readback()) { x, y in
                let inside = ((4..<7).contains(x) && (5..<7).contains(y)) || (x < 1 && y < 1)
                return inside ? rgba(0, 0, 255, 255) : .clear
            }
        }
    }

    @Test func nearestSamplingScalesATwoByTwoTextureToFourByFour() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 4, height: 4)
            let colors = [
                [rgba(255, 0, 0, 255), rgba(0, 255, 0, 255)], [rgba(0, 0, 255, 255), rgba(128, 64, 32, 128)],
            ]
            let texture = try Texture(image: makeImage(colors), pool: StagingBufferPool(context: context))
            let draw = DrawCall(
                pushConstants: testConstants(rect: (0, 0, 4, 4), color: (1, 1, 1, 1), target: target),
                texture: texture, texture2: frames.whiteTexture, sampler: .nearest)
            try frames.renderFrame(
                into: target, clearColor: (0, 0, 0, 0), instanceBytes: UnsafeRawBufferPointer(start: nil, count: 0),
                draws: [draw], loadPrevious: false)
            expectPixels(try target.readback()) { x, y in colors[y / 2][x / 2] }
        }
    }

    @Test func linearSamplingClampsToTheEdgePixels() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 4, height: 1)
            let texture = try Texture(image: makeImage([[rgba(0, 0, 0, 255), Self.white]]), pool: StagingBufferPool(context: context))
            let draw = DrawCall(
                pushConstants: testConstants(rect: (0, 0, 4, 1), color: (1, 1, 1, 1), target: target),
                texture: texture, texture2: frames.whiteTexture, sampler: .linear)
            try frames.renderFrame(
                into: target, clearColor: (0, 0, 0, 0), instanceBytes: UnsafeRawBufferPointer(start: nil, count: 0),
                draws: [draw], loadPrevious: false)
            // Pixel centres fall at texel coordinates −0.25, 0.25, 0.75 and 1.25: the outer two clamp
            // to the edge texels, the inner two mix them 1:3 and 3:1.
            let levels: [UInt8] = [0, 64, 191, 255]
            expectPixels(try target.readback(), tolerance: 1) { x, _ in rgba(levels[x], levels[x], levels[x], 255) }
        }
    }

    @Test func xrgbTexturesReadOpaqueAndTheSecondTextureMasks() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 2, height: 2)
            // xrgb pixels whose ignored top byte is 0 must still read as opaque.
            let contents = try makeImage(
                [
                    [rgba(10, 20, 30, 255), rgba(40, 50, 60, 255)],
                    [rgba(70, 80, 90, 255), rgba(100, 110, 120, 255)],
                ],
                format: .xrgb8888, alphaByte: 0)
            let mask = try makeImage([[.clear, Self.white], [Self.white, .clear]])
            let draw = DrawCall(
                pushConstants: testConstants(rect: (0, 0, 2, 2), color: (1, 1, 1, 1), target: target),
                texture: try Texture(image: contents, pool: StagingBufferPool(context: context)),
                texture2: try Texture(image: mask, pool: StagingBufferPool(context: context)),
                sampler: .nearest)
            try frames.renderFrame(
                into: target, clearColor: (0, 0, 0, 0), instanceBytes: UnsafeRawBufferPointer(start: nil, count: 0),
                draws: [draw], loadPrevious: false)
            expectPixels(try target.readback()) { x, y in
                x == y ? .clear : contents.pixel(x: x, y: y)
            }
        }
    }

    @Test func instanceBytesReachStorageBufferZeroAndTheBufferGrows() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 4, height: 4)
            // 8,192 colours of 16 bytes: twice the ring's initial storage size.
            let count = 2 * FrameRing.initialStorageSize / 16
            var floats = [Float](repeating: 0, count: count * 4)
            floats[4 * 3..<4 * 4] = [0, 1, 0, 1]
            floats[4 * (count - 1)..<4 * count] = [0, 0, 0.5, 0.5]
            let draws = [
                DrawCall(
                    pushConstants: testConstants(rect: (0, 0, 2, 4), target: target, instance: 3),
                    texture: frames.whiteTexture, texture2: frames.whiteTexture, sampler: .linear),
                DrawCall(
                    pushConstants: testConstants(rect: (2, 0, 2, 4), target: target, instance: Int32(count - 1)),
                    texture: frames.whiteTexture, texture2: frames.whiteTexture, sampler: .linear),
            ]
            try floats.withUnsafeBytes { bytes in
                try frames.renderFrame(
                    into: target, clearColor: (0, 0, 0, 0), instanceBytes: bytes, draws: draws, loadPrevious: false)
            }
            expectPixels(try target.readback(), tolerance: 1) { x, _ in
                x < 2 ? rgba(0, 255, 0, 255) : rgba(0, 0, 128, 128)
            }
        }
    }

    @Test func textureCacheReusesTexturesPerImageObjectAndEvicts() throws {
        try withValidatedContext { context in
            let cache = TextureCache(context: context, maximumIdleFrames: 2)
            let image = Image(width: 3, height: 2, fill: rgba(1, 2, 3, 4))
            let twin = Image(width: 3, height: 2, fill: rgba(1, 2, 3, 4))
            cache.beginFrame()
            let first = try cache.texture(for: image)
            #expect(try cache.texture(for: image) === first)
            #expect(try cache.texture(for: twin) !== first, "equal pixels but another Image object")
            #expect(cache.count == 2)

            // `image` is used in frame 2 and idle in frames 3 and 4, so it goes when frame 5 begins;
            // `twin`, idle since frame 1, goes when frame 4 does.
            cache.beginFrame()
            #expect(try cache.texture(for: image) === first)
            cache.beginFrame()
            #expect(cache.count == 2)
            cache.beginFrame()
            #expect(cache.count == 1)
            cache.beginFrame()
            #expect(cache.count == 0)
            #expect(try cache.texture(for: image) !== first)

            // An image nobody else holds can never be asked for again, so it goes at once.
            var transient: Image? = Image(width: 1, height: 1, fill: Self.white)
            _ = try cache.texture(for: transient!)
            #expect(cache.count == 2)
            transient = nil
            cache.beginFrame()
            #expect(cache.count == 1)
            withExtendedLifetime((image, twin)) {}
        }
    }

    @Test func loadPreviousKeepsEarlierPixels() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context)
            let target = try OffscreenTarget(context: context, width: 4, height: 2)
            func quad(x: Float, color: (Float, Float, Float, Float)) -> DrawCall {
                DrawCall(
                    pushConstants: testConstants(rect: (x, 0, 2, 2), color: color, target: target),
                    texture: frames.whiteTexture, texture2: frames.whiteTexture, sampler: .nearest)
            }
            let none = UnsafeRawBufferPointer(start: nil, count: 0)
            try frames.renderFrame(
                into: target, clearColor: (1, 1, 1, 1), instanceBytes: none, draws: [quad(x: 0, color: (1, 0, 0, 1))],
                loadPrevious: false)
            // A damage-only redraw of the right half; the clear colour must not apply.
            try frames.renderFrame(
                into: target, clearColor: (0, 0, 0, 0), instanceBytes: none, draws: [quad(x: 2, color: (0, 0, 1, 1))],
                loadPrevious: true)
            expectPixels(try target.readback()) { x, _ in x < 2 ? rgba(255, 0, 0, 255) : rgba(0, 0, 255, 255) }

            try frames.renderFrame(
                into: target, clearColor: (0, 1, 0, 1), instanceBytes: none, draws: [], loadPrevious: false)
            expectPixels(try target.readback()) { _, _ in rgba(0, 255, 0, 255) }
        }
    }

    @Test func manyFramesThroughTheRingReleaseWhatTheyUsed() throws {
        try withValidatedContext { context in
            let frames = try makeRenderer(context, framesInFlight: 3)
            let cache = TextureCache(context: context)
            let target = try OffscreenTarget(context: context, width: 16, height: 16)
            weak var firstTexture: Texture?
            var allocationsAfterWarmUp = 0
            var image: Image
            for frame in 0..<20 {
                // A client attaching a new buffer each frame: a new Image, so a new texture; the
                // previous image is dropped, so its texture must go once its frame is done.
                let level = UInt8(frame * 10)
                image = Image(width: 16, height: 16, fill: rgba(level, 255 - level, 0, 255))
                cache.beginFrame()
                let texture = try cache.texture(for: image)
                if frame == 0 { firstTexture = texture }
                let instances = [Float](repeating: Float(frame), count: 4 * (frame + 1))
                try instances.withUnsafeBytes { bytes in
                    try frames.renderFrame(
                        into: target, clearColor: (0, 0, 0, 1), instanceBytes: bytes,
                        draws: [
                            DrawCall(
                                pushConstants: testConstants(rect: (0, 0, 16, 16), color: (1, 1, 1, 1), target: target),
                                texture: texture, texture2: frames.whiteTexture, sampler: .linear)
                        ], loadPrevious: false)
                }
                // Read back only now and then: the frames between queue up, bounded by the ring.
                if frame % 5 == 4 {
                    expectPixels(try target.readback()) { _, _ in rgba(level, 255 - level, 0, 255) }
                    // Every frame is done: what they kept alive goes, so the count is exact.
                    try frames.releaseFinishedFrames()
                }
                // The staging pool keeps as many buffers as uploads were alive at once, which
                // depends on how far the GPU lagged: they are counted apart.
                if frame == 9 { allocationsAfterWarmUp = context.liveMemoryAllocations - cache.stagingBuffers.idleCount }
            }
            #expect(firstTexture == nil, "the first frame's texture outlived its frame")
            #expect(cache.count == 1)
            #expect(context.liveMemoryAllocations - cache.stagingBuffers.idleCount == allocationsAfterWarmUp)
            // At most one upload per frame in flight, and the one taken before its frame waits for a slot.
            #expect(cache.stagingBuffers.idleCount <= 4)
        }
    }
}
