internal import CLinux
import Glibc
public import SystemCalls

/// A memfd with `bytes`, sealed against writes and resizing, so that clients can only map it
/// privately and read it (wl_keyboard.keymap since version 7, the dmabuf format table).
func makeSealedMemoryFile(name: String, bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int32 {
    let fd = memfd_create(name, UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
    guard fd >= 0 else { throw SystemCallError.current("memfd_create") }
    var written = 0
    while written < bytes.count {
        let result = write(fd, bytes.baseAddress! + written, bytes.count - written)
        guard result > 0 else {
            let error = SystemCallError.current("write")
            close(fd)
            throw error
        }
        written += result
    }
    guard fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) == 0 else {
        let error = SystemCallError.current("fcntl(F_ADD_SEALS)")
        close(fd)
        throw error
    }
    return fd
}
