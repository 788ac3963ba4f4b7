import Buffers
import Graphics
import LayerKit
import RendererContract

/// A client's buffer as a layer's contents, read where it lies when a frame draws it: nothing is
/// copied when the client commits. The first frame that draws the contents brings its surface's
/// texture up to date — a shm buffer's damaged rows staged straight from the client's memory, a
/// dma-buf's damaged rectangle copied by the GPU from its import, nothing for a dma-buf sampled
/// where it lies (`DmabufImport.isSampledInPlace`). Contents replaced before any frame drew them
/// pass their damage on to their successor and are read no more.
///
/// The contents hold their buffer from its client (`LentBuffer.hold()`): a shm or single-pixel
/// buffer until a frame has read it (staged its rows), or until contents replacing it, or the
/// surface's end (`abandon()`), no longer need it; a dma-buf until contents replace it (a display
/// may scan it out meanwhile). A frame that reads a dma-buf on the GPU holds it too, until that
/// frame is done.
///
/// One object per commit, compared by identity like an image; the contents of one surface share
/// one texture (`ClientSurfaceTexture`), which each commit's damage updates.
public final class ClientBufferContents: ClientContents, @unchecked Sendable {
    /// The buffer's import, for a dma-buf (nil: its pixels are read through `buffer.withPixels`).
    let dmabuf: DmabufImport?
    public let surface: ClientSurfaceTexture
    /// The pixels that differ from what the texture holds before this commit is uploaded (nil:
    /// all of them).
    private(set) var damage: ImageRect?
    /// This commit's number among its surface's, for damage tracking (`changedRect(since:)`): the
    /// surface keeps what its last commits changed, so contents need no link to their predecessor.
    private let commitNumber: UInt64
    /// Whether the contents hold their buffer from its client still.
    public private(set) var holdsBuffer = true
    /// Whether the hold lasts until the contents are replaced (a dma-buf's), not until they are read.
    private let holdsUntilReplaced: Bool
    /// Whether the texture holds this commit's pixels (its upload is staged or recorded).
    public private(set) var isUploaded = false

    /// Contents of `surface` showing `buffer`, whose pixels differ from `previous`'s (the
    /// surface's last contents, nil for its first buffer) in `damage` (all of them when nil).
    /// `dmabuf`: the buffer's import, for a client's dma-buf. The contents hold `buffer` from now
    /// on; `previous` hold theirs no longer.
    public init(
        buffer: any LentBuffer, dmabuf: DmabufImport?, damage: ImageRect?, surface: ClientSurfaceTexture,
        replacing previous: ClientBufferContents?
    ) {
        self.dmabuf = dmabuf
        self.surface = surface
        holdsUntilReplaced = buffer.kind == .clientDmabuf
        commitNumber = surface.recordCommit(changing: previous?.surface === surface ? damage : nil)
        self.damage = damage
        super.init(buffer: buffer)
        // Held before the predecessor lets go: the same buffer committed again stays unreleased.
        buffer.hold()
        guard let previous else { return }
        if !previous.isUploaded {
            // Its damage is still to be uploaded, from this buffer now.
            self.damage = damage.flatMap { mine in previous.damage.map { mine.union($0) } }
            previous.isUploaded = true
        }
        previous.endHold()
    }

    public override var surfaceOwner: AnyObject? { surface.owner }

    public override func changedRect(sinceContents ancestor: ClientContents) -> ImageRect? {
        guard let ancestor = ancestor as? ClientBufferContents else { return nil }
        return changedRect(since: ancestor)
    }

    /// Whether the buffer's pixels are opaque whatever their alpha bits hold.
    var isOpaque: Bool { !buffer.format.hasAlpha }

    /// The buffer pixels that may differ from `ancestor`'s, when these contents replaced it
    /// through at most `maximumSteps` (up to `ClientSurfaceTexture.changesKept`) commits of their
    /// surface; nil otherwise.
    public func changedRect(since ancestor: ClientBufferContents, maximumSteps: Int = 8) -> ImageRect? {
        guard ancestor.surface === surface, ancestor.commitNumber < commitNumber,
            commitNumber - ancestor.commitNumber <= UInt64(maximumSteps)
        else { return nil }
        return surface.changes(from: ancestor.commitNumber + 1, through: commitNumber)
    }

