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

/// What a headless output's test takes as a frame from a client (direct scanout): an XRGB8888
/// buffer of its mode's size, or an ARGB8888 one shown opaque; a shm buffer whatever its rows,
/// a dma-buf only with linear rows inside its memory.
@Suite struct HeadlessScanoutTestTests {
    @Test func theTestTakesOpaqueBuffersOfTheModesSizeAndDmabufsItCanMapAlone() throws {
        let backend = try HeadlessBackend(outputs: [HeadlessOutputConfiguration(parsing: "64x48@60")])
        let output = backend.outputs[0]
        func takes(_ buffer: any LentBuffer) -> Bool { output.test(OutputState(buffer: .client(buffer))) }
        func shm(_ width: Int, _ height: Int, _ format: PixelFormat) throws -> LentMemory {
            try #require(LentMemory(width: width, height: height, format: format))
        }
        #expect(try takes(shm(64, 48, .xrgb8888)))
        #expect(try takes(shm(64, 48, .argb8888)))
        #expect(try !takes(shm(64, 48, .abgr8888)))
        #expect(try !takes(shm(63, 48, .xrgb8888)))
        #expect(try !takes(shm(64, 49, .argb8888)))
        // A dma-buf's rows must lie in its memory: 64×48 pixels of 4 bytes, 256 bytes a row.
        let stream = try #require(tmpfile())
        defer { fclose(stream) }
        let fd = fileno(stream)
        #expect(ftruncate(fd, 256 * 48) == 0)
        func dmabuf(modifier: UInt64 = FormatModifier.linear, offset: Int = 0, stride: Int = 256) -> ClientDmabuf {
            ClientDmabuf(DmabufLayout(fileDescriptor: fd, width: 64, height: 48, format: .xrgb8888, modifier: modifier, offset: offset, stride: stride))
        }
        #expect(takes(dmabuf()))
        #expect(!takes(dmabuf(offset: 4)))
        #expect(!takes(dmabuf(stride: 252)))
        #expect(!takes(dmabuf(modifier: FormatModifier.invalid)))
    }
}
