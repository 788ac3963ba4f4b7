import CLinux
import Foundation
import Glibc

/// What this test process holds, for the tests that prove the compositor gives back what it took.

/// The process's open descriptors.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// The process's threads.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}

/// How many of the process's mappings map the file with `inode` (read line by line: /proc/self/maps
/// has no size to read it by).
func mappingCount(ofInode inode: UInt) -> Int {
    guard let maps = fopen("/proc/self/maps", "r") else { return -1 }
    defer { fclose(maps) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    var count = 0
    while getline(&line, &capacity, maps) >= 0, let line {
        // address perms offset device inode [path]
        if String(cString: line).split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).first == "\(inode)" { count += 1 }
    }
    return count
}

/// The bytes malloc has handed out and not had back: the chunks in use in every thread's arena and
/// those mapped on their own. Unlike resident memory, this does not move with code paged in or
/// allocated memory first written, nor with the free chunks each arena keeps.
func heapBytesInUse() -> Int {
    let info = mallinfo2()
    return Int(info.uordblks + info.hblkhd)
}

/// The whole numbers an exit test's child printed, separated by white space.
func integers(printedIn output: [UInt8]) -> [Int] {
    String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
}
