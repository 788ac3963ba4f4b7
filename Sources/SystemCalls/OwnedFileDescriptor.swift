public import SystemPackage

/// A file descriptor this object owns: it is closed when the object goes away, unless `take()`
/// handed it on first. swift-system's `FileDescriptor` names a descriptor; this type says who
/// closes it.
public final class OwnedFileDescriptor: @unchecked Sendable {
    private var descriptor: FileDescriptor?

    public init(_ descriptor: FileDescriptor) {
        self.descriptor = descriptor
    }

    /// Takes ownership of a raw descriptor a C call returned.
    public convenience init(rawValue: Int32) {
        self.init(FileDescriptor(rawValue: rawValue))
    }

    /// The descriptor, still owned here. Taken descriptors read as -1, which every call refuses.
    public var fileDescriptor: FileDescriptor { descriptor ?? FileDescriptor(rawValue: -1) }

    public var rawValue: Int32 { fileDescriptor.rawValue }

    /// Hands the descriptor on: the caller closes it from now on.
    public func take() -> FileDescriptor {
        defer { descriptor = nil }
        return fileDescriptor
    }

    /// Closes the descriptor now rather than when the object goes away.
    public func close() {
        let descriptor = take()
        if descriptor.rawValue >= 0 { try? descriptor.close() }
    }

    deinit {
        if let descriptor, descriptor.rawValue >= 0 { try? descriptor.close() }
    }
}
