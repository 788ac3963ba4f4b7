internal import CLinux
import Glibc
import SystemCalls

/// The kernel's dma-buf pseudo file system ("DMAB", linux/magic.h).
private let dmabufFileSystemMagic = 0x444D_4142

extension DmabufPlane {
    /// Whether no client can change the size of the plane's memory: it is a dma-buf (whose size is
    /// fixed when it is exported), or a memfd sealed against shrinking (a stand-in for one where
    /// /dev/udmabuf is missing). Any other file can be truncated while the compositor or a driver
    /// reads a mapping of it, and that read dies of SIGBUS.
    public var isFixedInSize: Bool {
        var fileSystem = statfs()
        if fstatfs(fileDescriptor.rawValue, &fileSystem) == 0, fileSystem.f_type == dmabufFileSystemMagic { return true }
        let seals = fcntl(fileDescriptor.rawValue, F_GET_SEALS)
        return seals >= 0 && seals & F_SEAL_SHRINK != 0
    }
}