    /// The texture showing these contents on `context`'s device, brought up to date first: the
    /// damaged pixels staged from a shm buffer (which is then read: the contents let go of it) or
    /// recorded as a copy from a dma-buf. Nil when the buffer cannot be read now (gone, or in a
    /// format without a texture): the layer is drawn without contents. A frame that samples a
    /// dma-buf in place or copies from it holds the buffer: it is returned, and the caller ends
    /// that hold once the frame is done on the GPU.
    func texture(on context: VulkanContext, pool: StagingBufferPool) throws -> (texture: Texture, heldForFrame: (any LentBuffer)?)? {
        if surface.texture?.image.context !== context {
            // A new device (the old one was lost): everything is uploaded again.
            surface.texture = nil
            isUploaded = false
            damage = nil
        }
        if let dmabuf, dmabuf.context !== context { return nil }
        if let inPlace = dmabuf?.inPlace {
            // Sampled where it lies: nothing to bring up to date. The surface's copy texture no
            // longer holds what is shown, so a later copied buffer is copied whole.
            surface.texture = nil
            surface.inPlaceSamples += 1
            isUploaded = true
            buffer.hold()
            return (inPlace, buffer)
        }
        if isUploaded, let texture = surface.texture { return (texture, nil) }
        // A shm buffer's rows are staged as 0xAARRGGBB words; a dma-buf is copied as it is.
        let format = dmabuf?.vulkanFormat ?? GPUImage.format
        let opaque = isOpaque
        if let texture = surface.texture,
            texture.width != buffer.width || texture.height != buffer.height || texture.image.format != format
                || texture.image.isOpaque != opaque
        {
            surface.texture = nil
        }
        if surface.texture == nil {
            surface.texture = try Texture(width: buffer.width, height: buffer.height, format: format, opaque: opaque, context: context)
            damage = nil
        }
        let texture = surface.texture!
        var rect: ImageRect?
        if let damage {
            guard let inside = damage.clipped(toWidth: buffer.width, height: buffer.height) else {
                // Nothing of the texture changes.
                isUploaded = true
                finishReading()
                return (texture, nil)
            }
            rect = inside
        }
        let bytes = (rect?.width ?? buffer.width) * (rect?.height ?? buffer.height) * 4
        if let dmabuf {
            texture.update(from: dmabuf, in: rect)
            isUploaded = true
            surface.uploadedBytes += bytes
            buffer.hold()
            return (texture, buffer)
        }
        let staged = try buffer.withPixels { rows -> Bool in
            guard rows.format.bytesPerPixel != nil, rows.width == texture.width, rows.height == texture.height else { return false }
            try texture.update(from: rows, in: rect, pool: pool)
            return true
        }
        guard staged == true else { return nil }
        isUploaded = true
        surface.uploadedBytes += bytes
        finishReading()
        return (texture, nil)
    }

    /// The surface stopped showing the buffer (unmapped, or gone): the contents hold it no more,
    /// and no frame is waited for.
    public func abandon() {
        isUploaded = true
        endHold()
    }

    /// A frame has read a shm or single-pixel buffer: it may go back to its client (a dma-buf's
    /// hold lasts until the contents are replaced).
    private func finishReading() {
        if !holdsUntilReplaced { endHold() }
    }

    private func endHold() {
        guard holdsBuffer else { return }
        holdsBuffer = false
        buffer.endHold()
    }

    deinit {
        // Contents no commit replaced and the surface did not abandon (it went away): the buffer is free.
        endHold()
    }
}

/// The texture that shows one surface's buffers, kept from commit to commit so that each commit's
/// damage updates it, on the device of the renderers that draw it.
public final class ClientSurfaceTexture: @unchecked Sendable {
    var texture: Texture?
    /// Bytes of client pixels uploaded into the texture so far: the measure of what a commit costs.
    public internal(set) var uploadedBytes = 0
    /// How many times frames sampled one of the surface's dma-bufs where it lies, copying nothing.
    public internal(set) var inPlaceSamples = 0
    /// Whose surface this is (the compositor's object), for the frames that show it to name it;
    /// nil once the owner went away. Not a counted reference: a weak one gives the owner a side
    /// table, and then its every retain and release takes the runtime's slow path (a surface's
    /// node is retained and released several times a frame). The owner keeps the texture (a
    /// strong reference, so it outlives the owner only in contents a render tree still holds), and
    /// must call `ownerWentAway()` before it is freed, which is what makes this safe to read.
    public private(set) unowned(unsafe) var owner: AnyObject?
    /// How many commits' changes the surface keeps for damage tracking.
    public static let changesKept = 8
    /// The buffer pixels each of the last commits changed from the one before (nil: all of them, or
    /// unknown), at their number modulo `changesKept`.
    private var changes = [ImageRect?](repeating: nil, count: changesKept)
    /// How many commits (contents) the surface had.
    private var commitCount: UInt64 = 0

    /// A texture named for `owner`, which calls `ownerWentAway()` before it is freed (nil: for
    /// no one).
    public init(owner: AnyObject?) {
        self.owner = owner
    }

    /// The owner is going away: frames that still show the surface's contents no longer name it.
    public func ownerWentAway() {
        owner = nil
    }

    /// Numbers a new commit, which changed `rect` from the last one (nil: all of it, or unknown).
    func recordCommit(changing rect: ImageRect?) -> UInt64 {
        commitCount += 1
        changes[Int(commitCount % UInt64(Self.changesKept))] = rect
        return commitCount
    }

    /// What commits `first` through `last` changed, as one rectangle; nil where one changed all
    /// of the buffer or is no longer kept.
    func changes(from first: UInt64, through last: UInt64) -> ImageRect? {
        guard first > 0, first <= last, last <= commitCount, commitCount - first < UInt64(Self.changesKept) else { return nil }
        var union: ImageRect?
        for number in first...last {
            guard let rect = changes[Int(number % UInt64(Self.changesKept))] else { return nil }
            union = union.map { $0.union(rect) } ?? rect
        }
        return union
    }
}

extension ImageRect {
    /// The part of the rectangle inside a `width`×`height` image; nil when nothing is.
    func clipped(toWidth width: Int, height: Int) -> ImageRect? {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + self.width), y1 = min(height, y + self.height)
        guard x1 > x0, y1 > y0 else { return nil }
        return ImageRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

extension ClientBufferContents: Equatable {
    public static func == (a: ClientBufferContents, b: ClientBufferContents) -> Bool { a === b }
}
