import Glibc
import SystemCalls
import Testing
@testable import Renderer

/// A failed dma-buf import closes the duplicate it gave the driver exactly once: itself while the
/// duplicate is still the caller's file (the specification's rule), not at all once the driver
/// closed it (lavapipe's way), since the number may by then name another descriptor.
@Suite struct FailedDmabufImportTests {
    @Test func aDuplicateTheDriverLeftOpenIsClosed() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        #expect(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
        let duplicate = dup(ends[1])
        try #require(duplicate >= 0)
        releaseAfterFailedImport(OwnedFileDescriptor(rawValue: duplicate), of: ends[1])
        close(ends[1])
        // End of file: no write end is left open, the duplicate included.
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 0)
    }

    @Test func aNumberTheDriverClosedAndAnotherDescriptorTookStaysOpen() throws {
        let caller = linearBufferFile(width: 1, rows: 1, stride: 4, offset: 0, pixel: [0, 0, 0, 0xFF])
        defer { close(caller) }
        let duplicate = dup(caller)
        try #require(duplicate >= 0)
        // What lavapipe's failed import and another thread's open leave: the duplicate's number
        // names another file (dup2 replaces it in one step, so no other thread can slip in).
        let other = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(other >= 0)
        defer { close(other) }
        try #require(dup2(other, duplicate) == duplicate)
        defer { close(duplicate) }
        releaseAfterFailedImport(OwnedFileDescriptor(rawValue: duplicate), of: caller)
        #expect(identity(of: duplicate) == identity(of: other))
    }

    /// Device and inode of the file `fd` names, or nil when it names none.
    private func identity(of fd: Int32) -> [UInt]? {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        return [UInt(status.st_dev), UInt(status.st_ino)]
    }
}
