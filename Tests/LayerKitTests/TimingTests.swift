import Testing
@testable import LayerKit

@MainActor
@Suite struct TimingTests {
    @Test func speedTwoUnderSpeedTwoRunsFourTimesAsFast() {
        // Seed ch. 4: speeds multiply down the tree.
        let parent = Layer(), child = Layer()
        parent.addSublayer(child)
        parent.speed = 2
        child.speed = 2
        #expect(child.convertTime(10, from: nil) == 40)
        #expect(child.convertTime(13, from: nil) - child.convertTime(12, from: nil) == 4)
        #expect(child.convertTime(40, to: nil) == 10)
        #expect(child.convertTime(8, from: parent) == 16)
    }

    @Test func localTimeFollowsBeginTimeSpeedAndOffset() {
        let l = Layer()
        l.beginTime = 5
        l.speed = 3
        l.timeOffset = 1
        #expect(l.convertTime(7, from: nil) == 7)  // (7 − 5)·3 + 1
        #expect(l.convertTime(7, to: nil) == 7)
        #expect(l.convertTime(10, to: nil) == 8)
    }

    @Test func convertTimeBetweenLayersOfOneTree() {
        let root = Layer(), a = Layer(), b = Layer()
        root.sublayers = [a, b]
        root.speed = 2
        a.beginTime = 1
        b.speed = 0.5
        b.timeOffset = 3
        // media 10 → root 20 → a 19, b 13.
        #expect(a.convertTime(10, from: nil) == 19)
        #expect(b.convertTime(10, from: nil) == 13)
        #expect(b.convertTime(19, from: a) == 13)
        #expect(a.convertTime(13, from: b) == 19)
    }

    @Test func pauseAndResumeAsInQA1673() {
        let l = Layer()
        let pausedAt = 100.0
        let p = l.convertTime(pausedAt, from: nil)
        l.speed = 0
        l.timeOffset = p
        #expect(l.convertTime(150, from: nil) == 100)
        let resumeAt = 160.0
        let paused = l.timeOffset
        l.speed = 1
        l.timeOffset = 0
        l.beginTime = 0
        l.beginTime = l.convertTime(resumeAt, from: nil) - paused
        #expect(l.convertTime(resumeAt, from: nil) == 100)
        #expect(l.convertTime(resumeAt + 2.5, from: nil) == 102.5)
    }

    @Test func mediaTimeIsMonotonic() {
        let a = currentMediaTime()
        let b = currentMediaTime()
        #expect(b >= a && a > 0)
    }
}
