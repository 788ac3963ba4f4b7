import WaylandProtocols
import SystemCalls

/// wl_buffer_transform values (wl_output.transform).
public enum BufferTransform: Int32, Sendable, CaseIterable {
    case normal = 0, rotated90, rotated180, rotated270, flipped, flipped90, flipped180, flipped270

    /// Whether the transform swaps width and height.
    public var swapsAxes: Bool { rawValue & 1 == 1 }

    /// The transform a wl_output.transform value names; nil for one the protocol does not define.
    init?(_ value: WlOutputTransform) {
        self.init(rawValue: Int32(bitPattern: value.rawValue))
    }

    /// The wl_output.transform value of the transform.
    var protocolValue: WlOutputTransform { WlOutputTransform(rawValue: UInt32(bitPattern: rawValue)) }
}

/// What a surface shows once a commit is applied (wl_surface's double-buffered state).
public struct SurfaceState {
    /// The buffer whose contents are shown (nil: the surface is unmapped / shows nothing).
    public internal(set) var buffer: Buffer?
    /// Whether this commit attached a buffer (the contents must be read again).
    public internal(set) var bufferWasAttached = false
    /// The attach / offset displacement of this commit, in surface coordinates.
    public internal(set) var offsetX: Int32 = 0
    public internal(set) var offsetY: Int32 = 0
    /// Damage of this commit in surface coordinates and in buffer coordinates.
    public internal(set) var surfaceDamage: [IntRect] = []
    public internal(set) var bufferDamage: [IntRect] = []
    public internal(set) var opaqueRegion = Region()
    /// Whether this commit set the opaque region (what shows the surface reads it again only then,
    /// or when the size changed).
    public internal(set) var opaqueRegionWasSet = false
    /// Where input is accepted, in surface coordinates (infinite until set).
    public internal(set) var inputRegion = Region.infinite
    public internal(set) var bufferTransform = BufferTransform.normal
    public internal(set) var bufferScale: Int32 = 1
    /// wp_viewport's source rectangle in buffer coordinates (after transform and scale), if set.
    public internal(set) var viewportSource: ViewportRect?
    /// wp_viewport's destination size in surface coordinates, if set.
    public internal(set) var viewportDestination: SurfaceSize?

    /// The surface's size in surface coordinates: the viewport destination, or the buffer's size
    /// after transform and scale (or the source rectangle's size); zero without a buffer. Kept
    /// with the state, worked out as each commit is applied: a size computed on reading copied
    /// the whole state (a retain and a release of each of its parts) for every reader.
    public private(set) var size = SurfaceSize(width: 0, height: 0)

    /// Works `size` out from the state it follows.
    mutating func updateSize() {
        if let buffer {
            if let destination = viewportDestination {
                size = destination
            } else if let source = viewportSource {
                size = SurfaceSize(width: Int32(source.width.rounded(.down)), height: Int32(source.height.rounded(.down)))
            } else {
                let swapped = bufferTransform.swapsAxes
                size = SurfaceSize(width: Int32(swapped ? buffer.height : buffer.width) / bufferScale,
                                   height: Int32(swapped ? buffer.width : buffer.height) / bufferScale)
            }
        } else {
            size = SurfaceSize(width: 0, height: 0)
        }
    }
}

/// A size in surface coordinates.
public struct SurfaceSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int32
    public var height: Int32

    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)×\(height)" }
}

/// A source rectangle in surface-local buffer coordinates (wp_viewport.set_source).
public struct ViewportRect: Equatable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
}

/// Requests since the last commit; only what the client set is applied.
struct PendingSurfaceState {
    var attached = false
    var buffer: Buffer?
    var offsetX: Int32 = 0
    var offsetY: Int32 = 0
    var surfaceDamage: [IntRect] = []
    var bufferDamage: [IntRect] = []
    var opaqueRegion: Region?
    var inputRegion: Region?
    var bufferTransform: BufferTransform?
    var bufferScale: Int32?
    var viewportChanged = false
    var viewportSource: ViewportRect?
    var viewportDestination: SurfaceSize?
    /// The frame callbacks asked for; nil before the first. A list is an object, which the applied
    /// commit hands on, emptied, to the next requests (`Surface.apply`): none is made per commit.
    var frameCallbacks: FrameCallbacks?
    /// Extension state (presentation feedback and the like) that follows the commit.
    var commitHooks: [(Surface) -> Void] = []

