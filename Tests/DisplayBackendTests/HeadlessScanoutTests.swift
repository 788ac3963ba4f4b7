import BufferFixtures
import Buffers
import DisplayBackend
import Glibc
import Graphics
import HeadlessBackend
import Testing

/// A client's buffer scanned out by a headless output.
@Suite struct HeadlessScanoutTests {
    /// A client may destroy its wl_buffer, which closes the descriptor it lent, while the output
    /// still scans the buffer out: the output's buffer holds a descriptor of its own, which still
    /// names the client's file, and the frame still reads.
    @Test func aScannedOutBufferKeepsItsOwnDescriptorAfterTheLentOneIsClosed() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.outputs[0]
        let headless = backend.headlessOutput(0)
        // tmpfile() is already unlinked; the descriptor outlives the stream through dup().
        let stream = try #require(tmpfile())
        let fd = dup(fileno(stream))
        fclose(stream)
        let rows = [UInt32](repeating: 0xFF00_80FF, count: 64 * 48)
        #expect(rows.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == 64 * 48 * 4)
        var lent = stat()
        #expect(fstat(fd, &lent) == 0)
        var released = false
        let layout = DmabufLayout(fileDescriptor: fd, width: 64, height: 48, format: .xrgb8888, modifier: 0, offset: 0, stride: 256)
        let client = ClientDmabuf(layout) { released = true }
        // The state comes with a hold, which the output keeps while it shows the buffer.
        client.hold()
        #expect(try output.commit(OutputState(buffer: .client(client))))
        // The client destroys its buffer; the number may go to the next file anyone opens.
        close(fd)
        let other = open("/dev/null", O_RDONLY)
        defer { close(other) }
        #expect(backend.dispatchEvents(forAtMost: 5) { headless.scannedOutDmabuf != nil })
        let shown = try #require(headless.scannedOutDmabuf)
        var now = stat()
        #expect(fstat(shown.fileDescriptor, &now) == 0)
        #expect(now.st_dev == lent.st_dev && now.st_ino == lent.st_ino)
        #expect(headless.lastShownImage?.pixel(x: 63, y: 47) == PremultipliedPixel(red: 0, green: 0x80, blue: 0xFF, alpha: 0xFF))
        #expect(!released && client.holds == 1)
    }
}
