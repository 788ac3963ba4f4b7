// swift-system's FileDescriptor and Errno are this module's vocabulary: importing SystemCalls
// brings them.
@_exported public import SystemPackage