    /// Makes these requests `state`: what they set replaces what it was. The damage lists trade
    /// places with the state's, so that these requests end with the replaced ones (whose storage
    /// the next commit reuses) and nothing is copied.
    mutating func apply(to state: inout SurfaceState) {
        state.bufferWasAttached = attached
        // A buffer destroyed since it was attached is none; one destroyed once shown stays the
        // surface's contents (wl_surface.attach: destroying it does not change them).
        if attached { state.buffer = buffer.flatMap { $0.isAlive ? $0 : nil } }
        state.offsetX = offsetX
        state.offsetY = offsetY
        swap(&state.surfaceDamage, &surfaceDamage)
        swap(&state.bufferDamage, &bufferDamage)
        state.opaqueRegionWasSet = opaqueRegion != nil
        if let opaqueRegion { state.opaqueRegion = opaqueRegion }
        if let inputRegion { state.inputRegion = inputRegion }
        if let bufferTransform { state.bufferTransform = bufferTransform }
        if let bufferScale { state.bufferScale = bufferScale }
        if viewportChanged {
            state.viewportSource = viewportSource
            state.viewportDestination = viewportDestination
        }
        // The size follows the buffer, transform, scale and viewport only.
        if attached || bufferTransform != nil || bufferScale != nil || viewportChanged { state.updateSize() }
    }

    /// Folds a later set of requests into this one (a synchronized subsurface's cache).
    mutating func merge(_ later: PendingSurfaceState) {
        if later.attached {
            attached = true
            buffer = later.buffer
        }
        offsetX = ClientCoordinate.sum(offsetX, later.offsetX)
        offsetY = ClientCoordinate.sum(offsetY, later.offsetY)
        for rect in later.surfaceDamage { Surface.addDamage(rect, to: &surfaceDamage) }
        for rect in later.bufferDamage { Surface.addDamage(rect, to: &bufferDamage) }
        if let region = later.opaqueRegion { opaqueRegion = region }
        if let region = later.inputRegion { inputRegion = region }
        if let transform = later.bufferTransform { bufferTransform = transform }
        if let scale = later.bufferScale { bufferScale = scale }
        if later.viewportChanged {
            viewportChanged = true
            viewportSource = later.viewportSource
            viewportDestination = later.viewportDestination
        }
        if let callbacks = later.frameCallbacks {
            if let frameCallbacks { callbacks.move(to: frameCallbacks) } else { frameCallbacks = callbacks }
        }
        commitHooks += later.commitHooks
    }
}

/// A role given to a surface (xdg_surface, wl_subsurface, cursor…): it validates and follows commits.
protocol SurfaceRole: AnyObject {
    /// The role's name as a protocol error reports it ("wl_subsurface").
    var roleName: String { get }
    /// Checks the requests about to be committed; throwing posts the error.
    func validateCommit(_ surface: Surface, _ pending: PendingSurfaceState) throws(ProtocolError)
    /// Runs after the committed state became current.
    func surfaceDidCommit(_ surface: Surface)
}

/// What the compositor learns about a surface.
public protocol SurfaceObserver: AnyObject {
    /// A commit was applied (`surface.current` is the new state).
    func surfaceDidCommit(_ surface: Surface)
    /// The surface is going away (destroyed or its client left).
    func surfaceWillBeDestroyed(_ surface: Surface)
}

/// wl_surface (version 6): a rectangle of client pixels with double-buffered state, given a role
/// by a shell or by wl_subcompositor.
public final class Surface: Resource, RequestHandler {
    /// The widest or tallest buffer shown, in pixels: twice a 4K panel's width, for scale 2. A
    /// larger one would cost the compositor a copy of up to a gigabyte per commit.
    public static let maximumBufferDimension: Int32 = 8192
    /// Damage rectangles kept per commit; more become their bounding box (what the compositor
    /// redraws anyway), so that damage requests cost constant memory.
    static let maximumDamageRectangles = 64
    /// Commits that may wait for their buffers' writes (a GPU client is a few frames ahead at
    /// most); a client committing past that without its fences signalling is disconnected.
    static let maximumWaitingCommits = 32

