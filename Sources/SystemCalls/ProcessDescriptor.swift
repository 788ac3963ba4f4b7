internal import CLinux

extension OwnedFileDescriptor {
    /// A descriptor of process `processID` (pidfd_open, close-on-exec) that turns readable once
    /// the process has exited, so that an event loop can wait for the exit. Fails with ENOSYS
    /// before Linux 5.3.
    public convenience init(processID: Int32) throws(SystemCallError) {
        self.init(rawValue: try SystemCallError.check(pidfd_open(processID, 0), "pidfd_open"))
    }
}
