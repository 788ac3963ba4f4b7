import Foundation
import Testing
@testable import LayerKit

/// A committed root and child on a manual clock at media time 100.
@MainActor
struct AnimationScene {
    let clock = ManualMediaClock(startingAt: 100)
    let root = makeLayer(400, 400, at: Point(x: 200, y: 200), name: "root")
    let layer = makeLayer(100, 100, at: Point(x: 50, y: 50), name: "layer")
    let context: RenderContext

    init() {
        MediaTime.clock = clock
        root.addSublayer(layer)
        context = RenderContext(rootLayer: root)
        Transaction.flush()
    }

    /// The layer's presentation values at media time `t` from the latest snapshot.
    func shown(at t: Double) -> LayerProperties {
        context.renderTree!.presentationProperties(of: layer.id, atMediaTime: t)!
    }

    /// Adds `animation` in its own committed transaction.
    func run(_ animation: Animation, forKey key: String? = "test") {
        layer.add(animation, forKey: key)
        Transaction.flush()
    }
}

final class Events: AnimationDelegate {
    var log: [String] = []
    func animationDidStart(_ animation: Animation) { log.append("start") }
    func animationDidStop(_ animation: Animation, finished: Bool) { log.append(finished ? "finished" : "removed") }
}

@MainActor
@Suite struct BasicAnimationTests {
    func basic(_ keyPath: String, from: (any Sendable)? = nil, to: (any Sendable)? = nil, by: (any Sendable)? = nil) -> BasicAnimation {
        let a = BasicAnimation(keyPath: keyPath)
        (a.fromValue, a.toValue, a.byValue) = (from, to, by)
        a.duration = 1
        return a
    }

    @Test func theEightFromToByCombinations() {
        // Model position.x is 50 throughout; "shown" means the presentation value when added (50).
        let cases: [(String, (any Sendable)?, (any Sendable)?, (any Sendable)?, Double, Double)] = [
            ("from+to: from → to", 10.0, 30.0, nil, 10, 30),
            ("from+by: from → from+by", 10.0, nil, 5.0, 10, 15),
            ("by+to: to−by → to", nil, 30.0, 5.0, 25, 30),
            ("from: from → model", 10.0, nil, nil, 10, 50),
            ("to: shown → to", nil, 30.0, nil, 50, 30),
            ("by: shown → shown+by", nil, nil, 5.0, 50, 55),
            ("none: shown → model", nil, nil, nil, 50, 50),
            ("from+to+by: by is ignored", 10.0, 30.0, 99.0, 10, 30),
        ]
        for (name, from, to, by, start, end) in cases {
            let s = AnimationScene()
            s.run(basic("position.x", from: from, to: to, by: by))
            #expect(s.shown(at: 100).position.x == start, "\(name) at the start")
            #expect(s.shown(at: 100.5).position.x == (start + end) / 2, "\(name) halfway")
            #expect(isClose(s.shown(at: 100.999).position.x, start + (end - start) * 0.999), "\(name) near the end")
        }
    }

    @Test func integersAreAcceptedForNumericProperties() {
        let s = AnimationScene()
        s.run(basic("opacity", from: 0, to: 1))
        #expect(s.shown(at: 100.25).opacity == 0.25)
    }

    @Test func valuesOfTheWrongTypeLeaveTheLayerAlone() {
        let s = AnimationScene()
        s.run(basic("position", from: Color.red, to: Color.blue))
        #expect(s.layer.animationKeys() == ["test"])
        #expect(s.shown(at: 100.5).position == Point(x: 50, y: 50))
    }

    @Test func theTimingFunctionShapesProgress() {
        let s = AnimationScene()
        let a = basic("opacity", from: 0.0, to: 1.0)
        a.timingFunction = .easeIn
        s.run(a)
        #expect(s.shown(at: 100.5).opacity == MediaTimingFunction.easeIn.value(atTime: 0.5))
    }

    @Test func additiveAnimationsAddToThePresentationValue() {
        let s = AnimationScene()
        let shake = basic("position.x", from: 0.0, to: 10.0)
        shake.isAdditive = true
        s.run(shake)
        #expect(s.shown(at: 100.5).position.x == 55)  // 50 + 5
    }

