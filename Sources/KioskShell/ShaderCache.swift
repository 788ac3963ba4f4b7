import Glibc

/// Where the GPU driver keeps the shaders it compiles, so that later starts (a reboot, a watchdog
/// restart) skip compiling them: on lavapipe a client's first frame came 149 ms after start with the
/// cache against 441 ms without it (docs/benchmarks.md). Mesa looks in MESA_SHADER_CACHE_DIR, else
/// $XDG_CACHE_HOME/mesa_shader_cache, else .cache/mesa_shader_cache in the home directory of the
/// user's passwd entry (not $HOME). A folder that cannot be written there disables the cache
/// without a word from the driver, so Vitrine says so at start.
public struct ShaderCache: Equatable, Sendable {
    /// The folder the driver would use, or nil when nothing names one.
    public let directory: String?
    /// Whether the cache was turned off on purpose (MESA_SHADER_CACHE_DISABLE).
    public let isDisabled: Bool

    public init(environment: [String: String], passwdHome: String?) {
        isDisabled = ["1", "true", "yes"].contains(environment["MESA_SHADER_CACHE_DISABLE"]?.lowercased() ?? "")
        if let explicit = environment["MESA_SHADER_CACHE_DIR"], !explicit.isEmpty {
            directory = explicit
        } else if let cacheHome = environment["XDG_CACHE_HOME"], !cacheHome.isEmpty {
            directory = cacheHome + "/mesa_shader_cache"
        } else if let passwdHome, !passwdHome.isEmpty {
            directory = passwdHome + "/.cache/mesa_shader_cache"
        } else {
            directory = nil
        }
    }

    /// The cache of this process's user and environment.
    public static var current: ShaderCache {
        var environment: [String: String] = [:]
        for name in ["MESA_SHADER_CACHE_DISABLE", "MESA_SHADER_CACHE_DIR", "XDG_CACHE_HOME"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return ShaderCache(environment: environment, passwdHome: getpwuid(getuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } })
    }

    /// Why compiled shaders cannot be kept, or nil when they can (or the cache is off on purpose).
    /// `isWritable` answers for folders that exist; the driver makes the missing ones.
    public func problem(isWritable: (String) -> Bool = { access($0, W_OK) == 0 },
                        exists: (String) -> Bool = { access($0, F_OK) == 0 }) -> String? {
        guard !isDisabled else { return nil }
        guard let directory else {
            return "the GPU driver cannot keep compiled shaders (no XDG_CACHE_HOME and no home directory): every start compiles them again; set XDG_CACHE_HOME to a writable folder"
        }
        var folder = directory
        while !exists(folder), let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            folder = String(folder[..<slash])
        }
        if !exists(folder) { folder = "/" }
        guard !isWritable(folder) else { return nil }
        return "the GPU driver cannot keep compiled shaders in \(directory) (\(folder) is not writable): every start compiles them again; give the user a writable home or set XDG_CACHE_HOME"
    }
}
