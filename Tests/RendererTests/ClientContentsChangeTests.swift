import BufferFixtures
import Buffers
import Graphics
import LayerKit
import Testing
@testable import Renderer

/// What a client's commits changed, for damage tracking: the surface keeps its last commits'
/// damage, so contents need not keep their predecessors alive.
@Suite struct ClientContentsChangeTests {
    /// The contents of a commit with `damage`, replacing `previous` on `surface`.
    func commit(_ buffer: LentMemory, damage: ImageRect?, on surface: ClientSurfaceTexture, replacing previous: ClientBufferContents?)
        -> ClientBufferContents
    {
        ClientBufferContents(buffer: buffer, dmabuf: nil, damage: damage, surface: surface, replacing: previous)
    }

    /// The commits between two contents unite their damage, also once the contents in between are
    /// gone (as the layer tree lets go of them); a commit without damage, or one too many, is nil.
    @Test func theChangeSinceAnEarlierCommitUnitesTheDamageOfTheCommitsBetween() throws {
        let surface = ClientSurfaceTexture(owner: nil)
        let buffer = try #require(LentMemory(width: 16, height: 16, format: .xrgb8888))
        let first = commit(buffer, damage: nil, on: surface, replacing: nil)
        var last = first
        weak var between: ClientBufferContents?
        do {
            let second = commit(buffer, damage: ImageRect(x: 1, y: 1, width: 2, height: 2), on: surface, replacing: first)
            between = second
            last = commit(buffer, damage: ImageRect(x: 8, y: 4, width: 1, height: 1), on: surface, replacing: second)
        }
        #expect(between == nil)
        #expect(last.changedRect(since: first) == ImageRect(x: 1, y: 1, width: 8, height: 4))
        #expect(last.changedRect(since: first, maximumSteps: 1) == nil)
        #expect(first.changedRect(since: last) == nil)

        let whole = commit(buffer, damage: nil, on: surface, replacing: last)
        #expect(whole.changedRect(since: last) == nil)
        var latest = commit(buffer, damage: ImageRect(x: 0, y: 0, width: 1, height: 1), on: surface, replacing: whole)
        let anchor = latest
        for _ in 0..<ClientSurfaceTexture.changesKept {
            latest = commit(buffer, damage: ImageRect(x: 0, y: 0, width: 1, height: 1), on: surface, replacing: latest)
        }
        #expect(latest.changedRect(since: anchor) == ImageRect(x: 0, y: 0, width: 1, height: 1))
        latest = commit(buffer, damage: ImageRect(x: 0, y: 0, width: 1, height: 1), on: surface, replacing: latest)
        #expect(latest.changedRect(since: anchor, maximumSteps: 100) == nil)

        let other = commit(buffer, damage: ImageRect(x: 0, y: 0, width: 1, height: 1), on: ClientSurfaceTexture(owner: nil), replacing: nil)
        #expect(other.changedRect(since: first) == nil)
        #expect(buffer.holds == 2)
    }
}