    @Test func cumulativeRepeatsContinueFromTheLastCycle() {
        let s = AnimationScene()
        let a = basic("position.x", from: 0.0, to: 10.0)
        a.isCumulative = true
        a.repeatCount = 3
        s.run(a)
        #expect(s.shown(at: 102.5).position.x == 25)  // cycle 2 (index 2) adds 2·10 to 5
    }

    @Test func cumulativeArraysGrowEachCycle() {
        let s = AnimationScene()
        let a = basic("levels", from: [0.0, 1.0], to: [1.0, 3.0])
        a.isCumulative = true
        a.repeatCount = 4
        s.run(a)
        #expect(s.shown(at: 103.5).customValues["levels"] as? [Double] == [3.5, 8])  // [0.5, 2] + 3·[1, 2]
    }

    @Test func impossibleSpringSettingsAreClampedNotFatal() {
        let s = AnimationScene()
        let spring = SpringAnimation()
        spring.keyPath = "opacity"
        (spring.fromValue, spring.toValue, spring.duration) = (0.0, 1.0, 1)
        (spring.mass, spring.stiffness, spring.damping) = (0, -5, -1)
        s.run(spring)
        #expect(s.shown(at: 100.5).opacity.isFinite)
    }

    @Test func speedsMultiplyDownToTheAnimation() {
        // Seed ch. 4: an animation on a layer at speed 2 under a layer at speed 2 runs at 4×.
        let s = AnimationScene()
        s.root.speed = 2
        s.layer.speed = 2
        Transaction.flush()
        s.run(basic("opacity", from: 0.0, to: 1.0))  // duration 1 in the layer's time
        #expect(s.shown(at: 100.125).opacity == 0.5)
        #expect(s.shown(at: 100.25).opacity == 1)  // removed: the model value
        let tree = s.context.renderTree!
        #expect(tree.localTime(of: s.layer.id, atMediaTime: 100.125) == s.layer.convertTime(100.125, from: nil))
    }

    @Test func aDurationOfZeroTakesTheTransactionsDuration() {
        let s = AnimationScene()
        let a = basic("opacity", from: 0.0, to: 1.0)
        a.duration = 0
        Transaction.begin()
        Transaction.animationDuration = 2
        s.layer.add(a, forKey: "fade")
        Transaction.commit()
        #expect(s.shown(at: 101).opacity == 0.5)
    }

    @Test func anAnimationIsCopiedWhenAdded() {
        let s = AnimationScene()
        let a = basic("opacity", from: 0.0, to: 1.0)
        s.layer.add(a, forKey: "fade")
        a.toValue = 0.0
        Transaction.flush()
        #expect(s.shown(at: 100.5).opacity == 0.5)
        #expect(s.layer.animation(forKey: "fade") !== a)
    }

    @Test func oneAnimationPerKey() {
        let s = AnimationScene()
        s.layer.add(basic("opacity", from: 0.0, to: 1.0), forKey: "k")
        s.layer.add(basic("opacity", from: 1.0, to: 0.0), forKey: "k")
        s.layer.add(basic("zPosition", from: 1.0, to: 0.0), forKey: "z")
        Transaction.flush()
        #expect(s.layer.animationKeys() == ["k", "z"])
        #expect(s.shown(at: 100.25).opacity == 0.75)
    }

    @Test func subPathsAnimateComponentsOfTheirProperty() {
        let s = AnimationScene()
        s.run(basic("bounds.size.width", from: 100.0, to: 200.0), forKey: "w")
        s.run(basic("shadowOffset.height", from: 0.0, to: 8.0), forKey: "h")
        let shown = s.shown(at: 100.5)
        #expect(shown.bounds == Rect(x: 0, y: 0, width: 150, height: 100))
        #expect(shown.shadowOffset == Size(width: 0, height: 4))
    }

    @Test func transformRotationZAnimatesARotation() {
        let s = AnimationScene()
        s.run(basic("transform.rotation.z", from: 0.0, to: Double.pi / 2))
        #expect(isClose(s.shown(at: 100.5).transform, Transform3D(rotationAngle: .pi / 4, x: 0, y: 0, z: 1)))
    }

    @Test func transformScaleAndTranslationSubPaths() {
        let s = AnimationScene()
        s.run(basic("transform.scale", from: 1.0, to: 3.0), forKey: "s")
        s.run(basic("transform.translation.x", from: 0.0, to: 20.0), forKey: "t")
        let t = s.shown(at: 100.5).transform
        #expect(isClose(t, Transform3D(scaleX: 2, y: 2, z: 2).concatenating(Transform3D(translationX: 10, y: 0))))
    }