    public private(set) var current = SurfaceState()
    var pending = PendingSurfaceState()
    /// The frame callbacks of the commits applied and not yet taken by the compositor.
    private let frameCallbacks = FrameCallbacks()
    /// The compositor's observer (set when the surface is created). Unowned, not weak: a weak
    /// reference gives the observer a side table, which puts every retain and release of it on
    /// the runtime's slow path (the compositor's, several a frame). The observer outlives the
    /// surface's resource: it disconnects every client before it goes (`Compositor.shutdown()`).
    public unowned(unsafe) var observer: SurfaceObserver?

    /// The role's name once one was given; a surface keeps its role type for life.
    public private(set) var roleName: String?
    /// The live role object. Strong, not weak (a weak reference gives the role object, an
    /// xdg_toplevel, a side table, which makes every retain and release of it slow): a role object
    /// clears it when its resource is destroyed (`clearRole`), and the surface's destruction does.
    var role: SurfaceRole?

    /// Bottom-to-top stacking of this surface (as the entry `self`) and its subsurfaces: the
    /// pending order and the one applied with the last commit.
    var pendingStack: [Surface] = []
    public private(set) var stack: [Surface] = []

    /// The wl_subsurface role object, when this surface is a subsurface.
    public var subsurface: Subsurface? { role as? Subsurface }

    /// Commits not applied yet because the first one's buffer is still being written, oldest
    /// first: later commits wait behind it, so that commits apply in the order they were made.
    private var waitingCommits: [PendingSurfaceState] = []
    /// Watches the buffer that the first waiting commit waits for.
    private var writeWatch: FileDescriptorSource?

    /// Anything the compositor wants to keep with the surface (its layer, for example).
    public var userData: AnyObject?

    /// Per-surface objects of protocol extensions (wp_viewport, fractional scale, xdg_surface…),
    /// keyed by the extension's type, so that each extension keeps its state in its own file.
    var extensions = ExtensionTable<AnyObject>()
    /// The presentation feedback on its way to the compositor, once the client asked for any: a
    /// field of its own, not an entry of `extensions`, because the compositor asks for it on every
    /// frame that shows the surface, where a walk of the table and a cast cost more than the
    /// commonest answer, none.
    var presentationFeedbackQueue: PresentationFeedbackQueue?
    /// Checks that protocol extensions run on every commit, before the role's, on the requests
    /// being committed (already taken from `pending`); one may add a commit hook to them.
    var commitValidators = ExtensionTable<(Surface, inout PendingSurfaceState) throws(ProtocolError) -> Void>()
    /// Checks that protocol extensions run on every wl_surface.attach (the buffer, nil for a null one).
    var attachValidators = ExtensionTable<(Surface, Buffer?) throws(ProtocolError) -> Void>()

    init(client: Client, version: UInt32, id: UInt32) {
        super.init(Surface.self, client: client, version: version, id: id)
        pendingStack = [self]
        stack = [self]
    }

    /// Gives the surface a role; a different role than before, or a second live role object, is an error.
    func setRole(_ role: SurfaceRole, errorOn resource: Resource, code: some WaylandEnumeration) throws(ProtocolError) {
        if let existing = roleName, existing != role.roleName {
            throw ProtocolError(code, "wl_surface@\(id) already has the role \(existing)", on: resource)
        }
        if self.role != nil {
            throw ProtocolError(code, "wl_surface@\(id) already has a \(role.roleName) object", on: resource)
        }
        roleName = role.roleName
        self.role = role
    }

    /// Forgets the role object (its resource was destroyed); the role's type stays.
    func clearRole(_ role: SurfaceRole) {
        if self.role === role { self.role = nil }
    }

    /// Moves the frame callbacks of the commits applied so far to the end of `list` (answer them
    /// when a frame showing the surface was presented).
    public func moveFrameCallbacks(to list: FrameCallbacks) {
        frameCallbacks.move(to: list)
    }

    /// Whether commits applied so far asked for frame callbacks that were not answered yet.
    public var hasPendingFrameCallbacks: Bool { !frameCallbacks.isEmpty }

    /// Tells the client the surface is (now) on an output (wl_surface.enter).
    public func enter(_ output: Output) {
        for resource in output.resources(of: client) { send(.enter(output: resource)) }
    }

