import CLinux
import Testing
@testable import LayerKit

@MainActor
@Suite struct RenderTreeTests {
    func wideTree(_ count: Int) -> (Layer, [Layer]) {
        let root = makeLayer(1000, 1000, at: Point(x: 500, y: 500))
        let children = (0..<count).map { makeLayer(10, 10, at: Point(x: Double($0 % 100) * 10, y: Double($0 / 100) * 10)) }
        root.sublayers = children
        return (root, children)
    }

    @Test func aCommitSnapshotsTheWholeTreeOnceThenOnlyWhatChanged() throws {
        let (root, children) = wideTree(1000)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let first = try #require(context.renderTree)
        #expect(first.count == 1001 && first.changedLayerIDs.count == 1001)
        children[500].opacity = 0.5
        Transaction.flush()
        let second = try #require(context.renderTree)
        #expect(second.changedLayerIDs == [children[500].id])
        #expect(second[children[500].id]?.properties.opacity == 0.5)
        #expect(first[children[500].id]?.properties.opacity == 1)  // earlier snapshots never change
        #expect(second.generation == first.generation + 1)
    }

    /// A commit makes a RenderLayer for each changed layer (a client's new buffer: one a frame),
    /// and a snapshot two commits on frees it. Small enough, its block comes from and goes back
    /// to the allocator's per-thread cache (glibc's serves requests up to 1,032 bytes) rather
    /// than its bins, several times slower: a layer's rarely set values are boxed to that end.
    @Test func aCommittedLayerIsAllocatedFromTheAllocatorsCache() throws {
        let root = makeLayer(10, 10)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let committed = try #require(context.renderTree?.root)
        #expect(malloc_usable_size(Unmanaged.passUnretained(committed).toOpaque()) <= 1032)
    }

    @Test func anAnimationUnderAHiddenOrTransparentLayerNeedsNoFrames() throws {
        let (root, children) = wideTree(2)
        let spinner = makeLayer(6, 6, at: .zero)
        children[0].addSublayer(spinner)
        let context = RenderContext(rootLayer: root)
        let pulse = BasicAnimation(keyPath: "opacity")
        pulse.fromValue = 1.0
        pulse.toValue = 0.25
        pulse.duration = 1
        pulse.repeatCount = .infinity
        spinner.add(pulse, forKey: "pulse")
        Transaction.flush()
        #expect(try #require(context.renderTree).hasVisibleAnimations)
        func change(_ body: () -> Void) {
            Transaction.begin()
            Transaction.disableActions = true
            body()
            Transaction.commit()
            Transaction.flush()
        }
        change { children[0].isHidden = true }
        let hidden = try #require(context.renderTree)
        #expect(hidden.animatedLayerIDs == [spinner.id])
        #expect(!hidden.hasVisibleAnimations)
        change {
            children[0].isHidden = false
            children[0].opacity = 0
        }
        #expect(try #require(context.renderTree).hasVisibleAnimations == false)
        change { children[0].opacity = 0.5 }
        #expect(try #require(context.renderTree).hasVisibleAnimations)
    }

    @Test func aSnapshotKnowsTheChangesSinceRecentGenerations() throws {
        let (root, children) = wideTree(3)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let start = try #require(context.renderTree).generation
        children[0].opacity = 0.5
        Transaction.flush()
        children[1].opacity = 0.5
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(tree.changedLayerIDs(since: start) == [children[0].id, children[1].id])
        #expect(tree.changedLayerIDs(since: start + 1) == [children[1].id])
        #expect(tree.changedLayerIDs(since: tree.generation) == [])
        #expect(tree.changedLayerIDs(since: tree.generation + 1) == nil)
        for step in 0..<RenderContext.changeHistoryLength {
            children[2].opacity = 0.1 + 0.01 * Double(step)
            Transaction.flush()
        }
        let later = try #require(context.renderTree)
        #expect(later.changedLayerIDs(since: start) == nil)  // older than the history
        #expect(later.changedLayerIDs(since: tree.generation) == [children[2].id])
    }

