import Compositor
import ControlSocket
import Foundation
import Testing

/// The control socket's request and reply encoding, byte for byte.
@Suite struct ControlProtocolTests {
    @Test func aRequestTravelsAsOneLineOfJSONWithSortedKeysAndWithoutAbsentFields() throws {
        let capture = ControlRequest(command: .capture, format: .png, output: 0)
        #expect(String(decoding: try capture.encodedLine(), as: UTF8.self) == #"{"command":"capture","format":"png","output":0}"# + "\n")
        let full = ControlRequest(command: .capture, format: .svg, output: 2, layer: "clock", scale: 1.5)
        #expect(String(decoding: try full.encodedLine(), as: UTF8.self)
            == #"{"command":"capture","format":"svg","layer":"clock","output":2,"scale":1.5}"# + "\n")
    }

    @Test func aRequestLineDecodesWithItsOptionalFields() throws {
        #expect(try ControlRequest.decode(line: Array(#"{"command":"status"}"#.utf8)) == ControlRequest(command: .status))
        // Fields of a newer client are ignored.
        #expect(try ControlRequest.decode(line: Array(#"{"command":"status","verbose":true}"#.utf8)) == ControlRequest(command: .status))
        #expect(try ControlRequest.decode(line: Array(#"{"command":"capture","format":"pdf","output":1,"layer":null,"scale":2}"#.utf8))
            == ControlRequest(command: .capture, format: .pdf, output: 1, layer: nil, scale: 2))
        let full = ControlRequest(command: .capture, format: .svg, output: 2, layer: "clock", scale: 1.5)
        #expect(try ControlRequest.decode(line: try full.encodedLine().dropLast()) == full)
    }

    @Test func badRequestLinesAreNamedInWords() {
        func reason(_ line: String) -> ControlProtocolError? {
            do {
                _ = try ControlRequest.decode(line: Array(line.utf8))
                return nil
            } catch {
                return error
            }
        }
        #expect(reason("capture please") == .malformedRequest("not a line of JSON"))
        #expect(reason(#"{"command":"capture""#) == .malformedRequest("not a line of JSON"))
        #expect(reason(#"{"output":0}"#) == .malformedRequest(#"no "command" in the request"#))
        #expect(reason(#"{"command":"capture","output":"first"}"#) == .malformedRequest(#""output" has the wrong type"#))
        #expect(reason(#"{"command":"capture","format":"jpeg"}"#) == .malformedRequest(#"unknown format "jpeg" (known: png, pdf, svg)"#))
        #if DEBUG
        #expect(reason(#"{"command":"reboot"}"#) == .malformedRequest(#"unknown command "reboot" (known: capture, status, print, hang)"#))
        #else
        #expect(reason(#"{"command":"hang"}"#) == .malformedRequest(#"unknown command "hang" (known: capture, status, print)"#))
        #endif
        #expect(ControlProtocolError.malformedRequest("not a line of JSON").description == "malformed request: not a line of JSON")
    }

    @Test func aSuccessIsAHeaderLineWithTheBodysLengthThenTheBody() {
        let reply = ControlReply.success(mediaType: "image/png", body: [0x89, 0x50, 0x4E, 0x47])
        #expect(reply.encoded() == Array(#"{"length":4,"mediaType":"image/png","ok":true}"#.utf8) + [0x0A, 0x89, 0x50, 0x4E, 0x47])
    }

    @Test func aFailureIsAHeaderLineWithTheErrorAndNoBody() {
        #expect(String(decoding: ControlReply.failure("output 3 has shown no frame yet").encoded(), as: UTF8.self)
            == #"{"error":"output 3 has shown no frame yet","ok":false}"# + "\n")
    }

    @Test func aStatusBodyIsSortedJSONThatReadsBack() throws {
        let status = ControlStatus(
            version: "0.1.0", display: "wayland-1",
            outputs: [OutputStatus(
                name: "HDMI-A-1", width: 1920, height: 1080, refreshMillihertz: 60000, scale: 2, transform: 1, hasFrame: true, x: 0, y: 0)],
            mirrors: [MirrorStatus(
                name: "DSI-1", width: 800, height: 480, refreshMillihertz: 60000, transform: 0, source: "HDMI-A-1", isShowingSource: true)],
            clients: 2, app: ControlStatus.App(command: ["cog", "https://example.com"], pid: 42, starts: 3))
        guard case .success(let mediaType, let body) = ControlReply.json(status) else {
            Issue.record("the status did not encode")
            return
        }
        #expect(mediaType == "application/json")
        #expect(String(decoding: body, as: UTF8.self) == #"""
            {"app":{"command":["cog","https://example.com"],"pid":42,"starts":3},"clients":2,"display":"wayland-1","mirrors":[{"height":480,"isShowingSource":true,"name":"DSI-1","refreshMillihertz":60000,"source":"HDMI-A-1","transform":0,"width":800}],"outputs":[{"hasFrame":true,"height":1080,"isScanningOutDirectly":false,"name":"HDMI-A-1","refreshMillihertz":60000,"scale":2,"transform":1,"width":1920,"x":0,"y":0}],"version":"0.1.0"}
            """#)
        #expect(try JSONDecoder().decode(ControlStatus.self, from: Data(body)) == status)
    }

    @Test func theDefaultSocketLiesBesideTheWaylandSocket() {
        #expect(ControlServer.defaultPath(forDisplay: "wayland-1", runtimeDirectory: "/run/user/1000") == "/run/user/1000/vitrine-wayland-1.control")
        #expect(ControlServer.defaultPath(forDisplay: "/run/kiosk/wayland-0", runtimeDirectory: "/run/user/1000") == "/run/kiosk/vitrine-wayland-0.control")
    }

    @Test func captureFormatsNameTheirMediaTypes() {
        #expect(CaptureFormat.allCases.map(\.mediaType) == ["image/png", "application/pdf", "image/svg+xml"])
    }
}
