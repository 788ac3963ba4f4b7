import Testing
@testable import LayerKit

/// A context's layers refer to it without counting it, and it forgets them as it goes.
@MainActor
@Suite struct RenderContextLifetimeTests {
    /// A root with a sublayer and a mask, committed into a new context.
    func committedTree() -> (root: Layer, child: Layer, mask: Layer, context: RenderContext) {
        let root = makeLayer(100, 100), child = makeLayer(10, 10), mask = makeLayer(50, 50)
        root.addSublayer(child)
        root.mask = mask
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        return (root, child, mask, context)
    }

    /// Weak references from its layers would give the context a side table, and every retain and
    /// release of it (several each commit) would take the runtime's slow path. Nor do a layer's
    /// sublayers and mask refer to it weakly. (A count of 1 is the object's own: no weak reference.)
    @Test func aContextAndItsLayersAreNotWeaklyReferenced() throws {
        let (root, child, mask, context) = committedTree()
        #expect(context.renderTree?.count == 3)
        #expect(_getWeakRetainCount(context) == 1)
        #expect(_getWeakRetainCount(root) == 1)
        #expect(_getWeakRetainCount(child) == 1)
        #expect(_getWeakRetainCount(mask) == 1)
    }

    /// Once its context goes, a root can be the root of a new context, whose first commit
    /// snapshots the whole tree again.
    @Test func aContextThatGoesIsForgottenByItsLayers() throws {
        let root, child, mask: Layer
        weak var released: RenderContext?
        do {
            let tree = committedTree()
            (root, child, mask, released) = (tree.root, tree.child, tree.mask, tree.context)
        }
        #expect(released == nil)
        #expect(root.hostingContext == nil && child.committedContext == nil && mask.committedContext == nil)
        child.opacity = 0.5
        Transaction.flush()
        let next = RenderContext(rootLayer: root)
        Transaction.flush()
        let tree = try #require(next.renderTree)
        #expect(tree.count == 3 && tree.changedLayerIDs == [root.id, child.id, mask.id])
        #expect(tree[child.id]?.properties.opacity == 0.5)
        #expect(child.committedContext === next && root.hostingContext === next)
    }

    /// The context holds its root and the layers of its snapshot, and nothing more: when the
    /// context and the tree go, so do the layers.
    @Test func theLayersGoWithTheirContextAndTree() throws {
        weak var releasedRoot: Layer?
        weak var releasedChild: Layer?
        weak var releasedContext: RenderContext?
        do {
            let (root, child, _, context) = committedTree()
            (releasedRoot, releasedChild, releasedContext) = (root, child, context)
        }
        #expect(releasedContext == nil && releasedRoot == nil && releasedChild == nil)
    }

    /// A layer removed from the tree leaves the context's snapshot and is released with the tree,
    /// while the context lives on.
    @Test func aLayerRemovedFromTheTreeIsReleasedWhileItsContextLives() throws {
        let (root, _, _, context) = committedTree()
        weak var released: Layer?
        do {
            let leaf = makeLayer(5, 5)
            root.addSublayer(leaf)
            Transaction.flush()
            #expect(leaf.committedContext === context)
            released = leaf
            leaf.removeFromSuperlayer()
            Transaction.flush()
            #expect(leaf.committedContext == nil)
        }
        #expect(released == nil)
        #expect(context.renderTree?.count == 3)
    }
}
