public import Buffers
public import DisplayBackend
public import Signals
public import SystemCalls

/// Outputs that exist only in memory, refreshed by a timer: for tests, CI and screenshots (see
/// `HeadlessOutput`).
public final class HeadlessBackend: DisplayBackend {
    public var outputs: [any BackendOutput] { headlessOutputs }
    private var headlessOutputs: [HeadlessOutput] = []
    /// Outputs made so far: generated names (HEADLESS-1, HEADLESS-2…) are never reused.
    private var made = 0
    public let outputAdded = Signal<any BackendOutput>()
    public let outputRemoved = Signal<any BackendOutput>()
    public let outputModeChanged = Signal<any BackendOutput>()

    public init(outputs configurations: [HeadlessOutputConfiguration]) throws(BackendError) {
        for configuration in configurations { headlessOutputs.append(try makeOutput(configuration)) }
    }

    private func makeOutput(_ configuration: HeadlessOutputConfiguration) throws(BackendError) -> HeadlessOutput {
        made += 1
        return try HeadlessOutput(index: made, configuration: configuration)
    }

    /// Plugs in another output (hotplug, for tests) at `position` in the order of importance
    /// (default: last); `outputAdded` follows.
    @discardableResult
    public func addOutput(_ configuration: HeadlessOutputConfiguration, at position: Int? = nil) throws(BackendError) -> HeadlessOutput {
        let output = try makeOutput(configuration)
        headlessOutputs.insert(output, at: min(position ?? headlessOutputs.count, headlessOutputs.count))
        outputAdded.emit(output)
        return output
    }

    /// Unplugs `output`; `outputRemoved` follows. Its frame clock stops.
    public func removeOutput(_ output: HeadlessOutput) {
        guard let index = headlessOutputs.firstIndex(where: { $0 === output }) else { return }
        headlessOutputs.remove(at: index)
        output.stop()
        outputRemoved.emit(output)
    }

    /// Gives `output` another mode, as a display resized while it stays connected;
    /// `outputModeChanged` follows.
    public func changeMode(of output: HeadlessOutput, to mode: OutputMode) throws(BackendError) {
        guard headlessOutputs.contains(where: { $0 === output }) else { return }
        try output.changeMode(to: mode)
        outputModeChanged.emit(output)
    }

    /// Each output's refresh timer.
    public var fileDescriptors: [FileDescriptor] {
        headlessOutputs.map(\.refreshTimer.fileDescriptor)
    }

    public func dispatch(fileDescriptor: FileDescriptor) {
        headlessOutputs.first { $0.refreshTimer.fileDescriptor == fileDescriptor }?.refreshTimerExpired()
    }

    /// Headless swapchains are host memory, which has no layout to choose.
    public func useRenderTargetFormats(_ formats: [DmabufFormat]) {}

    /// The headless output `index` (0-based) as its concrete type, for capture.
    public func headlessOutput(_ index: Int) -> HeadlessOutput { headlessOutputs[index] }
}

/// What a headless output looks like.
public struct HeadlessOutputConfiguration: Sendable, Equatable {
    public var mode: OutputMode
    public var scaleFactor: Double
    public var transform: OutputTransform
    /// A cursor plane of this size, as a KMS CRTC has (none by default: the cursor is drawn into
    /// the frames).
    public var cursorPlane: CursorPlaneSize?
    /// Where it goes in the compositor's global space, or which output it mirrors.
    public var layout: OutputLayout
    /// Its name, as a connector's (a display plugged out and in again keeps it); nil: HEADLESS-N.
    public var name: String?

    public init(
        mode: OutputMode, scaleFactor: Double = 1, transform: OutputTransform = .normal, cursorPlane: CursorPlaneSize? = nil,
        layout: OutputLayout = .automatic, name: String? = nil
    ) {
        self.mode = mode
        self.scaleFactor = scaleFactor
        self.transform = transform
        self.cursorPlane = cursorPlane
        self.layout = layout
        self.name = name
    }

    /// Parses "WIDTHxHEIGHT[@HZ]" (e.g. "1920x1080@60"); the refresh defaults to 60 Hz.
    public init(parsing text: String, scaleFactor: Double = 1) throws(BackendError) {
        let parts = text.split(separator: "@", maxSplits: 1)
        let size = parts[0].split(separator: "x")
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), width > 0, height > 0,
              width <= 16384, height <= 16384 else {
            throw BackendError.invalidMode(text)
        }
        var refresh = 60_000
        if parts.count == 2 {
            guard let hertz = Double(parts[1]), hertz >= 1, hertz <= 1000 else { throw BackendError.invalidMode(text) }
            refresh = Int((hertz * 1000).rounded())
        }
        guard scaleFactor > 0, scaleFactor <= 8 else { throw BackendError.invalidScale(scaleFactor) }
        self.init(mode: OutputMode(width: width, height: height, refreshMillihertz: refresh), scaleFactor: scaleFactor)
    }
}

public enum BackendError: Error, Equatable, CustomStringConvertible {
    case invalidMode(String)
    case invalidScale(Double)
    case system(SystemCallError)
    case notTheBackBuffer(output: String)

    public var description: String {
        switch self {
        case .invalidMode(let text): "\"\(text)\" is not a mode: write WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, e.g. 1920x1080@60"
        case .invalidScale(let scale): "scale factor \(scale) is out of range (0 < scale ≤ 8)"
        case .system(let error): error.description
        case .notTheBackBuffer(let output): "\(output): a frame was committed in a buffer that is not its next one"
        }
    }
}
