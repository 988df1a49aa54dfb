import Testing
import VideoCore

/// The test pattern moves visibly and carries its frame number; rendering reuses the frame.
@Suite struct TestPatternTests {
    @Test func consecutiveFramesDifferAndCarryTheirNumber() throws {
        var pattern = TestPattern(width: 640, height: 360)
        let first = pattern.next(), second = pattern.next()
        #expect(TestPattern.frameNumber(in: first) == 0 && TestPattern.frameNumber(in: second) == 1)
        #expect(first.timestamp == 0 && second.timestamp == 3000)
        #expect(TestPattern.movingBarPosition(in: first) == 0)
        #expect(TestPattern.movingBarPosition(in: second) == TestPattern.barStep)
        let changed = zip(first.y, second.y).filter { $0 != $1 }.count
        #expect(changed > first.y.count / 50, "more than 2 % of the pixels change: \(changed)")
        // The band below the bars is black except for the bar.
        let row = pattern.bandTop + 10
        #expect(first.y[row * 640 + 100] == 16 && first.y[row * 640 + 5] == 235)
    }

    @Test func theBarWrapsAndTheSequenceIsDeterministic() throws {
        var a = TestPattern(width: 320, height: 240), b = TestPattern(width: 320, height: 240)
        var positions: [Int?] = []
        for _ in 0..<40 {
            let frame = a.next()
            #expect(frame == b.next(), "same frames from the same start")
            positions.append(TestPattern.movingBarPosition(in: frame))
        }
        let steps = (320 - TestPattern.barWidth) / TestPattern.barStep
        #expect(positions[steps] == 0, "back at the left after \(steps) frames")
        #expect(positions[steps - 1] == (steps - 1) * TestPattern.barStep)
    }

    @Test func producingReusesTheFrame() throws {
        var pattern = TestPattern(width: 320, height: 240)
        var frame = I420Frame(width: 320, height: 240)
        let base = frame.y.withUnsafeBufferPointer { $0.baseAddress }
        for _ in 0..<3 { #expect(try pattern.produce(into: &frame)) }
        #expect(frame.y.withUnsafeBufferPointer { $0.baseAddress } == base)
        #expect(TestPattern.frameNumber(in: frame) == 2)
        try pattern.rewind()
        #expect(try pattern.produce(into: &frame) && TestPattern.frameNumber(in: frame) == 0)
    }

    @Test func grainChangesEveryFrameAndKeepsTheCodeAndBarReadable() throws {
        var grainy = TestPattern(width: 320, height: 240, grain: 12), again = TestPattern(width: 320, height: 240, grain: 12)
        var plain = TestPattern(width: 320, height: 240)
        for index in 0..<3 {
            let frame = grainy.next(), clean = plain.next()
            #expect(frame == again.next(), "the same grain from the same start")
            #expect(TestPattern.frameNumber(in: frame) == UInt32(index))
            #expect(TestPattern.movingBarPosition(in: frame) == TestPattern.movingBarPosition(in: clean))
            let moved = zip(frame.y, clean.y).filter { $0 != $1 }.map { abs(Int($0) - Int($1)) }
            #expect(moved.count > frame.y.count / 2 && moved.allSatisfy { $0 <= 12 }, "\(moved.count) pixels moved")
        }
        var a = TestPattern(width: 320, height: 240, grain: 12)
        let first = a.next(), second = a.next()
        // Rows 20…40 hold only bars, which slide 4 pixels a frame: outside their edges, only grain differs.
        #expect(zip(first.y[(20 * 320)..<(40 * 320)], second.y[(20 * 320)..<(40 * 320)]).filter { $0 != $1 }.count > 20 * 320 / 2)
    }
}
