internal import CLinux
import Glibc
import SystemCalls

/// The kinds of descriptor a fuzzed request passes: memory of the size the request implies (sealed
/// against shrinking or not), too little memory, and things that are no memory at all.
enum DescriptorKind: Equatable, CustomStringConvertible {
    case memory(size: Int, sealed: Bool)
    case devNull, pipe, socket, eventfd, directory

    var description: String {
        switch self {
        case .memory(let size, let sealed): "memfd(\(size)\(sealed ? ", sealed" : ""))"
        case .devNull: "/dev/null"
        case .pipe: "pipe"
        case .socket: "socket"
        case .eventfd: "eventfd"
        case .directory: "directory"
        }
    }
}

/// The descriptors one session made: kept open until the session ends, so that memory it passed can
/// be shrunk later (as a hostile client would) and a blocked send still has them.
final class SessionDescriptors {
    private(set) var open: [(descriptor: OwnedFileDescriptor, kind: DescriptorKind)] = []
    /// At most this many at once; beyond it a request passes one it passed before.
    static let limit = 48
    /// Memory all of a session's memfds may hold at once, so that clients in parallel fit in RAM.
    static let memoryBudget = 256 << 20
    private var memory = 0

    var isFull: Bool { open.count >= Self.limit }

    /// A descriptor of `kind` (still the session's, to pass on the wire), or nil when it cannot be
    /// made (its memory would exceed the budget).
    func make(_ kind: DescriptorKind) -> Int32? {
        let fd: Int32
        switch kind {
        case .memory(let size, let sealed):
            guard memory + size <= Self.memoryBudget else { return nil }
            fd = memfd_create("vitrine-fuzz", UInt32(MFD_CLOEXEC | MFD_ALLOW_SEALING))
            guard fd >= 0 else { return nil }
            guard ftruncate(fd, off_t(size)) == 0, !sealed || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0 else {
                Glibc.close(fd)
                return nil
            }
            memory += size
        case .devNull: fd = Glibc.open("/dev/null", O_RDWR | O_CLOEXEC)
        case .pipe:
            var ends: [Int32] = [-1, -1]
            guard pipe2(&ends, O_CLOEXEC) == 0 else { return nil }
            Glibc.close(ends[0])
            fd = ends[1]
        case .socket: fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        case .eventfd: fd = CLinux.eventfd(0, Int32(EFD_CLOEXEC))
        case .directory: fd = Glibc.open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard fd >= 0 else { return nil }
        open.append((OwnedFileDescriptor(rawValue: fd), kind))
        return fd
    }

    /// Shrinks one memfd the session passed, if it has one that is not sealed: `size` bytes remain.
    /// Returns what it did, for the session's log.
    func shrinkOne(choosing index: (Int) -> Int, to size: (Int) -> Int) -> String? {
        let candidates = open.indices.filter {
            if case .memory(let size, false) = open[$0].kind { size > 0 } else { false }
        }
        guard !candidates.isEmpty else { return nil }
        let chosen = candidates[index(candidates.count)]
        guard case .memory(let old, _) = open[chosen].kind else { return nil }
        let new = size(old)
        ftruncate(open[chosen].descriptor.rawValue, off_t(new))
        open[chosen].kind = .memory(size: new, sealed: false)
        memory -= old - new
        return "shrink fd #\(chosen) from \(old) to \(new) bytes"
    }

    func closeAll() {
        open = []
        memory = 0
    }
}
