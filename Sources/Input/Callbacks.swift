internal import CInput
import SystemCalls
import Glibc

/// What libinput's C callbacks reach through the context's user data: the opener, and what went
/// wrong during the call being captured (libinput reports failures only by logging).
final class CallbackState {
    let opener: any DeviceOpener
    private var isCapturing = false
    private var openFailure: InputError?
    private var messages: [String] = []

    init(opener: any DeviceOpener) {
        self.opener = opener
    }

    struct Outcome<Result> {
        let result: Result
        let openFailure: InputError?
        let messages: [String]

        /// libinput's messages, as a suffix for an error's reason.
        var explanation: String {
            messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")
        }
    }

    /// Runs `body`, collecting the opener's failure and libinput's messages for the error to throw
    /// when `succeeded` says it failed; after a success the messages are logged as usual.
    func capture<Result>(_ body: () -> Result, succeeded: (Result) -> Bool) -> Outcome<Result> {
        isCapturing = true
        openFailure = nil
        messages = []
        let result = body()
        isCapturing = false
        if succeeded(result) { messages.forEach(log) }
        return Outcome(result: result, openFailure: openFailure, messages: messages)
    }

    fileprivate func open(path: String, flags: Int32) -> Int32 {
        do throws(InputError) {
            return try opener.open(path: path, flags: flags).rawValue
        } catch {
            if isCapturing { openFailure = error }
            if case .system(let failure) = error { return -failure.errno.rawValue }
            return -EIO
        }
    }

    fileprivate func log(_ message: String) {
        if isCapturing {
            messages.append(message)
        } else {
            let line = "libinput: \(message)\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
    }
}

private func state(_ userData: UnsafeMutableRawPointer?) -> CallbackState {
    Unmanaged<CallbackState>.fromOpaque(userData!).takeUnretainedValue()
}

/// libinput_interface.open_restricted: returns the fd or a negative errno.
func openRestricted(_ path: UnsafePointer<CChar>?, _ flags: Int32, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    state(userData).open(path: String(cString: path!), flags: flags)
}

func closeRestricted(_ fd: Int32, _ userData: UnsafeMutableRawPointer?) {
    state(userData).opener.close(FileDescriptor(rawValue: fd))
}

/// libinput's log handler; the context's user data leads back to its state.
func logMessage(_ libinput: OpaquePointer?, _ priority: libinput_log_priority, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
    guard let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    var message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while message.hasSuffix("\n") { message.removeLast() }
    state(libinput_get_user_data(libinput)).log(message)
}
