import Testing
@testable import LayerKit

@MainActor
@Suite struct TransactionTests {
    @Test func valuesWithNoTransactionAreTheDefaults() {
        Transaction.flush()
        #expect(Transaction.animationDuration == 0.25 && !Transaction.disableActions)
        #expect(Transaction.completionBlock == nil)
    }

    @Test func nestedTransactionsInheritAndRestoreValues() {
        Transaction.begin()
        Transaction.animationDuration = 2
        Transaction.setValue("outer", forKey: "custom")
        Transaction.begin()
        #expect(Transaction.animationDuration == 2 && Transaction.value(forKey: "custom") as? String == "outer")
        Transaction.animationDuration = 5
        Transaction.disableActions = true
        #expect(Transaction.animationDuration == 5 && Transaction.disableActions)
        Transaction.commit()
        #expect(Transaction.animationDuration == 2 && !Transaction.disableActions)
        Transaction.commit()
        #expect(Transaction.animationDuration == 0.25)
    }

    @Test func beginDisablingActionsOpensATransactionWithThatValueAndCommitRestoresTheOuterOne() {
        Transaction.begin()
        Transaction.animationDuration = 2
        Transaction.begin(disablingActions: true)
        #expect(Transaction.disableActions && Transaction.animationDuration == 2)
        Transaction.begin(disablingActions: false)
        #expect(!Transaction.disableActions)
        Transaction.commit()
        #expect(Transaction.disableActions)
        Transaction.commit()
        #expect(!Transaction.disableActions && Transaction.animationDuration == 2)
        Transaction.commit()
        #expect(Transaction.animationDuration == 0.25 && !Transaction.disableActions)
    }

    @Test func changesReachTheRenderTreeOnlyWhenTheOutermostTransactionCommits() throws {
        let root = makeLayer(100, 100)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        Transaction.begin()
        root.opacity = 0.5
        Transaction.begin()
        root.position = Point(x: 3, y: 4)
        Transaction.commit()
        #expect(try #require(context.renderTree).root?.properties.opacity == 1)
        Transaction.commit()
        let tree = try #require(context.renderTree)
        #expect(tree.root?.properties.opacity == 0.5 && tree.root?.properties.position == Point(x: 3, y: 4))
    }

    @Test func aChangeOutsideATransactionWaitsForTheRunLoopsFlush() throws {
        let root = makeLayer(100, 100)
        let context = RenderContext(rootLayer: root)
        #expect(context.renderTree == nil)
        Transaction.flush()
        let first = try #require(context.renderTree)
        root.backgroundColor = .red
        #expect(context.renderTree?.generation == first.generation)
        Transaction.flush()
        #expect(context.renderTree?.generation == first.generation + 1)
        #expect(context.renderTree?.root?.properties.backgroundColor == .red)
    }

    @Test func flushInsideAnExplicitTransactionWaitsForItsCommit() {
        let root = makeLayer(10, 10)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        Transaction.begin()
        root.opacity = 0.25
        Transaction.flush()
        #expect(context.renderTree?.root?.properties.opacity == 1)
        Transaction.commit()
        #expect(context.renderTree?.root?.properties.opacity == 0.25)
    }

    @Test func anExplicitTransactionInsideTheImplicitOneCommitsWithIt() {
        let root = makeLayer(10, 10)
        let context = RenderContext(rootLayer: root)  // a change: the implicit transaction opens
        Transaction.begin()
        root.opacity = 0.5
        Transaction.commit()
        #expect(context.renderTree == nil)
        Transaction.flush()
        #expect(context.renderTree?.root?.properties.opacity == 0.5)
    }

    @Test func theCompletionBlockRunsOnceAfterTheCommitWhenNoAnimationsWereAdded() {
        var runs = 0
        var committedWhenRun: Double?
        let root = makeLayer(10, 10)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        Transaction.begin()
        Transaction.disableActions = true  // no implicit animation to wait for
        Transaction.completionBlock = {
            runs += 1
            committedWhenRun = context.renderTree?.root?.properties.opacity
        }
        root.opacity = 0.75
        #expect(runs == 0)
        Transaction.commit()
        #expect(runs == 1 && committedWhenRun == 0.75)
        Transaction.flush()
        #expect(runs == 1)
    }