    /// Tells the client the surface left an output (wl_surface.leave).
    public func leave(_ output: Output) {
        for resource in output.resources(of: client) { send(.leave(output: resource)) }
    }

    /// The buffer scale and transform last sent as the client's best choice (1 and normal before
    /// any, as the protocol presumes).
    private var preferredBuffer: (scale: Int32, transform: BufferTransform) = (1, .normal)

    /// Tells the client the integer buffer scale and the buffer transform that suit the output the
    /// surface is on (wl_surface.preferred_buffer_scale and preferred_buffer_transform, version 6),
    /// each only when it differs from the last one sent: a buffer drawn at that scale and turned
    /// by that transform reaches the panel without resampling or rotation.
    public func sendPreferredBuffer(scale: Int32, transform: BufferTransform) {
        precondition(scale > 0, "a preferred buffer scale must be positive")
        guard isAlive else { return }
        if scale != preferredBuffer.scale { send(.preferredBufferScale(factor: scale)) }
        if transform != preferredBuffer.transform { send(.preferredBufferTransform(transform: transform.protocolValue)) }
        preferredBuffer = (scale, transform)
    }

    func handle(_ request: Request) throws(ProtocolError) {
        switch request {
        case .destroy: destroy()
        case .attach(let buffer, let x, let y): try attach(buffer, x: ClientCoordinate.clamp(x), y: ClientCoordinate.clamp(y))
        case .damage(let x, let y, let width, let height):
            Self.addDamage(ClientCoordinate.rectangle(x: x, y: y, width: width, height: height), to: &pending.surfaceDamage)
        case .frame(let id):
            if pending.frameCallbacks == nil { pending.frameCallbacks = FrameCallbacks() }
            pending.frameCallbacks?.add(id, of: client)
        case .setOpaqueRegion(let region): pending.opaqueRegion = region?.region ?? Region()
        case .setInputRegion(let region): pending.inputRegion = region?.region ?? .infinite
        case .commit: try commit()
        case .setBufferTransform(let value):
            guard let transform = BufferTransform(value) else {
                throw ProtocolError(WlSurfaceError.invalidTransform,
                                    "buffer transform \(Int32(bitPattern: value.rawValue)) is not a wl_output.transform value")
            }
            pending.bufferTransform = transform
        case .setBufferScale(let scale):
            guard scale > 0 else { throw ProtocolError(WlSurfaceError.invalidScale, "buffer scale \(scale) is not positive") }
            pending.bufferScale = scale
        case .damageBuffer(let x, let y, let width, let height):
            Self.addDamage(ClientCoordinate.rectangle(x: x, y: y, width: width, height: height), to: &pending.bufferDamage)
        case .offset(let x, let y):
            pending.offsetX = ClientCoordinate.sum(pending.offsetX, ClientCoordinate.clamp(x))
            pending.offsetY = ClientCoordinate.sum(pending.offsetY, ClientCoordinate.clamp(y))
        }
    }

    /// Appends `rect`, or turns the list into its bounding box once it is longer than
    /// `maximumDamageRectangles`.
    static func addDamage(_ rect: IntRect, to damage: inout [IntRect]) {
        damage.append(rect)
        guard damage.count > maximumDamageRectangles else { return }
        let left = damage.map(\.x).min()!, top = damage.map(\.y).min()!
        let right = damage.map(\.maxX).max()!, bottom = damage.map(\.maxY).max()!
        damage = [IntRect(x: left, y: top, width: Int32(clamping: right - Int64(left)), height: Int32(clamping: bottom - Int64(top)))]
    }

    private func attach(_ object: ForeignObject?, x: Int32, y: Int32) throws(ProtocolError) {
        if version >= 5 && (x != 0 || y != 0) {
            throw ProtocolError(WlSurfaceError.invalidOffset, "attach with a non-zero offset on wl_surface version 5 (use offset)")
        }
        var buffer: Buffer?
        if let object {
            guard let known = recentBuffer(object.raw) ?? lookUpBuffer(object.raw) else {
                throw ProtocolError(WlSurfaceError.invalidSize, "wl_buffer@\(object.id) is not a buffer this compositor can show")
            }
            guard known.width <= Int(Self.maximumBufferDimension), known.height <= Int(Self.maximumBufferDimension) else {
                throw ProtocolError(WlSurfaceError.invalidSize,
                                    "wl_buffer@\(object.id) is \(known.width)×\(known.height), larger than "
                                        + "\(Self.maximumBufferDimension) pixels on a side")
            }
            buffer = known
        }
        for validator in attachValidators.values { try validator(self, buffer) }
        pending.attached = true
        pending.buffer = buffer
        pending.offsetX = ClientCoordinate.sum(pending.offsetX, x)
        pending.offsetY = ClientCoordinate.sum(pending.offsetY, y)
    }

