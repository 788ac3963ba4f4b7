import Foundation
import Glibc

/// A small RFB (VNC, protocol 3.8) client for tests: no security, raw encoding, 32-bit
/// 0x00RRGGBB pixels. Non-blocking, so that the compositor under test runs between reads: `receive`
/// takes what arrived and applies every whole message to `framebuffer`.
final class RFBClient {
    private let socket: Int32
    private var input: [UInt8] = []
    private(set) var width = 0
    private(set) var height = 0
    private(set) var desktopName = ""
    /// The remote screen as received, row by row.
    private(set) var framebuffer: [UInt32] = []
    /// The rectangles of each framebuffer update received, in order.
    private(set) var updates: [[(x: Int, y: Int, width: Int, height: Int)]] = []
    private enum Phase { case version, securityTypes, securityResult, serverInit, normal }
    private var phase = Phase.version
    /// Why the server refused the connection, if it did.
    private(set) var failure: String?

    /// Connects to the server's UNIX socket at `path`; nil while nothing listens there.
    init?(socketPath path: String) {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        socket = fd
    }

    deinit {
        close(socket)
    }

    /// Whether the handshake is done and the server's screen size known.
    var isConnected: Bool { phase == .normal }

    /// Reads what arrived and handles every whole message; false once the server hung up.
    @discardableResult
    func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(socket, &chunk, chunk.count)
            if count > 0 {
                input += chunk[0..<count]
            } else {
                if count == 0 { return false }
                break
            }
        }
        while handleMessage() {}
        return true
    }

    /// Asks for the whole screen (`incremental` false) or what changed since the last update.
    func requestUpdate(incremental: Bool) {
        send([3, incremental ? 1 : 0] + u16(0) + u16(0) + u16(width) + u16(height))
    }

    /// Moves the pointer to (`x`, `y`) with `buttons` held (bit 0: left).
    func pointer(x: Int, y: Int, buttons: UInt8) {
        send([5, buttons] + u16(x) + u16(y))
    }

    private func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            if count > 0 { sent += count } else if errno != EAGAIN && errno != EINTR { return }
        }
    }

    private func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }

    /// Handles the first whole message in `input`; false when none is complete yet.
    private func handleMessage() -> Bool {
        var reader = Reader(bytes: input)
        guard let handled = try? handle(&reader), handled else { return false }
        input.removeFirst(reader.offset)
        return true
    }

    private struct Incomplete: Error {}

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0
        mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard bytes.count - offset >= count else { throw Incomplete() }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }
        mutating func u8() throws -> Int { Int(try take(1).first!) }
        mutating func u16() throws -> Int { try take(2).reduce(0) { $0 << 8 | Int($1) } }
        mutating func u32() throws -> Int { try take(4).reduce(0) { $0 << 8 | Int($1) } }
    }

    private func handle(_ reader: inout Reader) throws -> Bool {
        switch phase {
        case .version:
            let version = String(decoding: try reader.take(12), as: UTF8.self)
            guard version.hasPrefix("RFB 003.") else {
                failure = "not an RFB server: \(version)"
                return false
            }
            send(Array("RFB 003.008\n".utf8))
            phase = .securityTypes
        case .securityTypes:
            let count = try reader.u8()
            let types = try reader.take(count)
            guard types.contains(1) else {
                failure = count == 0 ? "refused" : "no security type None among \(Array(types))"
                return false
            }
            send([1])
            phase = .securityResult
        case .securityResult:
            guard try reader.u32() == 0 else {
                failure = "security handshake failed"
                return false
            }
            send([1])  // ClientInit: share the desktop.
            phase = .serverInit
        case .serverInit:
            width = try reader.u16()
            height = try reader.u16()
            _ = try reader.take(16)
            desktopName = String(decoding: try reader.take(try reader.u32()), as: UTF8.self)
            framebuffer = Array(repeating: 0, count: width * height)
            // 32 bits per pixel, depth 24, little-endian, true colour, 8 bits per channel at 16, 8, 0.
            send([0, 0, 0, 0, 32, 24, 0, 1] + u16(255) + u16(255) + u16(255) + [16, 8, 0, 0, 0, 0])
            send([2, 0] + u16(1) + [0, 0, 0, 0])  // SetEncodings: raw only.
            phase = .normal
        case .normal:
            try handleServerMessage(&reader)
        }
        return true
    }

    private func handleServerMessage(_ reader: inout Reader) throws {
        switch try reader.u8() {
        case 0:
            _ = try reader.take(1)
            var rects: [(x: Int, y: Int, width: Int, height: Int)] = []
            var pixels: [(rect: (x: Int, y: Int, width: Int, height: Int), data: ArraySlice<UInt8>)] = []
            for _ in 0..<(try reader.u16()) {
                let rect = (x: try reader.u16(), y: try reader.u16(), width: try reader.u16(), height: try reader.u16())
                guard try reader.u32() == 0 else { throw Incomplete() }
                pixels.append((rect, try reader.take(rect.width * rect.height * 4)))
                rects.append(rect)
            }
            // Applied only once the whole update arrived.
            for (rect, data) in pixels {
                data.withUnsafeBytes { bytes in
                    for row in 0..<rect.height where rect.y + row < height {
                        for column in 0..<rect.width where rect.x + column < width {
                            framebuffer[(rect.y + row) * width + rect.x + column] =
                                bytes.loadUnaligned(fromByteOffset: (row * rect.width + column) * 4, as: UInt32.self) & 0xff_ffff
                        }
                    }
                }
            }
            updates.append(rects)
        case 1:
            _ = try reader.take(3)
            _ = try reader.take(try reader.u16() * 6)
        case 2:
            break
        case 3:
            _ = try reader.take(3)
            _ = try reader.take(try reader.u32())
        default:
            failure = "unknown server message"
            throw Incomplete()
        }
    }
}
