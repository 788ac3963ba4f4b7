import Foundation

/// One request on the compositor's control socket (see Compositor/ControlProtocol.swift): a line of
/// JSON out, then a header line and its body back until the server closes. Sessions ask for
/// captures while their surfaces are shown, so that the paths that read client buffers outside the
/// protocol (a frame scanned out directly, a layer drawn again as PDF) meet what the fuzzer did to
/// those buffers.
final class ControlCapture {
    let socket: WaylandSocket
    let request: String
    let started: Double
    private var reply: [UInt8] = []

    enum Outcome: Equatable {
        case pending
        /// The header said ok and the body had its length.
        case answered(mediaType: String)
        /// The header said why not ("output 0 has shown no frame yet").
        case refused(String)
        /// A reply that breaks the protocol: no header, or a body of another length.
        case malformed(String)
    }

    init?(path: String, request: String, now: Double) {
        guard let socket = try? WaylandSocket(path: path) else { return nil }
        self.socket = socket
        self.request = request
        started = now
        socket.enqueue(Array((request + "\n").utf8))
        _ = socket.flush()
    }

    /// Reads what came; the outcome once the server closed the connection.
    func receive() -> Outcome {
        _ = socket.flush()
        while true {
            switch socket.receive() {
            case .wouldBlock: return .pending
            case .bytes(let bytes): reply += bytes
            case .closed:
                socket.close()
                return outcome()
            }
        }
    }

    private func outcome() -> Outcome {
        guard let newline = reply.firstIndex(of: UInt8(ascii: "\n")),
              let header = try? JSONSerialization.jsonObject(with: Data(reply[..<newline])) as? [String: Any],
              let ok = header["ok"] as? Bool else {
            return .malformed("no header line in \(reply.count) bytes")
        }
        guard ok else { return .refused(header["error"] as? String ?? "") }
        let body = reply.count - newline - 1
        guard let length = header["length"] as? Int, length == body, let mediaType = header["mediaType"] as? String else {
            return .malformed("a header of length \(header["length"] ?? "none") before \(body) bytes")
        }
        return .answered(mediaType: mediaType)
    }

    /// A request a session sends: mostly the whole output's last frame as PNG (what a directly
    /// scanned-out client buffer gives), else drawn again as PDF or SVG, of a window by the names
    /// sessions give (their app IDs and titles), at another scale, or the status.
    static func request(_ random: inout FuzzRandom) -> String {
        switch random.below(10) {
        case 0..<6: return #"{"command":"capture"}"#
        case 6: return #"{"command":"capture","format":"\#(random.pick(["pdf", "svg"]))"}"#
        case 7: return #"{"command":"capture","layer":"\#(random.pick(["vitrine-fuzz", "kiosk", "text/plain"]))","format":"\#(random.pick(["png", "pdf", "svg"]))"}"#
        case 8: return #"{"command":"capture","scale":\#(random.pick(["0.5", "2", "1.5"]))}"#
        default: return #"{"command":"status"}"#
        }
    }
}
