import CLinux
import CXCB
import Glibc
import SystemCalls
import Testing
import WaylandServer

/// The limits of the selection bridge against clients that stop half-way (`XSelectionBridge`): at
/// most 16 transfers wait at once each way, each holds at most two chunks (256 KiB each), and one
/// that makes no progress for 5 s is given up, its pipe closed and what it held dropped. The X
/// side is a raw X client of the test (`RawXClient`); the Wayland side is a source that takes the
/// pipes and writes nothing until the test does, or pipes the test does not read, handed to the
/// seat as a Wayland client's paste is. The tests run side by side (each has its own compositor
/// and Xwayland), so the suite takes one 5 s deadline rather than five.
@Suite struct XSelectionLimitTests {
    private static let utf8Text = "text/plain;charset=utf-8"
    private static let chunk = 256 << 10
    private static let pipeSize = 64 << 10

    /// A Wayland selection whose source keeps each paste's pipe and writes nothing by itself.
    private final class HeldSource: SelectionProvider {
        let mimeTypes = [XSelectionLimitTests.utf8Text]
        private(set) var pipes: [OwnedFileDescriptor] = []
        func send(_ mimeType: String, into descriptor: OwnedFileDescriptor) { pipes.append(descriptor) }
        func selectionReplaced() {}
    }

    /// A session whose Xwayland runs, with a raw X client on it.
    private func startX() throws -> (session: XwaylandSession, x: RawXClient) {
        let session = try XwaylandSession()
        _ = try session.output(of: ["xdpyinfo"])
        return (session, try RawXClient(display: session.xwayland.displayName))
    }

