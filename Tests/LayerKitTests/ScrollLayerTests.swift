import Testing
@testable import LayerKit

@MainActor
@Suite struct ScrollLayerTests {
    /// A 100×50 scroll layer at (10, 10) in a root, holding a 400×300 content layer at (10, 10) of
    /// the scroll layer's space, which holds `item` at (200, 100), 20×20.
    func scene() -> (scroll: ScrollLayer, content: Layer, item: Layer) {
        let root = makeLayer(300, 200)
        root.anchorPoint = .zero
        let scroll = ScrollLayer()
        scroll.frame = Rect(x: 10, y: 10, width: 100, height: 50)
        root.addSublayer(scroll)
        let content = Layer()
        content.frame = Rect(x: 10, y: 10, width: 400, height: 300)
        scroll.addSublayer(content)
        let item = Layer()
        item.frame = Rect(x: 200, y: 100, width: 20, height: 20)
        content.addSublayer(item)
        return (scroll, content, item)
    }

    @Test func defaultsScrollBothWaysAndClip() {
        let scroll = ScrollLayer()
        #expect(scroll.scrollMode == .both)
        #expect(scroll.masksToBounds)
        #expect(Layer().masksToBounds == false)
        #expect(ScrollLayer.defaultValue(forKey: "scrollMode") as? ScrollMode == .both)
        #expect(ScrollLayer.defaultValue(forKey: "masksToBounds") as? Bool == true)
        scroll.setValue(ScrollMode.vertically, forKey: "scrollMode")
        #expect(scroll.scrollMode == .vertically)
        #expect(scroll.value(forKey: "scrollMode") as? ScrollMode == .vertically)
        #expect(ScrollLayer(layer: scroll).scrollMode == .vertically)
    }

    @Test func scrollingToAPointMovesTheBoundsOriginOnly() {
        let (scroll, _, _) = scene()
        scroll.scroll(to: Point(x: 30, y: 45))
        #expect(scroll.bounds == Rect(x: 30, y: 45, width: 100, height: 50))
        #expect(scroll.frame == Rect(x: 10, y: 10, width: 100, height: 50))
        #expect(scroll.position == Point(x: 60, y: 35))
    }

    @Test func theScrollModeLimitsTheAxes() {
        let (scroll, _, _) = scene()
        scroll.scrollMode = .horizontally
        scroll.scroll(to: Point(x: 30, y: 45))
        #expect(scroll.bounds.origin == Point(x: 30, y: 0))
        scroll.scrollMode = .vertically
        scroll.scroll(to: Point(x: 70, y: 45))
        #expect(scroll.bounds.origin == Point(x: 30, y: 45))
        scroll.scrollMode = .none
        scroll.scroll(to: Point(x: 0, y: 0))
        #expect(scroll.bounds.origin == Point(x: 30, y: 45))
    }

    @Test func scrollingToARectMovesAsLittleAsShowsIt() {
        let (scroll, _, _) = scene()
        // Past the right edge: its right edge comes to the bounds' right edge; y already shows.
        scroll.scroll(to: Rect(x: 150, y: 10, width: 20, height: 20))
        #expect(scroll.bounds.origin == Point(x: 70, y: 0))
        // Already visible: nothing moves.
        scroll.scroll(to: Rect(x: 100, y: 20, width: 10, height: 10))
        #expect(scroll.bounds.origin == Point(x: 70, y: 0))
        // Before the left edge and below the bottom.
        scroll.scroll(to: Rect(x: -30, y: 60, width: 10, height: 10))
        #expect(scroll.bounds.origin == Point(x: -30, y: 20))
        // Wider and taller than the bounds: the minimum edges show.
        scroll.scroll(to: Rect(x: 10, y: 200, width: 300, height: 80))
        #expect(scroll.bounds.origin == Point(x: 10, y: 200))
        // A negative size is standardised first.
        scroll.scroll(to: Rect(x: 400, y: 300, width: -20, height: -20))
        #expect(scroll.bounds.origin == Point(x: 300, y: 250))
    }

    @Test func scrollRectToVisibleAsksTheClosestScrollLayerInItsSpace() {
        let (scroll, content, item) = scene()
        item.scrollRectToVisible(Rect(x: 0, y: 0, width: 20, height: 20))
        // The item is at (210, 110)…(230, 130) of the scroll layer's space.
        #expect(scroll.bounds == Rect(x: 130, y: 80, width: 100, height: 50))
        content.scrollRectToVisible(Rect(x: 0, y: 0, width: 5, height: 5))
        #expect(scroll.bounds.origin == Point(x: 10, y: 10))
        // scrollPoint: the point comes to the bounds origin.
        item.scroll(Point(x: 5, y: 5))
        #expect(scroll.bounds.origin == Point(x: 215, y: 115))
    }

    @Test func theInnerScrollLayerIsTheOneAsked() {
        let (outer, content, _) = scene()
        let inner = ScrollLayer()
        inner.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        content.addSublayer(inner)
        let deep = Layer()
        deep.frame = Rect(x: 100, y: 100, width: 10, height: 10)
        inner.addSublayer(deep)
        deep.scrollRectToVisible(deep.bounds)
        #expect(inner.bounds.origin == Point(x: 60, y: 60))
        #expect(outer.bounds.origin == .zero)
    }

    @Test func visibleRectIsTheBoundsPartInsideTheScrollLayersBounds() {
        let (scroll, content, item) = scene()
        #expect(item.visibleRect == .null)
        #expect(content.visibleRect == Rect(x: -10, y: -10, width: 100, height: 50).intersection(content.bounds))
        #expect(content.visibleRect == Rect(x: 0, y: 0, width: 90, height: 40))
        scroll.scroll(to: Point(x: 130, y: 80))
        #expect(item.visibleRect == Rect(x: 0, y: 0, width: 20, height: 20))
        #expect(content.visibleRect == Rect(x: 120, y: 70, width: 100, height: 50))
        // Partly visible: the item spans (210, 110)…(230, 130); the bounds reach x 225 and y 125.
        scroll.scroll(to: Point(x: 125, y: 75))
        #expect(item.visibleRect == Rect(x: 0, y: 0, width: 15, height: 15))
    }

    @Test func withoutAScrollLayerTheWholeBoundsAreVisibleAndNothingScrolls() {
        let root = makeLayer(100, 100)
        let child = makeLayer(40, 40, at: Point(x: 20, y: 20))
        child.bounds.origin = Point(x: 5, y: 5)
        root.addSublayer(child)
        #expect(child.visibleRect == Rect(x: 5, y: 5, width: 40, height: 40))
        child.scrollRectToVisible(Rect(x: 500, y: 500, width: 10, height: 10))
        child.scroll(Point(x: 500, y: 500))
        #expect(root.bounds.origin == .zero)
        #expect(child.bounds.origin == Point(x: 5, y: 5))
        // A scroll layer's own visibleRect looks above it, not at itself.
        let scroll = ScrollLayer()
        scroll.bounds = Rect(x: 10, y: 0, width: 30, height: 30)
        #expect(scroll.visibleRect == scroll.bounds)
    }

    @Test func aScrollAnimatesTheBoundsImplicitly() {
        let root = makeLayer(100, 100)
        let context = RenderContext(rootLayer: root)
        let scroll = ScrollLayer()
        scroll.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        root.addSublayer(scroll)
        Transaction.flush()
        scroll.scroll(to: Point(x: 20, y: 0))
        #expect(scroll.animation(forKey: "bounds") != nil)
        Transaction.flush()
        withExtendedLifetime(context) {}
    }
}