    /// A frame copies its tree several times: at eight words or more, each copy went through the
    /// type's value witnesses (about 110 instructions) instead of code made for the tree.
    @Test func aRenderTreeIsAtMostSevenWords() {
        #expect(MemoryLayout<RenderTree>.size <= 7 * MemoryLayout<Int>.size)
    }

    @Test func commitsOfOneLayerShareTheirChangesAndSetsAndStillAnswerForEachGeneration() throws {
        let (root, children) = wideTree(3)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let start = try #require(context.renderTree).generation
        var run: [RenderTree] = []
        for step in 0..<5 {
            children[0].opacity = 0.5 + 0.01 * Double(step)
            Transaction.flush()
            run.append(try #require(context.renderTree))
        }
        // One run of changes, one set, one object of sets: nothing made again per commit.
        #expect(run.allSatisfy { $0.recentChanges === run[0].recentChanges && $0.changedLayerIDs == [children[0].id] })
        #expect(run.allSatisfy { $0.indexes === run[0].indexes })
        // One trie too: the layer changed again is stored beside it, and each snapshot keeps its values.
        #expect(run.allSatisfy { $0.layers.rootIdentity == run[0].layers.rootIdentity })
        #expect(run.map { $0[children[0].id]?.properties.opacity } == (0..<5).map { 0.5 + 0.01 * Double($0) })
        #expect(run[4][children[0].id]?.properties.opacity == 0.5 + 0.01 * 4 && run[0][children[0].id]?.properties.opacity == 0.5)
        children[1].opacity = 0.5
        Transaction.flush()
        children[1].opacity = 0.6
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(tree.generation == start + 7 && tree.changedLayerIDs == [children[1].id])
        #expect(tree.changedLayerIDs(since: start) == [children[0].id, children[1].id])
        #expect(tree.changedLayerIDs(since: start + 4) == [children[0].id, children[1].id])
        #expect(tree.changedLayerIDs(since: start + 5) == [children[1].id])
        #expect(tree.changedLayerIDs(since: start + 6) == [children[1].id])
        #expect(run[3].changedLayerIDs(since: start) == [children[0].id])
        #expect(run[3].changedLayerIDs(since: start + 5) == nil)  // later than run[3] itself
        // A layer that joins a set ends the sharing of the sets, not the run.
        children[1].backgroundFilters = [Filter.gaussianBlur(radius: 2, name: "frost")]
        Transaction.flush()
        let filtered = try #require(context.renderTree)
        #expect(filtered.recentChanges === tree.recentChanges && filtered.backdropLayerIDs == [children[1].id])
        #expect(tree.backdropLayerIDs.isEmpty)
    }

    @Test func addingAndRemovingSubtreesUpdatesTheSnapshot() throws {
        let root = makeLayer(100, 100)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let branch = makeLayer(10, 10), leaf = makeLayer(5, 5)
        branch.addSublayer(leaf)
        root.addSublayer(branch)
        Transaction.flush()
        var tree = try #require(context.renderTree)
        #expect(tree.count == 3 && tree[leaf.id]?.superlayerID == branch.id && tree.root?.sublayerIDs == [branch.id])
        branch.removeFromSuperlayer()
        Transaction.flush()
        tree = try #require(context.renderTree)
        #expect(tree.count == 1 && tree[leaf.id] == nil && tree.changedLayerIDs == [root.id, branch.id, leaf.id])
    }

    @Test func aSubtreeMovedBetweenContextsMovesItsSnapshots() throws {
        let a = makeLayer(100, 100), b = makeLayer(100, 100)
        let ca = RenderContext(rootLayer: a), cb = RenderContext(rootLayer: b)
        let branch = makeLayer(10, 10), leaf = makeLayer(5, 5)
        branch.addSublayer(leaf)
        a.addSublayer(branch)
        Transaction.flush()
        #expect(ca.renderTree?.count == 3 && cb.renderTree?.count == 1)
        b.addSublayer(branch)
        Transaction.flush()
        #expect(ca.renderTree?.count == 1 && cb.renderTree?.count == 3)
        #expect(cb.renderTree?[leaf.id]?.superlayerID == branch.id)
    }

    @Test func layersOutsideAnyContextAreNotSnapshotted() throws {
        let root = makeLayer(10, 10)
        let context = RenderContext(rootLayer: root)
        let stray = makeLayer(5, 5)
        stray.opacity = 0.5
        Transaction.flush()
        #expect(context.renderTree?.count == 1 && stray.committedContext == nil)
        context.invalidate()
        Transaction.flush()
        #expect(context.renderTree?.count == 0)
    }

    @Test func masksAreSnapshottedWithTheLayerTheyMask() throws {
        let root = makeLayer(100, 100)
        let mask = makeLayer(50, 50, at: Point(x: 25, y: 25))
        root.mask = mask
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(tree.root?.maskID == mask.id && tree[mask.id]?.maskedLayerID == root.id)
        #expect(tree.drawList().map(\.layer.id) == [root.id])
        let toRoot = try #require(tree.transformToRoot(of: mask.id))
        let p = try #require(toRoot.apply(x: 0, y: 0))
        // The mask's (0, 0) is the masked root's (0, 0), which its anchor puts at (−50, −50).
        #expect(p.x == -50 && p.y == -50)
    }

    @Test func theDrawListIsBackToFrontWithWorldTransformsAndOpacity() throws {
        let root = makeLayer(200, 200, at: Point(x: 100, y: 100), name: "root")
        let back = makeLayer(50, 50, at: Point(x: 50, y: 50), name: "back")
        let front = makeLayer(50, 50, at: Point(x: 150, y: 50), name: "front")
        let inner = makeLayer(10, 10, at: Point(x: 25, y: 25), name: "inner")
        let hidden = makeLayer(10, 10, name: "hidden")
        front.addSublayer(inner)
        front.addSublayer(hidden)
        hidden.isHidden = true
        root.sublayers = [front, back]
        front.zPosition = 1
        front.opacity = 0.5
        inner.opacity = 0.5
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let items = try #require(context.renderTree).drawList()
        #expect(items.map { $0.layer.properties.name } == ["root", "back", "front", "inner"])
        #expect(items.map(\.opacity) == [1, 1, 0.5, 0.25])
        #expect(items.map(\.depth) == [0, 1, 1, 2])
        let innerOrigin = try #require(items[3].transform.apply(x: 0, y: 0))
        #expect(innerOrigin.x == inner.convert(Point.zero, to: nil).x && innerOrigin.y == inner.convert(Point.zero, to: nil).y)
        #expect(innerOrigin.x == 145 && innerOrigin.y == 45)
    }

    @Test func samplingAppliesAnimationsAtEachLayersLocalTime() throws {
        MediaTime.clock = ManualMediaClock(startingAt: 0)
        let root = makeLayer(10, 10)
        let child = makeLayer(5, 5)
        root.addSublayer(child)
        root.speed = 2
        let ramp = BasicAnimation(keyPath: "opacity")
        (ramp.fromValue, ramp.toValue, ramp.duration) = (0.0, 1.0, 10)
        child.add(ramp, forKey: "ramp")
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(context.renderTree)
        #expect(tree.animatedLayerIDs == [child.id])
        #expect(tree[child.id]?.properties.opacity == 1)  // the model value
        let sampled = tree.sampled(atMediaTime: 2)  // local time 4 under speed 2
        #expect(sampled[child.id]?.properties.opacity == 0.4)
        #expect(sampled[root.id]?.properties.opacity == 1)
        #expect(tree.localTime(of: child.id, atMediaTime: 2) == child.convertTime(2, from: nil))
    }
}
