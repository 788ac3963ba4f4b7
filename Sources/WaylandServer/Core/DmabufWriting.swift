internal import CLinux
import Buffers
import Glibc

extension Buffer {
    /// Whether the buffer is a dma-buf a capture can copy into: one linear plane of `format`,
    /// `width`×`height`, whose rows lie inside its memory, and memory no client can shrink under
    /// a mapping (`DmabufPlane.isFixedInSize`; a shrunk mapping would kill the compositor with
    /// SIGBUS).
    func isWritableDmabuf(format: PixelFormat, width: Int32, height: Int32) -> Bool {
        writableDmabufPlane(format: format, width: width, height: height) != nil
    }

    /// Writes into a dma-buf that `isWritableDmabuf` accepts: `body` gets the address of its first
    /// pixel and the bytes between rows, inside DMA_BUF_IOCTL_SYNC's write bracket. False when
    /// it cannot be mapped.
    func writeDmabufPixels(_ body: (UnsafeMutableRawPointer, _ bytesPerRow: Int) -> Void) -> Bool {
        guard case .dmabuf(let attributes) = storage,
              let (plane, length) = writableDmabufPlane(format: attributes.format.format, width: attributes.width, height: attributes.height) else { return false }
        let fd = plane.fileDescriptor.rawValue
        guard let mapping = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapping != MAP_FAILED else { return false }
        defer { munmap(mapping, length) }
        // Advisory where the memory needs no cache maintenance (a memfd stand-in answers ENOTTY).
        _ = vitrine_dma_buf_begin_write(fd)
        body(mapping + Int(plane.offset), Int(plane.stride))
        _ = vitrine_dma_buf_end_write(fd)
        return true
    }

    /// The plane `isWritableDmabuf` describes and the length of its memory, or nil.
    private func writableDmabufPlane(format: PixelFormat, width: Int32, height: Int32) -> (DmabufPlane, length: Int)? {
        guard isAlive, case .dmabuf(let attributes) = storage, attributes.planes.count == 1, let plane = attributes.planes.first,
              attributes.format == DmabufFormat(format, modifier: FormatModifier.linear),
              attributes.width == width, attributes.height == height, width > 0, height > 0, plane.isFixedInSize else { return nil }
        let length = Int(lseek(plane.fileDescriptor.rawValue, 0, SEEK_END))
        let rowLength = Int(width) * 4
        let (rows, overflow) = Int(plane.stride).multipliedReportingOverflow(by: Int(height) - 1)
        guard Int(plane.stride) >= rowLength, !overflow, length > 0, Int(plane.offset) + rows + rowLength <= length else { return nil }
        return (plane, length)
    }
}
