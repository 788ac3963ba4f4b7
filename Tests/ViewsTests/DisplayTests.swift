import Testing
import LayerKit
@testable import Views

/// A view that draws and records each drawing as "width×height@pixelWidth dirty".
final class DrawingView: View {
    var draws: [String] = []

    override func draw(_ dirtyRect: Rect, in context: GraphicsContext) {
        draws.append("\(bounds.size)@\(context.width) \(dirtyRect)")
        context.setFillColor(Color(red: 1, green: 0, blue: 0, alpha: 1))
    }
}

@MainActor
@Suite struct RedrawPolicyTests {
    /// A drawing view of 100 × 50 under a root of scale 2, displayed once.
    func displayedView(_ policy: View.LayerContentsRedrawPolicy) -> DrawingView {
        let (root, _) = makeRoot(scale: 2)
        let view = DrawingView(frame: Rect(x: 0, y: 0, width: 100, height: 50))
        view.layerContentsRedrawPolicy = policy
        root.addSubview(view)
        Transaction.flush()
        return view
    }

    @Test func theDefaultPolicyIsDuringViewResizeAsTheSeedSays() {
        #expect(View().layerContentsRedrawPolicy == .duringViewResize)
    }

    @Test func duringViewResizeRedrawsAtTheNextCommitAtTheFinalSize() {
        let view = displayedView(.duringViewResize)
        #expect(view.draws == ["100×50@200 (0, 0, 100, 50)"])
        #expect(view.layer.contents?.width == 200 && view.layer.contents?.height == 100)
        view.frame = Rect(x: 0, y: 0, width: 150, height: 50)
        view.frame = Rect(x: 0, y: 0, width: 200, height: 50)
        #expect(view.draws.count == 1 && view.needsDisplay)
        Transaction.flush()
        #expect(view.draws == ["100×50@200 (0, 0, 100, 50)", "200×50@400 (0, 0, 200, 50)"])
        view.frame = Rect(x: 30, y: 0, width: 200, height: 50)  // a move is not a resize
        Transaction.flush()
        #expect(view.draws.count == 2)
    }

    @Test func beforeViewResizeDrawsAtTheFinalSizeAtOnceBeforeTheCommit() {
        let view = displayedView(.beforeViewResize)
        view.frame = Rect(x: 0, y: 0, width: 200, height: 50)
        #expect(view.draws.last == "200×50@400 (0, 0, 200, 50)" && view.draws.count == 2)
        #expect(view.layer.contents?.width == 400)
        Transaction.flush()
        #expect(view.draws.count == 2)
    }

    @Test func onSetNeedsDisplayStretchesOnResizeAndRedrawsOnlyWhenAsked() {
        let view = displayedView(.onSetNeedsDisplay)
        let drawn = view.layer.contents
        view.frame = Rect(x: 0, y: 0, width: 200, height: 80)
        Transaction.flush()
        #expect(view.draws.count == 1 && view.layer.contents === drawn)
        #expect(view.layer.contentsGravity == .resize)  // the old contents stretch to the new bounds
        view.setNeedsDisplay(Rect(x: 10, y: 10, width: 20, height: 20))
        view.setNeedsDisplay(Rect(x: 50, y: 0, width: 10, height: 10))
        Transaction.flush()
        #expect(view.draws.last == "200×80@400 (10, 0, 50, 30)" && view.draws.count == 2)
    }

    @Test func neverDrawsOnlyOnceEvenWhenAsked() {
        let view = displayedView(.never)
        view.frame = Rect(x: 0, y: 0, width: 200, height: 80)
        view.setNeedsDisplay()
        Transaction.flush()
        #expect(view.draws == ["100×50@200 (0, 0, 100, 50)"])
        #expect(!view.needsDisplay)
    }

