import Testing
@testable import NetworkConditioner

@Suite struct SeededGeneratorTests {
    @Test func sameSeedSameSequence() {
        var a = SeededGenerator(seed: 42), b = SeededGenerator(seed: 42), c = SeededGenerator(seed: 43)
        let sa = (0..<8).map { _ in a.next() }, sb = (0..<8).map { _ in b.next() }, sc = (0..<8).map { _ in c.next() }
        #expect(sa == sb)
        #expect(sa != sc)
    }

    @Test func unitIsInRangeAndRoughlyUniform() {
        var g = SeededGenerator(seed: 7)
        var sum = 0.0
        for _ in 0..<100_000 {
            let u = g.unit()
            #expect(u >= 0 && u < 1)
            sum += u
        }
        #expect(abs(sum / 100_000 - 0.5) < 0.01)
    }
}
