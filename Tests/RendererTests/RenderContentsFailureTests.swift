import Graphics
import LayerKit
import Testing

@testable import FaultInjection
@testable import Renderer

/// A contents image the device cannot make a texture of (out of device memory, injected where
/// the renderer translates the VkResult) leaves its layer without contents, told once, while
/// everything else is drawn; later frames try again.
@MainActor
@Suite(.serialized, .enabled(if: vulkanDeviceAvailable, noVulkanDeviceComment))
struct RenderContentsFailureTests {
    let red = PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255)
    let green = PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255)
    let blue = PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255)

    @Test func aLayerWhoseTextureCannotBeMadeIsDrawnWithoutContentsToldOnceAndShownWhenMemoryReturns() throws {
        let renderer = try Renderer(options: VulkanOptions(enableValidation: true))
        var failures: [ContentsFailure] = []
        renderer.onContentsUnavailable = { failures.append($0) }
        let root = makeRoot(120, 60)
        let failing = sublayer(root, frame: Rect(x: 10, y: 10, width: 40, height: 40), background: .red)
        let other = sublayer(root, frame: Rect(x: 70, y: 10, width: 40, height: 40))
        other.contents = Image(width: 4, height: 4, pixelFormat: .xrgb8888, fill: blue)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        _ = try renderer.render(context.renderTree!, width: 120, height: 60)

        change { failing.contents = Image(width: 4, height: 4, pixelFormat: .xrgb8888, fill: green) }
        let plan = try FaultPlan("vkAllocateMemory@1..=VK_ERROR_OUT_OF_DEVICE_MEMORY")
        let frames = try FaultInjection.during(plan) {
            let first = try renderer.render(context.renderTree!, width: 120, height: 60)
            // The next frame redraws in full and tries again.
            let second = try renderer.render(context.renderTree!, width: 120, height: 60)
            return (first, second, renderer.lastFrameStatistics.damage)
        }
        #expect(plan.injectedCount == 2)
        for frame in [frames.0, frames.1] {
            #expect(frame.pixel(x: 30, y: 30) == red)
            #expect(frame.pixel(x: 90, y: 30) == blue)
            #expect(frame.pixel(x: 60, y: 30) == PremultipliedPixel(red: 255, green: 255, blue: 255, alpha: 255))
        }
        #expect(frames.2 == .full)
        #expect(failures == [ContentsFailure(
            width: 4, height: 4, reason: "vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY")])

        let recovered = try renderer.render(context.renderTree!, width: 120, height: 60)
        #expect(recovered.pixel(x: 30, y: 30) == green)
        #expect(recovered.pixel(x: 90, y: 30) == blue)
        #expect(failures.count == 1)
        #expect(renderer.takeValidationMessages() == [])
    }
}