    /// The buffers last attached that were looked up, newest at `nextRecentBuffer - 1`: a client
    /// attaches the same few buffers in turn, which are found here without hashing. Only a live
    /// buffer is taken: a destroyed one's address may be a new resource's.
    private var recentBuffers: [Buffer] = []
    private var nextRecentBuffer = 0
    /// How many buffers `recentBuffers` keeps: a client draws into two or three in turn.
    static let recentBuffersKept = 4

    private func recentBuffer(_ raw: OpaquePointer) -> Buffer? {
        for buffer in recentBuffers where buffer.raw == raw && buffer.isAlive { return buffer }
        return nil
    }

    /// The display's buffer for `raw` (made on first use), kept among `recentBuffers`.
    private func lookUpBuffer(_ raw: OpaquePointer) -> Buffer? {
        guard let display = client.display, let buffer = Buffer.from(raw, display: display) else { return nil }
        if recentBuffers.count < Self.recentBuffersKept {
            recentBuffers.append(buffer)
        } else {
            recentBuffers[nextRecentBuffer] = buffer
        }
        nextRecentBuffer = (nextRecentBuffer + 1) % Self.recentBuffersKept
        return buffer
    }

    /// wl_surface.commit: validate, then, once the buffer's fenced writes are done, cache
    /// (synchronized subsurface) or apply.
    func commit() throws(ProtocolError) {
        // Taken first and checked where it lies, not copied for every check. A commit that fails
        // them disconnects the client, so the requests need not be put back.
        var requests = PendingSurfaceState()
        swap(&requests, &pending)
        try validate(requests)
        for validator in commitValidators.values { try validator(self, &requests) }
        try role?.validateCommit(self, requests)
        guard waitingCommits.count < Self.maximumWaitingCommits else {
            client.postNoMemory()
            return
        }
        // The common commit waits for nothing: settled at once, without a trip through the queue.
        if waitingCommits.isEmpty, writeWatch == nil, !waitsForWrite(requests) {
            settle(&requests)
            return
        }
        waitingCommits.append(requests)
        if writeWatch == nil { settleFinishedCommits() }
    }

    /// Whether `requests` attach a buffer that is still being written.
    private func waitsForWrite(_ requests: PendingSurfaceState) -> Bool {
        requests.attached && requests.buffer?.unfinishedWrite != nil
    }

    /// Settles waiting commits in order until one's buffer is still being written, and watches
    /// that buffer on the event loop: the compositor's thread never waits for a client's GPU, and
    /// the surface shows its previous state meanwhile (as wlroots does).
    private func settleFinishedCommits() {
        writeWatch = nil
        while let next = waitingCommits.first {
            // unowned(unsafe), not weak: a weak reference gave the surface of every GPU client that
            // commits before its rendering ends a side table, which makes each retain and release
            // of it slow. The watch is the surface's, removed when its resource goes (`destroyed`),
            // before the surface can be released: its handler never runs without the surface.
            if next.attached, let fd = next.buffer?.unfinishedWrite, let loop = client.display?.eventLoop,
               let watch = try? loop.addFileDescriptor(fd, events: .readable, handler: { [unowned(unsafe) self] _ in
                   settleFinishedCommits()
               }) {
                writeWatch = watch
                return
            }
            var requests = waitingCommits.removeFirst()
            settle(&requests)
        }
    }

    private func settle(_ requests: inout PendingSurfaceState) {
        // Looked up once: the role is held weakly, and each look costs a weak load and a cast.
        let subsurface = self.subsurface
        if let subsurface, subsurface.isEffectivelySynchronized {
            subsurface.cache(requests)
            return
        }
        if let subsurface, let cached = subsurface.takeCache() {
            var merged = cached
            merged.merge(requests)
            apply(&merged)
        } else {
            apply(&requests)
        }
    }