    @Test func settingTheSameValuePostsNoChange() throws {
        let root = makeLayer(10, 10)
        let context = RenderContext(rootLayer: root)
        Transaction.flush()
        let generation = try #require(context.renderTree).generation
        root.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        root.opacity = 1
        Transaction.flush()
        #expect(context.renderTree?.generation == generation)
    }


    @Test func newContentsLeaveTheRevisionExceptContentsAndOtherChangesAdvanceIt() {
        let root = makeLayer(10, 10)
        let child = makeLayer(4, 4)
        _ = RenderContext(rootLayer: root)
        Transaction.flush()
        let start = Transaction.revisionExceptContents
        root.contents = Image(width: 10, height: 10, fill: .clear)
        root.bounds = Rect(x: 0, y: 0, width: 10, height: 10)
        Transaction.flush()
        #expect(Transaction.revisionExceptContents == start)
        root.position = Point(x: 1, y: 0)
        #expect(Transaction.revisionExceptContents == start + 1)
        root.addSublayer(child)
        #expect(Transaction.revisionExceptContents > start + 1)
        Transaction.flush()
    }
    @Test func layoutRunsBeforeDisplayInACommit() {
        final class Ordered: Layer, LayerLayoutDelegate {
            var events: [String] = []
            override func display() { events.append("display") }
            func layoutSublayers(of layer: Layer) { events.append("layout") }
        }
        let layer = Ordered()
        layer.delegate = layer
        Transaction.flush()
        layer.events = []
        layer.setNeedsDisplay()
        layer.setNeedsLayout()
        Transaction.flush()
        #expect(layer.events == ["layout", "display"])
    }
}

@MainActor
@Suite struct KeyValueTests {
    final class Gauge: Layer {
        override class func defaultValue(forKey key: String) -> (any Sendable)? {
            key == "needle" ? 0.5 : super.defaultValue(forKey: key)
        }
        override class func needsDisplay(forKey key: String) -> Bool {
            key == "needle" || super.needsDisplay(forKey: key)
        }
    }

    @Test func declaredPropertiesAreReachableByTheirKeys() {
        let l = Layer()
        l.setValue(Point(x: 1, y: 2), forKey: "position")
        l.setValue(0.5, forKey: "opacity")
        l.setValue(true, forKey: "hidden")
        l.setValue(Color.red, forKey: "backgroundColor")
        #expect(l.position == Point(x: 1, y: 2) && l.opacity == 0.5 && l.isHidden && l.backgroundColor == .red)
        #expect(l.value(forKey: "position") as? Point == Point(x: 1, y: 2))
        #expect(l.value(forKey: "geometryFlipped") as? Bool == false)
        l.setValue(nil, forKey: "backgroundColor")
        #expect(l.backgroundColor == nil && l.value(forKey: "backgroundColor") == nil)
    }

    @Test func customKeysRoundTripAndFallBackToTheirDefaults() {
        let g = Gauge()
        #expect(g.value(forKey: "needle") as? Double == 0.5)
        #expect(g.value(forKey: "unset") == nil)
        g.setValue(0.8, forKey: "needle")
        g.setValue("label", forKey: "caption")
        #expect(g.value(forKey: "needle") as? Double == 0.8 && g.value(forKey: "caption") as? String == "label")
    }

    @Test func customValuesReachTheRenderTreeAndCanRequestDisplay() throws {
        let g = Gauge()
        g.bounds = Rect(x: 0, y: 0, width: 4, height: 4)
        let context = RenderContext(rootLayer: g)
        Transaction.flush()
        g.setValue(0.9, forKey: "needle")
        #expect(g.needsDisplay())
        Transaction.flush()
        #expect(try #require(context.renderTree).root?.properties.customValues["needle"] as? Double == 0.9)
    }
}
