import Glibc
import SystemCalls
import Logging
import Testing

@testable import KioskShell

@Suite struct JournalLogHandlerTests {
    /// What a logger with a JournalLogHandler on a pipe writes for `body`.
    static func written(_ body: (Logger) -> Void) throws -> String {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        var logger = Logger(label: "vitrine") { JournalLogHandler(label: $0, fileDescriptor: FileDescriptor(rawValue: ends[1])) }
        logger.logLevel = .trace
        body(logger)
        close(ends[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func eachEntryCarriesItsSyslogPriorityAndNoTimestamp() throws {
        let text = try Self.written { logger in
            logger.debug("d")
            logger.info("first frame on screen")
            logger.notice("n")
            logger.warning("w")
            logger.error("e")
            logger.critical("c")
        }
        #expect(text == """
            <7>vitrine: [KioskShellTests] d
            <6>vitrine: [KioskShellTests] first frame on screen
            <5>vitrine: [KioskShellTests] n
            <4>vitrine: [KioskShellTests] w
            <3>vitrine: [KioskShellTests] e
            <2>vitrine: [KioskShellTests] c

            """)
    }

    @Test func everyLineOfAMessageIsAnEntryAndMetadataFollowsSortedByKey() throws {
        let text = try Self.written { logger in
            var logger = logger
            logger[metadataKey: "output"] = "Virtual-1"
            logger.warning("cannot light\nthe display", metadata: ["connector": "34"], source: "KMS")
        }
        #expect(text == """
            <4>vitrine: [KMS] cannot light
            <4>vitrine: [KMS] the display connector=34 output=Virtual-1

            """)
    }

    @Test func onlyTheDescriptorJournalStreamNamesIsTheJournal() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var status = stat()
        try #require(fstat(ends[1], &status) == 0)
        let stream = "\(status.st_dev):\(status.st_ino)"
        #expect(JournalLogHandler.isJournalStream(FileDescriptor(rawValue: ends[1]), environment: ["JOURNAL_STREAM": stream]))
        #expect(!JournalLogHandler.isJournalStream(FileDescriptor(rawValue: ends[1]), environment: [:]))
        #expect(!JournalLogHandler.isJournalStream(FileDescriptor(rawValue: ends[1]), environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]))
        #expect(!JournalLogHandler.isJournalStream(FileDescriptor(rawValue: -1), environment: ["JOURNAL_STREAM": stream]))
    }
}
