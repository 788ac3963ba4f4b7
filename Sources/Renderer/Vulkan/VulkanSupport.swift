internal import CVulkan

/// `VK_API_VERSION_1_3`, which Swift cannot import because it is a function-like macro.
let vulkanAPIVersion1_3: UInt32 = (1 << 22) | (3 << 12)

/// Runs Vulkan's two-call enumeration (count, then items), retrying when the count grew in between
/// (`VK_INCOMPLETE`), as the specification asks of callers.
func enumerate<T>(
    _ what: String, _ body: (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<T>?) -> VkResult
) throws -> [T] {
    while true {
        var count: UInt32 = 0
        try check(body(&count, nil), what)
        var incomplete = false
        let items = try [T](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            var written = count
            let r = body(&written, buffer.baseAddress)
            if r == VK_INCOMPLETE {
                // Vulkan's output structs are trivial, so discarding what was written leaks nothing.
                incomplete = true
                initialized = 0
                return
            }
            try check(r, what)
            initialized = Int(written)
        }
        if !incomplete { return items }
    }
}

/// A string from one of Vulkan's fixed-size `char` arrays (imported as tuples), which are always
/// NUL-terminated.
func string<Tuple>(fromCArray tuple: Tuple) -> String {
    withUnsafeBytes(of: tuple) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// Runs `body` with an arena whose copies stay valid until `body` returns.
func withCallArena<R>(_ body: (CallArena) throws -> R) rethrows -> R {
    let arena = CallArena()
    // Explicitly extended: ARC may otherwise free the arena after its last use inside `body`,
    // before the Vulkan call that reads the pointers.
    return try withExtendedLifetime(arena) { try body(arena) }
}

/// Keeps the structs and strings of one Vulkan create call at stable addresses, so that
/// create-info chains can point at each other without a pyramid of `withUnsafePointer` closures.
final class CallArena {
    private var allocations: [UnsafeMutableRawPointer] = []

    fileprivate init() {}

    deinit {
        // Only bitwise-copyable values are stored, so there is nothing to deinitialize.
        allocations.forEach { $0.deallocate() }
    }

    /// A copy of `value` that lives as long as the arena.
    func pointer<T: BitwiseCopyable>(to value: T) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        allocations.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }

    /// A copy of `values` that lives as long as the arena (nil when empty, as Vulkan expects).
    func pointer<T: BitwiseCopyable>(to values: [T]) -> UnsafeMutablePointer<T>? {
        guard !values.isEmpty else { return nil }
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: values.count)
        _ = UnsafeMutableBufferPointer(start: pointer, count: values.count).initialize(from: values)
        allocations.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }

    /// A C string copy of `string` that lives as long as the arena.
    func cString(_ string: String) -> UnsafePointer<CChar> {
        let bytes = Array(string.utf8CString)
        return UnsafePointer(pointer(to: bytes)!)
    }

    /// A C array of C strings (`const char* const*`) that lives as long as the arena.
    func cStrings(_ strings: [String]) -> UnsafePointer<UnsafePointer<CChar>?>? {
        pointer(to: strings.map { Optional(cString($0)) }).map { UnsafePointer($0) }
    }
}
