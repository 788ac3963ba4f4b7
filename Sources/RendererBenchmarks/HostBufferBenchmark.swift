import Foundation
import LayerKit
import Renderer

/// A KMS output's frames at 1280×800 into a ring of two page-aligned buffers standing in for
/// dumb buffers' mappings (anonymous mmaps, rows padded to 5,376 bytes as a driver's pitch may
/// be): as the KMS backend did, a frame read back into an `Image` and then copied row by row into
/// the buffer, against the renderer writing it into the buffer itself (`HostBufferTarget`, the
/// memory imported with VK_EXT_external_memory_host, only the buffer's damage copied). Full
/// frames and frames with one small damaged tile, alternating so that a changing load weighs on
/// both alike. Reports medians of the wall time and of the calling thread's CPU time per frame.
@MainActor
func benchmarkHostBuffers(renderer: Renderer, texture: Image) throws {
    let (width, height, pitch) = (1280, 800, 5376)
    let scene = makeScene(layers: 100, texture: texture, width: 1280, height: 800)
    let tile = scene.tiles[scene.tiles.count / 2]
    let mappings = (0..<2).map { _ in
        UnsafeMutableRawBufferPointer(
            start: mmap(nil, pitch * height, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), count: pitch * height)
    }
    defer { for mapping in mappings { munmap(mapping.baseAddress, mapping.count) } }
    let targets = try mappings.map { mapping in
        try renderer.makeHostBufferTarget(memory: mapping, width: width, height: height, bytesPerRow: pitch, owner: nil)
    }
    print("host buffers: memory imported: \(targets.allSatisfy(\.importsMemory))")
    var next = 0
    func frame(inPlace: Bool) throws {
        next = (next + 1) % 2
        if inPlace {
            try renderer.render(scene.context.renderTree!, into: targets[next])
            return
        }
        let image = try renderer.render(scene.context.renderTree!, width: width, height: height)
        let buffer = mappings[next].baseAddress!
        image.withUnsafeBytes { bytes in
            for row in 0..<height {
                (buffer + row * pitch).copyMemory(from: bytes.baseAddress! + row * image.bytesPerRow, byteCount: width * 4)
            }
        }
    }
    var flip = false
    var samples: [String: [(wall: Double, cpu: Double)]] = [:]
    for _ in 0..<15 {
        for damaged in [false, true] {
            for inPlace in [false, true] {
                if damaged {
                    flip.toggle()
                    Transaction.begin()
                    Transaction.disableActions = true
                    tile.backgroundColor = flip ? .green : .red
                    Transaction.commit()
                } else {
                    renderer.invalidatePreviousFrame()
                }
                let cpu = threadCPUSeconds()
                let start = ContinuousClock.now
                try frame(inPlace: inPlace)
                let wall = ContinuousClock.now - start
                let key = "\(damaged ? "one tile damaged" : "full frame") \(inPlace ? "in place" : "image + copy")"
                samples[key, default: []].append(
                    (Double(wall.components.attoseconds) * 1e-18 + Double(wall.components.seconds), threadCPUSeconds() - cpu))
            }
        }
    }
    for key in samples.keys.sorted() {
        let s = samples[key]!
        let wall = s.map(\.wall).sorted()[s.count / 2]
        let cpu = s.map(\.cpu).sorted()[s.count / 2]
        print("1280×800 \(key.padding(toLength: 31, withPad: " ", startingAt: 0)) wall \(milliseconds(wall))   thread CPU \(milliseconds(cpu))")
    }
}

func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
}
