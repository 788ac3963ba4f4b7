import Buffers
import Graphics
import LayerKit
import Logging
import Renderer
import WaylandServer

/// The compositor's side of zwp_linux_dmabuf_v1: client dma-bufs imported once, when the client
/// makes the wl_buffer, into the device that every output's renderer shares, and dropped when it
/// is destroyed. Frames sample an import where it lies when the device reads its layout as an
/// image, and otherwise copy a commit's damage from it (`DmabufImport`, `ClientBufferContents`).
///
/// Imports are single-plane, with the modifiers `Renderer.dmabufSupport()` offers; buffers with
/// other layouts or flags, and planes a client could shrink under the mapping, are refused, so
/// their clients hear `failed` and fall back to wl_shm.
final class DmabufImports: DmabufImporter {
    private var device: Renderer
    private let logger: Logger
    /// The imported buffers, by the attributes of the wl_buffer that owns their descriptors.
    private var imports: [DmabufAttributes: DmabufImport] = [:]

    private init(device: Renderer, logger: Logger) {
        self.device = device
        self.logger = logger
    }

    /// Advertises zwp_linux_dmabuf_v1 when `device` can import: version 4 with feedback naming its
    /// render node, or version 3 where it has none (lavapipe). Logs why when it cannot.
    static func advertise(on display: Display, device: Renderer, logger: Logger) -> (LinuxDmabufGlobal, DmabufImports)? {
        do {
            switch try device.dmabufSupport() {
            case .unsupported(let reason):
                logger.info("zwp_linux_dmabuf_v1 not advertised: \(reason) (clients use wl_shm)")
                return nil
            case .supported(let node, let supported):
                let imports = DmabufImports(device: device, logger: logger)
                let global: LinuxDmabufGlobal
                if let node {
                    let main = DeviceNumber(major: node.major, minor: node.minor)
                    global = try LinuxDmabufGlobal(
                        display: display,
                        feedback: DmabufFeedback(mainDevice: main, tranches: [DmabufTranche(targetDevice: main, formats: supported)]),
                        importer: imports)
                } else {
                    global = try LinuxDmabufGlobal(display: display, formats: supported, importer: imports)
                }
                logger.info(
                    "zwp_linux_dmabuf_v1 advertised: \(supported.count) format/modifier pairs, sampled in place where the device reads the layout, copied otherwise (\(device.deviceName))")
                return (global, imports)
            }
        } catch {
            logger.warning("zwp_linux_dmabuf_v1 not advertised: \(error)")
            return nil
        }
    }

    func importBuffer(_ attributes: DmabufAttributes) -> Bool {
        guard attributes.planes.count == 1, attributes.flags.isEmpty else {
            logger.info("dma-buf of \(attributes.format) refused: \(attributes.planes.count) planes, flags \(attributes.flags.rawValue); one plane without flags is imported")
            return false
        }
        // lavapipe and headless scanout read a mapping of the plane: memory a client can truncate
        // would kill the compositor with SIGBUS.
        guard attributes.planes[0].isFixedInSize else {
            logger.info("dma-buf of \(attributes.format) refused: its plane is neither a dma-buf nor a memfd sealed against shrinking")
            return false
        }
        do {
            imports[attributes] = try device.importDmabuf(DmabufLayout(firstPlaneOf: attributes))
            return true
        } catch {
            logger.info("dma-buf of \(attributes.format) refused: \(error)")
            return false
        }
    }

    func bufferDestroyed(_ attributes: DmabufAttributes) {
        imports[attributes] = nil
    }

    /// The import of the buffer with `attributes`, for the frames that draw its commits to copy
    /// from; nil when it is unknown (its import was dropped on a new device).
    func imported(_ attributes: DmabufAttributes) -> DmabufImport? {
        imports[attributes]
    }

    /// Imports every buffer again on `device`, which replaces the lost one; a buffer that fails
    /// is dropped (its surface shows nothing until its client attaches another). Returns how
    /// many were imported.
    func replaceDevice(with device: Renderer) -> Int {
        self.device = device
        let attributes = Array(imports.keys)
        imports = [:]
        for buffer in attributes {
            do {
                imports[buffer] = try device.importDmabuf(DmabufLayout(firstPlaneOf: buffer))
            } catch {
                logger.error("a \(buffer.width)×\(buffer.height) dma-buf cannot be imported on the new device: \(error)")
            }
        }
        return imports.count
    }
}
