import Glibc
import SystemCalls

/// The first `size` bytes of a file a client sent (a virtual keyboard's keymap), read rather than
/// mapped: a client that truncates the file meanwhile leaves the compositor with fewer bytes, where
/// a read of a mapping would die of SIGBUS. Nil unless it is a regular file (a pipe, socket or
/// device could block the compositor's thread or never end) of at least `size` bytes, and `size`
/// is at most `limit`.
func clientFileContents(_ descriptor: FileDescriptor, size: UInt32, limit: Int) -> [UInt8]? {
    guard Int(size) <= limit else { return nil }
    var status = stat()
    guard fstat(descriptor.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size >= Int(size) else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(size))
    var filled = 0
    while filled < bytes.count {
        let count = bytes.withUnsafeMutableBytes { buffer in
            try? descriptor.read(fromAbsoluteOffset: Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
        }
        guard let count, count > 0 else { return nil }
        filled += count
    }
    return bytes
}