    private func validate(_ requests: PendingSurfaceState) throws(ProtocolError) {
        guard let buffer = requests.attached ? requests.buffer : current.buffer else { return }
        let scale = requests.bufferScale ?? current.bufferScale
        let transform = requests.bufferTransform ?? current.bufferTransform
        let (width, height) = transform.swapsAxes ? (buffer.height, buffer.width) : (buffer.width, buffer.height)
        if width % Int(scale) != 0 || height % Int(scale) != 0 {
            throw ProtocolError(WlSurfaceError.invalidSize,
                                "buffer size \(width)×\(height) is not a multiple of the buffer scale \(scale)")
        }
    }

    /// Makes `requests` current, then the cached state of synchronized subsurfaces below.
    /// `requests` are left with the lists they replaced, emptied, for the next commit's storage.
    func apply(_ requests: inout PendingSurfaceState) {
        // In place: a copy of the state out and back costs a retain and release of each part.
        requests.apply(to: &current)
        Self.recycle(&requests.surfaceDamage, into: &pending.surfaceDamage)
        Self.recycle(&requests.bufferDamage, into: &pending.bufferDamage)
        // Moved, and the emptied list serves the next requests unless they have one already
        // (traded, not copied: no retain and release): applied requests were taken out of every
        // cache and queue, so no one else holds it.
        requests.frameCallbacks?.move(to: frameCallbacks)
        if pending.frameCallbacks == nil { swap(&pending.frameCallbacks, &requests.frameCallbacks) }
        // Shared, not copied, when every member still belongs; a surface without subsurfaces
        // (its stack is itself alone) has nothing more to do.
        if pendingStack.count > 1 || stack.count > 1 {
            let belongs = { (member: Surface) in member === self || member.subsurface?.parent === self }
            stack = pendingStack.allSatisfy(belongs) ? pendingStack : pendingStack.filter(belongs)
            for child in stack where child !== self {
                let sub = child.subsurface
                sub?.applyPendingPosition()
                if let sub, sub.isEffectivelySynchronized, var cached = sub.takeCache() {
                    child.apply(&cached)
                }
            }
        }
        for hook in requests.commitHooks { hook(self) }
        role?.surfaceDidCommit(self)
        observer?.surfaceDidCommit(self)
    }

    /// Gives `array`, emptied, to `spare` (a list of `pending`) when that is empty and smaller: the
    /// next commit's damage reuses its storage, where fresh lists cost an allocation each per commit.
    private static func recycle<Element>(_ array: inout [Element], into spare: inout [Element]) {
        guard spare.isEmpty, spare.capacity < array.capacity else { return }
        array.removeAllKeepingCapacity()
        swap(&array, &spare)
    }

    /// Removes a subsurface from this parent's stacking (its role went away).
    func removeFromStack(_ child: Surface) {
        pendingStack.removeAll { $0 === child }
        stack.removeAll { $0 === child }
    }

    override func destroyed() {
        observer?.surfaceWillBeDestroyed(self)
        for child in pendingStack where child !== self { child.subsurface?.parentDestroyed() }
        subsurface?.surfaceDestroyed()
        role = nil
        pendingStack = []
        stack = []
        recentBuffers = []
        frameCallbacks.removeAll()
        extensions = ExtensionTable()
        presentationFeedbackQueue = nil
        commitValidators = ExtensionTable()
        attachValidators = ExtensionTable()
        pending = PendingSurfaceState()
        waitingCommits = []
        writeWatch = nil
    }
}

/// A surface's entries of its protocol extensions, keyed by the extension's type, in the order they
/// were first set. A list walked, not a dictionary: a surface has a few (xdg_surface, a viewport,
/// a fractional scale), which are found, and run on every commit, without hashing.
struct ExtensionTable<Value> {
    private var entries: [(key: ObjectIdentifier, value: Value)] = []

    subscript(key: ObjectIdentifier) -> Value? {
        get {
            for entry in entries where entry.key == key { return entry.value }
            return nil
        }
        set {
            if let index = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((key, newValue))
            }
        }
    }

    /// The values, in the order their keys were first set.
    var values: LazyMapSequence<[(key: ObjectIdentifier, value: Value)], Value> { entries.lazy.map(\.value) }
}