    @Test func aViewThatWantsUpdateLayerSetsItsLayerInsteadOfDrawing() {
        final class Swatch: View {
            var updates = 0
            override var wantsUpdateLayer: Bool { true }
            override func updateLayer() {
                updates += 1
                layer.backgroundColor = Color(red: 0, green: 0, blue: 1, alpha: 1)
            }
            override func draw(_ dirtyRect: Rect, in context: GraphicsContext) {
                Issue.record("draw(_:in:) runs only when wantsUpdateLayer is false")
            }
        }
        let swatch = Swatch(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        Transaction.flush()
        #expect(swatch.updates == 1 && swatch.layer.backgroundColor == Color(red: 0, green: 0, blue: 1, alpha: 1))
        #expect(swatch.layer.contents == nil)
        swatch.frame = Rect(x: 0, y: 0, width: 20, height: 10)
        Transaction.flush()
        #expect(swatch.updates == 2)
    }

    @Test func aViewThatDoesNotDrawKeepsNoBackingStore() {
        let view = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        Transaction.flush()
        #expect(view.layer.contents == nil && view.layer.delegate === view)
    }
}

@MainActor
@Suite struct LayerBackingAndHostingTests {
    @Test func makeBackingLayerPicksTheLayerClassAndTheViewPlacesIt() {
        final class TileLayer: Layer {}
        final class TiledView: View {
            override func makeBackingLayer() -> Layer { TileLayer() }
        }
        let (root, _) = makeRoot()
        let view = TiledView(frame: Rect(x: 10, y: 20, width: 30, height: 40))
        root.addSubview(view)
        #expect(view.layer is TileLayer && view.layer.superlayer === root.layer)
        #expect(view.layer.position == Point(x: 25, y: 40) && view.layer.bounds == Rect(x: 0, y: 0, width: 30, height: 40))
        #expect(!view.isLayerHosting)
        view.removeFromSuperview()
        #expect(view.layer.superlayer == nil && root.subviews.isEmpty)
    }

    @Test func aLayerHostingViewLeavesContentsScaleAndDrawingToTheOwner() {
        let (root, _) = makeRoot(scale: 2)
        let hosted = Layer()
        hosted.frame = Rect(x: 0, y: 0, width: 64, height: 64)
        hosted.contentsScale = 1.5
        let view = View(hostingLayer: hosted)
        root.addSubview(view)
        view.setNeedsDisplay()
        Transaction.flush()
        #expect(view.isLayerHosting && hosted.delegate == nil && hosted.superlayer === root.layer)
        #expect(hosted.contentsScale == 1.5 && hosted.contents == nil && !view.needsDisplay)
        view.frame = Rect(x: 100, y: 100, width: 32, height: 32)  // geometry is still the view's
        #expect(hosted.frame == Rect(x: 100, y: 100, width: 32, height: 32))
        root.scaleFactor = 3
        #expect(hosted.contentsScale == 1.5)
    }

    @Test func assigningALayerMakesAViewLayerHostingInPlace() {
        let (root, _) = makeRoot()
        let first = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        let view = View(frame: Rect(x: 5, y: 5, width: 20, height: 20))
        let last = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        root.addSubview(first)
        root.addSubview(view)
        root.addSubview(last)
        let backing = view.layer
        let hosted = Layer()
        view.layer = hosted
        #expect(view.isLayerHosting && backing.delegate == nil)
        #expect(root.layer.sublayers.map(\.id) == [first.layer.id, hosted.id, last.layer.id])
        #expect(hosted.frame == Rect(x: 5, y: 5, width: 20, height: 20))
    }

    @Test func addingASubviewToALayerHostingViewStopsWithAMessage() async {
        await #expect(processExitsWith: .failure) {
            let host = View(hostingLayer: Layer())
            host.addSubview(View())
        }
    }

