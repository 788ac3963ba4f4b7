import ProtocolFuzzer
import Testing

@Suite struct FuzzRandomTests {
    /// The values of xoshiro256** seeded by SplitMix64 from seed ^ iteration × 0x9E3779B97F4A7C15,
    /// computed independently from the algorithms' reference definitions.
    @Test func theStreamIsXoshiro256StarStarSeededBySplitMix64() {
        var first = FuzzRandom(seed: 1, iteration: 0)
        #expect([first.next(), first.next(), first.next()] == [0xb3f2_af6d_0fc7_10c5, 0x853b_5596_4736_4cea, 0x92f8_9756_082a_4514])
        var other = FuzzRandom(seed: 23, iteration: 5)
        #expect([other.next(), other.next(), other.next()] == [0x2814_1635_bfa3_880e, 0x9b53_09e1_990a_3ebe, 0xd314_e723_ce44_efdf])
    }

    @Test func boundedNumbersStayInTheirRange() {
        var random = FuzzRandom(seed: 7, iteration: 7)
        let drawn = (0..<1000).map { _ in random.inRange(-3...3) }
        #expect(Set(drawn) == Set(-3...3))
    }

    @Test func aWeightOfZeroIsNeverChosen() {
        var random = FuzzRandom(seed: 7, iteration: 8)
        let chosen = Set((0..<1000).map { _ in random.weightedIndex([1, 0, 3]) })
        #expect(chosen == [0, 2])
    }
}
