import Testing
@testable import LayerKit

@MainActor
@Suite struct RenderContextAnimationsTests {
    /// The context answers in place what its latest snapshot would: nothing before the first
    /// commit, nothing for a tree without animations, an animation seen, and one under a hidden
    /// layer not.
    @Test func theContextSaysWhetherItsLatestTreeHasVisibleAnimations() throws {
        let root = makeLayer(100, 100, at: Point(x: 50, y: 50))
        let holder = makeLayer(20, 20, at: .zero)
        let spinner = makeLayer(6, 6, at: .zero)
        root.addSublayer(holder)
        holder.addSublayer(spinner)
        let context = RenderContext(rootLayer: root)
        #expect(context.renderTree == nil)
        #expect(context.hasVisibleAnimations == false)
        Transaction.flush()
        #expect(try #require(context.renderTree).animatedLayerIDs.isEmpty)
        #expect(context.hasVisibleAnimations == false)
        let spin = BasicAnimation(keyPath: "transform.rotation.z")
        spin.toValue = Double.pi
        spin.duration = 60
        spinner.add(spin, forKey: "spin")
        Transaction.flush()
        #expect(try #require(context.renderTree).animatedLayerIDs == [spinner.id])
        #expect(context.hasVisibleAnimations == true)
        Transaction.begin()
        Transaction.disableActions = true
        holder.isHidden = true
        Transaction.commit()
        Transaction.flush()
        #expect(try #require(context.renderTree).animatedLayerIDs == [spinner.id])
        #expect(context.hasVisibleAnimations == false)
    }
}
