import Buffers
import Foundation
import LayerKit
import Renderer

/// A display's frames at 1280×800 into a ring of two page-aligned buffers (`HostMemoryBuffer`, a
/// headless output's, standing in for dumb buffers' mappings): as the KMS backend did, a frame
/// read back into an `Image` and then copied row by row into the buffer, against the renderer
/// writing it into the buffer itself (the memory imported with VK_EXT_external_memory_host, only
/// the buffer's damage copied). Full
/// frames and frames with one small damaged tile, the two paths alternating so that a changing
/// load weighs on both alike. Reports medians of the wall time and of the calling thread's CPU time per frame.
@MainActor
func benchmarkHostBuffers(renderer: Renderer, texture: Image) throws {
    let (width, height) = (1280, 800)
    let scene = makeScene(layers: 100, texture: texture, width: 1280, height: 800)
    let tile = scene.tiles[scene.tiles.count / 2]
    let buffers = (0..<2).map { _ in HostMemoryBuffer(width: width, height: height, format: .xrgb8888)! }
    var next = 0
    func frame(inPlace: Bool) throws {
        next = (next + 1) % 2
        let buffer = buffers[next]
        if inPlace {
            try renderer.render(scene.context.renderTree!, into: buffer, scale: 1, clearColor: .clear).finish()
            return
        }
        copyRows(
            of: try renderer.render(scene.context.renderTree!, width: width, height: height), into: buffer.mapping.baseAddress!,
            pitch: buffer.bytesPerRow)
    }
    var flip = false
    var samples: [String: [(wall: Double, cpu: Double)]] = [:]
    func measure(_ key: String, inPlace: Bool) throws {
        let cpu = threadCPUSeconds()
        let start = ContinuousClock.now
        try frame(inPlace: inPlace)
        let wall = ContinuousClock.now - start
        samples[key, default: []].append(
            (Double(wall.components.attoseconds) * 1e-18 + Double(wall.components.seconds), threadCPUSeconds() - cpu))
    }
    // Each round, per path: a full frame, then damaged frames into the alternating buffers; the
    // first damaged frame fills the other buffer in full, the next ones are the steady state
    // (each buffer two frames old).
    for _ in 0..<9 {
        for inPlace in [false, true] {
            let path = inPlace ? "in place" : "image + copy"
            renderer.invalidatePreviousFrame()
            try measure("full frame \(path)", inPlace: inPlace)
            for step in 0..<4 {
                flip.toggle()
                Transaction.begin()
                Transaction.disableActions = true
                tile.backgroundColor = flip ? .green : .red
                Transaction.commit()
                if step == 0 {
                    try frame(inPlace: inPlace)
                } else {
                    try measure("one tile damaged \(path)", inPlace: inPlace)
                }
            }
        }
    }
    print("host buffers: memory imported: \(buffers.allSatisfy(renderer.importsMemory(of:)))")
    for key in samples.keys.sorted() {
        let s = samples[key]!
        let wall = s.map(\.wall).sorted()[s.count / 2]
        let cpu = s.map(\.cpu).sorted()[s.count / 2]
        print("1280×800 \(key.padding(toLength: 31, withPad: " ", startingAt: 0)) wall \(milliseconds(wall))   thread CPU \(milliseconds(cpu))")
    }
}

/// What the KMS backend does with an `Image` frame: its rows copied into the dumb buffer.
func copyRows(of image: Image, into buffer: UnsafeMutableRawPointer, pitch: Int) {
    image.withUnsafeBytes { bytes in
        for row in 0..<image.height {
            (buffer + row * pitch).copyMemory(from: bytes.baseAddress! + row * image.bytesPerRow, byteCount: image.width * 4)
        }
    }
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}