    @Test func aValueFunctionTurnsNumbersIntoTransforms() {
        let s = AnimationScene()
        let a = basic("transform", from: 0.0, to: Double.pi)
        a.valueFunction = .rotateZ
        s.run(a)
        #expect(isClose(s.shown(at: 100.5).transform, Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)))
    }

    @Test func wholeTransformsInterpolateAsRotations() {
        let s = AnimationScene()
        s.run(basic("transform", from: Transform3D.identity, to: Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)))
        #expect(isClose(s.shown(at: 100.5).transform, Transform3D(rotationAngle: .pi / 4, x: 0, y: 0, z: 1), 1e-9))
    }

    @Test func colorsInterpolateComponentWise() {
        let s = AnimationScene()
        s.run(basic("backgroundColor", from: Color.red, to: Color.blue))
        #expect(s.shown(at: 100.5).backgroundColor == Color(red: 0.5, green: 0, blue: 0.5))
    }

    @Test func contentsCrossFade() {
        let s = AnimationScene()
        let old = Image(width: 1, height: 1, fill: PremultipliedPixel(red: 255, green: 0, blue: 0, alpha: 255))
        let new = Image(width: 1, height: 1, fill: PremultipliedPixel(red: 0, green: 0, blue: 255, alpha: 255))
        s.run(basic("contents", from: old, to: new))
        let shown = s.shown(at: 100.25)
        #expect(shown.contents === new && shown.contentsCrossFade?.from === old && shown.contentsCrossFade?.progress == 0.25)
        #expect(s.shown(at: 99).contentsCrossFade == nil)
    }

    @Test func customPropertiesAnimateByTheirValuesType() {
        let s = AnimationScene()
        s.run(basic("needle", from: 0.0, to: 1.0))
        #expect(s.shown(at: 100.5).customValues["needle"] as? Double == 0.5)
    }

    @Test func springFollowsTheSpringsMotionInRealSeconds() {
        let s = AnimationScene()
        let spring = SpringAnimation()
        spring.keyPath = "position.y"
        spring.fromValue = 0.0
        spring.toValue = 100.0
        spring.damping = 5
        spring.duration = spring.settlingDuration
        s.run(spring)
        let motion = SpringMotion(mass: 1, stiffness: 100, damping: 5, initialVelocity: 0, allowsOverdamping: false)
        for t in [0.1, 0.3, 0.7, 1.5] {
            #expect(isClose(s.shown(at: 100 + t).position.y, 100 * motion.fraction(at: t), 1e-9))
        }
        #expect(s.shown(at: 100.3).position.y > 100)  // underdamped: it overshoots
    }
}

@MainActor
@Suite struct KeyframeAnimationTests {
    @Test func linearKeyframesWithKeyTimes() {
        let s = AnimationScene()
        let a = KeyframeAnimation(keyPath: "opacity")
        a.values = [0.0, 1.0, 0.5]
        a.keyTimes = [0, 0.25, 1]
        a.duration = 4
        s.run(a)
        #expect(s.shown(at: 100.5).opacity == 0.5)   // halfway through the first segment (0…1 s)
        #expect(s.shown(at: 102.5).opacity == 0.75)  // halfway through the second (1…4 s)
    }

    @Test func discreteKeyframesHoldEachValue() {
        let s = AnimationScene()
        let a = KeyframeAnimation(keyPath: "zPosition")
        a.values = [1.0, 2.0, 3.0]
        a.keyTimes = [0, 0.5, 0.75, 1]
        a.calculationMode = .discrete
        a.duration = 4
        s.run(a)
        #expect(s.shown(at: 101.9).zPosition == 1 && s.shown(at: 102.1).zPosition == 2 && s.shown(at: 103.5).zPosition == 3)
    }

    @Test func pacedKeyframesMoveAtConstantSpeed() {
        let s = AnimationScene()
        let a = KeyframeAnimation(keyPath: "position")
        a.values = [Point(x: 0, y: 0), Point(x: 30, y: 0), Point(x: 30, y: 10)]
        a.calculationMode = .paced
        a.duration = 1
        s.run(a)
        #expect(isClose(s.shown(at: 100.5).position, Point(x: 20, y: 0)))
    }

