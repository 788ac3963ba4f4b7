import Glibc
import LayerKit
import Renderer
import WaylandServer

/// A lost GPU device (`VK_ERROR_DEVICE_LOST`: a driver reset, a GPU hang) is replaced by a new
/// one: every output gets a renderer on it, client dma-bufs are imported again and the surfaces
/// showing them copied again, and the observers remake what they drew on the old device
/// (`VulkanLayer`s); textures of images are uploaded again by the new renderers as frames need
/// them. Frames then resume showing the same scene.
extension Compositor {
    /// How many times the device was replaced.
    public var deviceReplacementCount: Int { deviceLoss.replacements }

    /// A call on the device reported it lost: it is replaced once this loop turn's work is done,
    /// not in the middle of a frame.
    func deviceWasLost(_ error: Error) {
        guard deviceLoss.cause == nil else { return }
        deviceLoss.cause = "\(error)"
    }

    /// Replaces a lost device, when one was reported and no earlier attempt waits to be retried;
    /// when no device can be made (the GPU is still resetting), tries again a second later.
    func replaceLostDevice() {
        guard let cause = deviceLoss.cause, !deviceLoss.isRetryArmed else { return }
        logger.error("the GPU device was lost (\(cause)): making a new one")
        let new: Renderer
        do {
            new = try Renderer(options: rendererOptions)
        } catch {
            logger.error("no new GPU device: \(error); trying again in 1 s")
            // Without a timer the next loop turn tries again.
            if deviceLoss.retry == nil {
                deviceLoss.retry = try? display.eventLoop.addTimer { [unowned self] in
                    deviceLoss.isRetryArmed = false
                    replaceLostDevice()
                }
            }
            deviceLoss.retry?.arm(milliseconds: 1000)
            deviceLoss.isRetryArmed = deviceLoss.retry != nil
            return
        }
        new.prepareWindowPipeline()
        device = new
        backend.useRenderTargetFormats(new.renderTargetFormats)
        deviceLoss.cause = nil
        deviceLoss.replacements += 1
        var failures: [String] = []
        for output in outputs {
            do {
                output.replaceRenderer(with: try makeOutputRenderer())
            } catch {
                failures.append("\(output.backend.name): \(error)")
            }
        }
        for mirror in mirrors {
            if let source = mirror.source { follow(source, with: mirror) }
        }
        let imported = dmabuf?.imports.replaceDevice(with: new) ?? 0
        Transaction.begin()
        Transaction.disableActions = true
        for node in nodes.values { node.deviceReplaced(dmabufs: dmabuf?.imports) }
        Transaction.commit()
        deviceReplaced.emit()
        if failures.isEmpty {
            logger.notice("renderers made again on \(new.deviceName), \(imported) dma-buf(s) imported again; frames resume")
        } else {
            logger.error("renderers made again on \(new.deviceName), but not for \(failures.joined(separator: "; "))")
        }
    }
}

/// What the compositor knows of a lost device.
struct DeviceLossState {
    /// Why the device is taken for lost, until it is replaced.
    var cause: String?
    /// The timer of the next attempt when no new device could be made, and whether it is armed.
    var retry: TimerSource?
    var isRetryArmed = false
    var replacements = 0
}