    /// A non-blocking reading end and the writing end of a pipe that holds `pipeSize` bytes.
    private func makePipe() throws -> (read: OwnedFileDescriptor, write: OwnedFileDescriptor) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe2(&ends, O_CLOEXEC | O_NONBLOCK) == 0)
        #expect(fcntl(ends[1], F_SETPIPE_SZ, Int32(Self.pipeSize)) == Int32(Self.pipeSize))
        return (OwnedFileDescriptor(rawValue: ends[0]), OwnedFileDescriptor(rawValue: ends[1]))
    }

    /// Whether the writing end of the pipe was closed (its reading end hung up).
    private func hasEnded(_ reading: OwnedFileDescriptor) -> Bool {
        var poller = pollfd(fd: reading.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 1 && poller.revents & Int16(POLLHUP) != 0
    }

    /// How many bytes a pipe still held for its reading end.
    private func byteCount(readFrom reading: OwnedFileDescriptor) -> Int {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var received = 0
        while case let count = buffer.withUnsafeMutableBytes({ read(reading.rawValue, $0.baseAddress, $0.count) }), count > 0 { received += count }
        return received
    }

    /// Whether the reading end of a pipe was closed (its writing end reports an error).
    private func isOrphaned(_ writing: OwnedFileDescriptor) -> Bool {
        var poller = pollfd(fd: writing.rawValue, events: Int16(POLLOUT), revents: 0)
        return poll(&poller, 1, 0) == 1 && poller.revents & Int16(POLLERR) != 0
    }

    // MARK: Wayland to X

    /// `startX()` with a `HeldSource` as the clipboard, once the bridge owns X's `CLIPBOARD` for it.
    private func startXWithHeldSelection() throws -> (session: XwaylandSession, x: RawXClient, source: HeldSource) {
        let (session, x) = try startX()
        let source = HeldSource()
        session.compositor.seat.setSelection(source, kind: .clipboard)
        let clipboard = x.atom("CLIPBOARD")
        try #require(try session.run(seconds: 5) { x.selectionOwner(of: clipboard) != 0 })
        return (session, x, source)
    }

    @Test func conversionsPastSixteenAreRefusedAndStalledOnesGivenUpAfterFiveSeconds() throws {
        let (session, x, source) = try startXWithHeldSelection()
        let clipboard = x.atom("CLIPBOARD")
        let utf8 = x.atom("UTF8_STRING")
        let property = x.atom("VITRINE_LIMIT")
        // Seventeen requestors ask at once (a SelectionNotify names its requestor).
        let requestors = (0..<17).map { _ in x.createWindow(width: 1, height: 1) }
        for requestor in requestors { x.convertSelection(clipboard, to: utf8, into: property, of: requestor, time: UInt32(XCB_CURRENT_TIME)) }
        var answers: [UInt32: UInt32] = [:]
        func collect() {
            for case .selectionNotify(let notify) in x.events() { answers[notify.requestor] = notify.property }
        }
        #expect(try session.run(seconds: 4) { collect(); return !answers.isEmpty && source.pipes.count == 16 })
        try session.run(seconds: 0.3) { collect(); return false }
        // The last is refused at once; sixteen wait for the source, each with its pipe.
        #expect(answers == [requestors[16]: 0])
        #expect(source.pipes.count == 16)

        // Five seconds without progress: each is refused, and its pipe closed.
        #expect(try session.run(seconds: 15) { collect(); return answers.count == 17 })
        #expect(answers == Dictionary(uniqueKeysWithValues: requestors.map { ($0, UInt32(0)) }))
        #expect(source.pipes.filter(isOrphaned).count == 16)

        // Their places are free: a new conversion reaches the source, and gets what it writes.
        x.convertSelection(clipboard, to: utf8, into: property, of: requestors[0], time: UInt32(XCB_CURRENT_TIME))
        #expect(try session.run(seconds: 5) { collect(); return source.pipes.count == 17 })
        answers = [:]
        #expect(Array("kiosk".utf8).withUnsafeBytes { write(source.pipes[16].rawValue, $0.baseAddress, $0.count) } == 5)
        source.pipes[16].close()
        #expect(try session.run(seconds: 5) { collect(); return answers[requestors[0]] == property })
    }

    @Test func anIncrementalConversionHoldsTwoChunksOfASourceAndIsGivenUpWhenTheRequestorStops() throws {
        let (session, x, source) = try startXWithHeldSelection()
        let clipboard = x.atom("CLIPBOARD")
        let property = x.atom("VITRINE_LIMIT")
        let requestor = x.createWindow(width: 1, height: 1)
        x.convertSelection(clipboard, to: x.atom("UTF8_STRING"), into: property, of: requestor, time: UInt32(XCB_CURRENT_TIME))
        #expect(try session.run(seconds: 5) { source.pipes.count == 1 })
        let writing = source.pipes[0]
        _ = fcntl(writing.rawValue, F_SETFL, O_NONBLOCK)
        let pipeSize = Int(fcntl(writing.rawValue, F_GETPIPE_SZ))
        var notified: UInt32?
        // The source writes all it can; the requestor never deletes INCR to take a chunk.
        let block = [UInt8](repeating: UInt8(ascii: "v"), count: 16 << 10)
        var written = 0
        var idleRounds = 0
        while idleRounds < 20 {
            let count = block.withUnsafeBytes { write(writing.rawValue, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
                idleRounds = 0
            } else {
                idleRounds += 1
                try session.run(seconds: 0.05)
            }
            for case .selectionNotify(let notify) in x.events() { notified = notify.property }
        }
        #expect(notified == property)
        #expect(x.propertyType(property, of: requestor) == x.atom("INCR"))
        // Two chunks in the bridge (read up to 64 KiB at a time until it holds them), and the
        // full pipe.
        #expect((2 * Self.chunk + pipeSize)..<(2 * Self.chunk + pipeSize + 65_536) ~= written, "\(written) bytes taken")

        // Five seconds without progress: given up, the pipe's reading end closed.
        #expect(try session.run(seconds: 15) { isOrphaned(writing) })
    }

    // MARK: X to Wayland

    /// Makes a window of `x` own `selection`, and returns what serves its requests among
    /// `events`: `TARGETS` is answered with `UTF8_STRING`, and a request for data goes to `data`.
    private func own(
        _ selection: UInt32, by x: RawXClient
    ) -> (_ events: [RawXClient.Event], _ data: (xcb_selection_request_event_t) -> Void) -> Void {
        x.setSelectionOwner(x.createWindow(width: 1, height: 1), of: selection)
        let targets = x.atom("TARGETS")
        let utf8 = x.atom("UTF8_STRING")
        return { events, data in
            for case .selectionRequest(let request) in events {
                if request.target == targets {
                    x.setProperty(request.property, of: request.requestor, type: UInt32(XCB_ATOM_ATOM.rawValue), words: [targets, utf8])
                    x.notify(request, property: request.property)
                } else {
                    data(request)
                }
            }
        }
    }

    @Test func pastesPastSixteenAreRefusedAndEachOfAStalledOwnerGivenUpAfterFiveSeconds() throws {
        let (session, x) = try startX()
        let seat = session.compositor.seat
        let clipboard = x.atom("CLIPBOARD")
        let serve = own(clipboard, by: x)
        var requests: [xcb_selection_request_event_t] = []
        // The owner never answers a request for data.
        let stall = { (request: xcb_selection_request_event_t) in requests.append(request) }
        #expect(try session.run(seconds: 10) { serve(x.events(), stall); return seat.selectionMimeTypes(.clipboard) == [Self.utf8Text] })
        var readingEnds: [OwnedFileDescriptor] = []
        for _ in 0..<17 {
            let (reading, writing) = try makePipe()
            readingEnds.append(reading)
            seat.receiveSelection(Self.utf8Text, kind: .clipboard, into: writing)
        }
        #expect(try session.run(seconds: 4) { serve(x.events(), stall); return requests.count == 1 && hasEnded(readingEnds[16]) })
        try session.run(seconds: 0.3) { serve(x.events(), stall); return false }
        // One conversion at a time; the seventeenth paste is refused at once (its pipe closed).
        #expect(requests.count == 1)
        #expect(readingEnds.map(hasEnded) == Array(repeating: false, count: 16) + [true])

        // Five seconds without an answer: the paste ends, and the next is converted.
        #expect(try session.run(seconds: 15) { serve(x.events(), stall); return hasEnded(readingEnds[0]) })
        #expect(try session.run(seconds: 2) { serve(x.events(), stall); return requests.count == 2 })
        #expect(readingEnds[1..<16].filter(hasEnded).isEmpty)

        // The X owner lets the selection go: the pastes still waiting end at once.
        x.setSelectionOwner(0, of: clipboard)
        #expect(try session.run(seconds: 5) { serve(x.events(), stall); return readingEnds.allSatisfy(hasEnded) })
    }

    @Test func anIncrementalPasteHoldsTwoChunksForAReaderThatStopsAndIsGivenUpAfterFiveSeconds() throws {
        let (session, x) = try startX()
        let seat = session.compositor.seat
        let clipboard = x.atom("CLIPBOARD")
        let utf8 = x.atom("UTF8_STRING")
        let serve = own(clipboard, by: x)
        var transfer: xcb_selection_request_event_t?
        var chunksPut = 0
        // The owner answers INCR, and puts a chunk each time the bridge deleted the last.
        let incremental = { (request: xcb_selection_request_event_t) in
            x.selectEvents(of: request.requestor, mask: UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue))
            x.setProperty(request.property, of: request.requestor, type: x.atom("INCR"), words: [UInt32(16 << 20)])
            x.notify(request, property: request.property)
            transfer = request
        }
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: Self.chunk)
        func serveChunks() {
            let events = x.events()
            serve(events, incremental)
            for case .propertyNotify(let notify) in events {
                guard let transfer, notify.window == transfer.requestor, notify.atom == transfer.property,
                      notify.state == UInt8(XCB_PROPERTY_DELETE.rawValue) else { continue }
                chunksPut += 1
                x.setProperty(transfer.property, of: transfer.requestor, type: utf8, bytes: chunk)
            }
        }
        #expect(try session.run(seconds: 10) { serveChunks(); return seat.selectionMimeTypes(.clipboard) == [Self.utf8Text] })
        let (reading, writing) = try makePipe()
        seat.receiveSelection(Self.utf8Text, kind: .clipboard, into: writing)
        // The reader takes nothing: the first chunk fills the pipe and the rest of it waits in the
        // bridge, and the second waits in X, not read.
        #expect(try session.run(seconds: 4) { serveChunks(); return chunksPut == 2 })
        try session.run(seconds: 0.5) { serveChunks(); return false }
        #expect(chunksPut == 2)
        #expect(!hasEnded(reading))

        // Five seconds without progress: the pipe is closed, the chunk's rest dropped; the
        // reader finds what the pipe held, then the end.
        #expect(try session.run(seconds: 15) { serveChunks(); return hasEnded(reading) })
        #expect(byteCount(readFrom: reading) == Self.pipeSize)
        #expect(chunksPut == 2)
    }

    /// A paste whose data all came but whose reader stopped taking it is closed 5 s after it
    /// ended, with what the pipe did not take dropped.
    @Test func aFinishedPasteWhoseReaderStopsIsClosedAfterFiveSeconds() throws {
        let (session, x) = try startX()
        let seat = session.compositor.seat
        let clipboard = x.atom("CLIPBOARD")
        let utf8 = x.atom("UTF8_STRING")
        let serve = own(clipboard, by: x)
        // All the data at once, in one property: more than the pipe holds.
        let data = [UInt8](repeating: UInt8(ascii: "y"), count: 200 << 10)
        let answer = { (request: xcb_selection_request_event_t) in
            x.setProperty(request.property, of: request.requestor, type: utf8, bytes: data)
            x.notify(request, property: request.property)
        }
        #expect(try session.run(seconds: 10) { serve(x.events(), answer); return seat.selectionMimeTypes(.clipboard) == [Self.utf8Text] })
        let (reading, writing) = try makePipe()
        seat.receiveSelection(Self.utf8Text, kind: .clipboard, into: writing)
        try session.run(seconds: 2) { serve(x.events(), answer); return false }
        #expect(!hasEnded(reading))
        #expect(try session.run(seconds: 15) { serve(x.events(), answer); return hasEnded(reading) })
        #expect(byteCount(readFrom: reading) == Self.pipeSize)
    }
}