    @Test func aPathMovesThePositionAndRotationModeTurnsTheLayer() {
        let s = AnimationScene()
        var path = Path()
        path.move(to: Point(x: 0, y: 0))
        path.addLine(to: Point(x: 0, y: 100))
        let a = KeyframeAnimation(keyPath: "position")
        a.path = path
        a.rotationMode = .auto
        a.duration = 1
        s.run(a)
        let shown = s.shown(at: 100.5)
        #expect(isClose(shown.position, Point(x: 0, y: 50)))
        #expect(isClose(shown.transform, Transform3D(rotationAngle: .pi / 2, x: 0, y: 0, z: 1)))  // heading +y
    }
}

@MainActor
@Suite struct GroupAndTransitionTests {
    @Test func groupMembersRunInTheGroupsTimeAndStopWithIt() {
        let s = AnimationScene()
        let fade = BasicAnimation(keyPath: "opacity")
        (fade.fromValue, fade.toValue, fade.duration) = (0.0, 1.0, 2)
        let move = BasicAnimation(keyPath: "position.x")
        (move.fromValue, move.toValue, move.duration, move.beginTime) = (0.0, 100.0, 1, 0.5)
        let group = AnimationGroup()
        group.animations = [fade, move]
        group.duration = 1
        s.run(group)
        let early = s.shown(at: 100.25)
        #expect(early.opacity == 0.125 && early.position.x == 50)  // move has not begun in the group yet
        let late = s.shown(at: 100.75)
        #expect(late.opacity == 0.375 && late.position.x == 25)
        #expect(s.shown(at: 101.5).opacity == 1)  // the group ended: model values
    }

    @Test func aTransitionPublishesProgressAndThePreviousState() {
        let s = AnimationScene()
        let before = s.context.renderTree!
        let t = Transition()
        t.type = .push
        t.subtype = .fromRight
        t.duration = 1
        s.layer.add(t, forKey: "transition")
        s.layer.backgroundColor = .green
        Transaction.flush()
        let state = s.shown(at: 100.25).transition
        #expect(state?.type == .push && state?.subtype == .fromRight && state?.progress == 0.25)
        #expect(state?.previousTree?.generation == before.generation)
        #expect(state?.previousTree?[s.layer.id]?.properties.backgroundColor == nil)
    }

    /// What a frame shows of a 100×50 layer at progress 0.25 (the header's descriptions of the
    /// four types, y-down): back to front, each state's offset in the layer's bounds space.
    @Test func transitionPartsPlaceEachStateByTypeAndSubtype() {
        func parts(_ type: TransitionType, _ subtype: TransitionSubtype) -> [TransitionPart] {
            TransitionState(type: type, subtype: subtype, progress: 0.25, previousTree: nil, layerID: LayerID(rawValue: 1))
                .parts(in: Rect(x: 0, y: 0, width: 100, height: 50))
        }
        func part(_ state: TransitionPart.State, _ dx: Double, _ dy: Double, _ weight: Double = 1) -> TransitionPart {
            TransitionPart(state: state, offset: Size(width: dx, height: dy), weight: weight)
        }
        // fade: both in place, weighted 0.75 and 0.25.
        #expect(parts(.fade, .fromLeft) == [part(.previous, 0, 0, 0.75), part(.current, 0, 0, 0.25)])
        // moveIn: the new state enters from the named side over the old one, a quarter of the way.
        #expect(parts(.moveIn, .fromLeft) == [part(.previous, 0, 0), part(.current, -75, 0)])
        #expect(parts(.moveIn, .fromRight) == [part(.previous, 0, 0), part(.current, 75, 0)])
        #expect(parts(.moveIn, .fromTop) == [part(.previous, 0, 0), part(.current, 0, -37.5)])
        #expect(parts(.moveIn, .fromBottom) == [part(.previous, 0, 0), part(.current, 0, 37.5)])
        // push: the old state leaves on the other side as the new one enters.
        #expect(parts(.push, .fromLeft) == [part(.previous, 25, 0), part(.current, -75, 0)])
        #expect(parts(.push, .fromBottom) == [part(.previous, 0, -12.5), part(.current, 0, 37.5)])
        // reveal: the old state slides away on top, uncovering the new one in place.
        #expect(parts(.reveal, .fromRight) == [part(.current, 0, 0), part(.previous, -25, 0)])
        #expect(parts(.reveal, .fromTop) == [part(.current, 0, 0), part(.previous, 0, 12.5)])
    }

