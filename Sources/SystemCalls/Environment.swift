import Glibc

// `ProcessInfo.environment` copies the whole environment into a dictionary on every call (about
// 0.4 million instructions each, five times before the first frame), where start-up reads a few
// variables: these read them one by one with `getenv`.

/// The value of the environment variable `name`, nil when it is not set.
public func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}

/// The values of the environment variables `names` that are set.
public func environmentValues(_ names: [String]) -> [String: String] {
    var values: [String: String] = [:]
    for name in names {
        if let value = environmentValue(name) { values[name] = value }
    }
    return values
}