    @Test func viewChangesDoNotAnimateOutsideAnAnimateBlock() {
        let (root, _) = makeRoot()
        let view = View(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        root.addSubview(view)
        let context = RenderContext(rootLayer: root.layer)
        Transaction.flush()
        view.frame = Rect(x: 50, y: 0, width: 10, height: 10)
        Transaction.flush()
        #expect(view.layer.animationKeys().isEmpty)
        View.animate(duration: 0.5) {
            view.frame = Rect(x: 100, y: 0, width: 10, height: 10)
        }
        #expect(view.layer.animationKeys() == ["position"])
        context.invalidate()
    }
}

@MainActor
@Suite struct ContentsScaleTests {
    @Test func layerBackedViewsTakeTheirRootsScaleAndFollowItsChanges() {
        let (root, _) = makeRoot(scale: 2)
        let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let child = DrawingView(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        parent.addSubview(child)
        #expect(child.layer.contentsScale == 1)  // no root yet
        root.addSubview(parent)
        #expect(root.layer.contentsScale == 2 && parent.layer.contentsScale == 2 && child.layer.contentsScale == 2)
        Transaction.flush()
        root.scaleFactor = 1.5
        #expect(parent.layer.contentsScale == 1.5 && child.layer.contentsScale == 1.5)
        Transaction.flush()
        #expect(child.draws == ["10×10@20 (0, 0, 10, 10)", "10×10@15 (0, 0, 10, 10)"])
    }

    @Test func movingAViewUnderARootOfAnotherScaleChangesItsContentsScale() {
        let (hiDPI, _) = makeRoot(scale: 2)
        let (other, _) = makeRoot(scale: 3)
        let parent = View(frame: Rect(x: 0, y: 0, width: 100, height: 100))
        let child = DrawingView(frame: Rect(x: 0, y: 0, width: 10, height: 10))
        parent.addSubview(child)
        hiDPI.addSubview(parent)
        Transaction.flush()
        other.addSubview(parent)
        #expect(parent.layer.contentsScale == 3 && child.layer.contentsScale == 3)
        Transaction.flush()
        #expect(child.draws.last == "10×10@30 (0, 0, 10, 10)" && hiDPI.subviews.isEmpty)
        // Leaving every root keeps the last scale.
        parent.removeFromSuperview()
        #expect(child.layer.contentsScale == 3)
    }

    @Test func aLayerHostingViewThatOptsInInheritsTheScale() {
        final class SurfaceView: View {
            var asked: [Double] = []
            override func layer(_ layer: Layer, shouldInheritContentsScale scale: Double, from root: RootView) -> Bool {
                asked.append(scale)
                return scale <= 2
            }
        }
        let (root, _) = makeRoot(scale: 2)
        let surface = SurfaceView(hostingLayer: Layer())
        root.addSubview(surface)
        #expect(surface.asked == [2] && surface.layer.contentsScale == 2)
        root.scaleFactor = 3  // refused: the owner keeps its buffer scale
        #expect(surface.asked == [2, 3] && surface.layer.contentsScale == 2)
        root.scaleFactor = 1
        #expect(surface.asked == [2, 3, 1] && surface.layer.contentsScale == 1)
    }
}

/// Draws green on screen and red when printing.
final class PrintAwareView: View {
    var printingSeen: [Bool] = []

    override func draw(_ dirtyRect: Rect, in context: GraphicsContext) {
        printingSeen.append(isPrinting)
        context.setFillColor(isPrinting ? .red : .green)
        context.fill(bounds)
    }
}

@MainActor
@Suite struct PrintingTests {
    @Test func aViewDrawsAgainForPrintingAndKnowsIt() throws {
        let (root, _) = makeRoot(scale: 1)
        let holder = View(frame: Rect(x: 0, y: 0, width: 40, height: 20))
        let view = PrintAwareView(frame: Rect(x: 0, y: 0, width: 20, height: 20))
        holder.addSubview(view)
        root.addSubview(holder)
        Transaction.flush()
        #expect(view.printingSeen == [false])
        #expect(view.layer.contents?.pixel(x: 5, y: 5) == PremultipliedPixel(red: 0, green: 255, blue: 0, alpha: 255))
        let page = try GraphicsContext(width: 40, height: 20)
        holder.render(forPrintingIn: page)
        #expect(view.printingSeen == [false, true])
        #expect(!view.isPrinting && !holder.isPrinting)
        #expect(page.makeImage().pixel(x: 5, y: 5) == PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        // A view that set isPrinting itself keeps it.
        view.isPrinting = true
        holder.render(forPrintingIn: try GraphicsContext(width: 40, height: 20))
        #expect(view.isPrinting)
    }
}