    /// startProgress and endProgress cut the part of the transition shown: 0.5…1 over one second
    /// is at 0.75 halfway.
    @Test func startAndEndProgressMapTheTransitionsTime() {
        let s = AnimationScene()
        let t = Transition()
        (t.type, t.duration, t.startProgress, t.endProgress) = (.push, 1, 0.5, 1)
        s.run(t, forKey: "transition")
        #expect(s.shown(at: 100).transition?.progress == 0.5)
        #expect(s.shown(at: 100.5).transition?.progress == 0.75)
        #expect(s.shown(at: 100.25).transition?.progress == 0.625)
    }
}

@MainActor
@Suite struct ImplicitAnimationTests {
    @Test func changingACommittedLayerAnimatesFromWhatIsShownOverAQuarterSecond() {
        let s = AnimationScene()
        s.layer.opacity = 0
        Transaction.flush()
        #expect(s.layer.animationKeys() == ["opacity"])
        let eased = MediaTimingFunction.default.value(atTime: 0.5)
        #expect(isClose(s.shown(at: 100.125).opacity, 1 - eased))
        #expect(s.shown(at: 100.25).opacity == 0)
        #expect(s.layer.opacity == 0)  // the model holds the target
    }

    @Test func disableActionsTurnsImplicitAnimationsOff() {
        let s = AnimationScene()
        Transaction.begin()
        Transaction.disableActions = true
        s.layer.opacity = 0
        Transaction.commit()
        #expect(s.layer.animationKeys().isEmpty)
    }

    @Test func uncommittedLayersDoNotAnimate() {
        let loose = Layer()
        loose.opacity = 0.5
        Transaction.flush()
        #expect(loose.animationKeys().isEmpty && loose.presentation() == nil)
    }

    /// ca-semantics A5: shadowPath, like every path property, animates only explicitly.
    @Test func shadowPathChangesAtOnceButAnimatesExplicitly() {
        let s = AnimationScene()
        let small = Path(rect: Rect(x: 0, y: 0, width: 100, height: 100))
        let large = Path(rect: Rect(x: 0, y: 0, width: 200, height: 100))
        #expect(s.layer.action(forKey: "shadowPath") == nil)
        s.layer.shadowPath = small
        Transaction.flush()
        #expect(s.layer.animationKeys().isEmpty)
        #expect(s.shown(at: 100).shadowPath == small)
        let grow = BasicAnimation(keyPath: "shadowPath")
        (grow.fromValue, grow.toValue, grow.duration) = (small, large, 1)
        s.run(grow)
        #expect(s.shown(at: 100.5).shadowPath == Path(rect: Rect(x: 0, y: 0, width: 150, height: 100)))
    }

    /// The action is all LayerKit decides; RenderTransitionTests.hidingALayerFadesItOut checks the
    /// fade's pixels.
    @Test func theBuiltInActionForHiddenIsAFadeTransition() {
        let s = AnimationScene()
        s.layer.isHidden = true
        Transaction.flush()
        #expect((s.layer.animation(forKey: "hidden") as? Transition)?.type == .fade)
        #expect(s.shown(at: 100.125).transition?.type == .fade)
    }

    @Test func theActionSearchFollowsCoreAnimationsOrder() {
        final class Picker: LayerActionDelegate {
            var answer: (any Action)?
            func action(for layer: Layer, forKey event: String) -> (any Action)? { answer }
        }
        final class Styled: Layer {
            override class func defaultAction(forKey event: String) -> (any Action)? {
                event == "zPosition" ? NullAction() : nil
            }
        }
        let layer = Styled()
        let picker = Picker()
        layer.delegate = picker
        let fromDelegate = BasicAnimation(keyPath: "a"), fromActions = BasicAnimation(keyPath: "b")
        let fromStyle = BasicAnimation(keyPath: "c"), fromNestedStyle = BasicAnimation(keyPath: "d")
        layer.actions = ["opacity": fromActions]
        layer.style = ["actions": ["opacity": fromStyle, "position": fromStyle], "style": ["actions": ["bounds": fromNestedStyle]]]
        picker.answer = fromDelegate
        #expect(layer.action(forKey: "opacity") as? BasicAnimation === fromDelegate)
        picker.answer = NullAction()
        #expect(layer.action(forKey: "opacity") == nil)  // a null answer ends the search
        picker.answer = nil
        #expect(layer.action(forKey: "opacity") as? BasicAnimation === fromActions)
        #expect(layer.action(forKey: "position") as? BasicAnimation === fromStyle)
        #expect(layer.action(forKey: "bounds") as? BasicAnimation === fromNestedStyle)
        #expect(layer.action(forKey: "zPosition") == nil)  // the class's null answer
        #expect(layer.action(forKey: "cornerRadius") is BasicAnimation)  // the built-in animation
        #expect(layer.action(forKey: "needle") == nil)  // custom keys have no built-in action
    }

    @Test func customPropertiesCanCarryActions() {
        let s = AnimationScene()
        let needle = BasicAnimation(keyPath: "needle")
        needle.duration = 1
        s.layer.actions = ["needle": needle]
        s.layer.setValue(0.0, forKey: "needle")
        Transaction.flush()
        s.clock.advance(by: 0.5)
        s.layer.setValue(1.0, forKey: "needle")
        Transaction.flush()
        #expect(s.layer.animationKeys().contains("needle"))
        #expect(s.shown(at: 101).customValues["needle"] as? Double == 0.5)
    }
}

@MainActor
@Suite struct PresentationAndCompletionTests {
    @Test func presentationShowsTheInFlightValuesAndLinksBackToTheModel() throws {
        let s = AnimationScene()
        s.layer.position = Point(x: 150, y: 50)
        Transaction.flush()
        s.clock.advance(by: 0.25)
        let p = try #require(s.layer.presentation())
        #expect(p.position == Point(x: 150, y: 50) && p.modelLayer === s.layer && s.layer.modelLayer === s.layer)
        s.clock.set(to: 100.125)
        let mid = try #require(s.layer.presentation())
        #expect(mid !== p && mid.position.x > 50 && mid.position.x < 150)
        #expect(mid.superlayer?.modelLayer === s.root && mid.superlayer?.sublayers.first === mid)
        #expect(mid.presentation() === mid)
        // Hit testing the presentation tree finds the layer where it is on screen, not where the model says.
        #expect(s.root.presentation()?.hitTest(Point(x: mid.position.x + 45, y: 50))?.modelLayer === s.layer)
        #expect(s.root.presentation()?.hitTest(Point(x: 160, y: 50))?.modelLayer === s.layer)
    }

    @Test func delegatesHearStartAndFinishAfterTheFrameThatEndedIt() {
        let s = AnimationScene()
        let events = Events()
        let a = BasicAnimation(keyPath: "opacity")
        (a.fromValue, a.toValue, a.duration, a.delegate) = (0.0, 1.0, 1, events)
        s.run(a)
        s.clock.advance(by: 0.5)
        Transaction.flush()
        #expect(events.log == ["start"])
        s.clock.advance(by: 0.5)
        Transaction.flush()
        #expect(events.log == ["start", "finished"])
        #expect(s.layer.animationKeys().isEmpty)  // removed on completion
    }

    @Test func forwardsFillPersistsOnlyWhenNotRemovedOnCompletion() {
        let s = AnimationScene()
        let a = BasicAnimation(keyPath: "opacity")
        (a.fromValue, a.toValue, a.duration, a.fillMode, a.isRemovedOnCompletion) = (1.0, 0.2, 1, .forwards, false)
        s.run(a)
        s.clock.advance(by: 2)
        Transaction.flush()
        #expect(s.layer.animationKeys() == ["test"])
        #expect(s.shown(at: 102).opacity == 0.2)
    }

    @Test func removingAnAnimationReportsItUnfinished() {
        let s = AnimationScene()
        let events = Events()
        let a = BasicAnimation(keyPath: "opacity")
        (a.fromValue, a.toValue, a.duration, a.delegate) = (0.0, 1.0, 1, events)
        s.run(a)
        s.layer.removeAnimation(forKey: "test")
        Transaction.flush()
        #expect(events.log == ["removed"])
        #expect(s.shown(at: 100.5).opacity == 1)
    }

    @Test func theCompletionBlockWaitsForTheTransactionsAnimations() {
        let s = AnimationScene()
        var done = 0
        Transaction.begin()
        Transaction.completionBlock = { done += 1 }
        Transaction.animationDuration = 1
        s.layer.opacity = 0.5
        Transaction.commit()
        #expect(done == 0)
        s.clock.advance(by: 0.6)
        Transaction.flush()
        #expect(done == 0)
        s.clock.advance(by: 0.6)
        Transaction.flush()
        #expect(done == 1)
    }
}
