import Testing
import VideoCore

/// The reorder buffer puts packets back in sequence order, waits for a retransmission of a lost
/// one up to its limit, drops late and repeated ones, wraps at 65535, and starts over on a jump.
@Suite struct SequenceReorderBufferTests {
    typealias Buffer = SequenceReorderBuffer<UInt16>

    /// Everything that comes out at `now`, as sequence numbers and `-count` for a gap.
    static func drain(_ buffer: inout Buffer, now: Double) -> [Int] {
        var out: [Int] = []
        while let next = buffer.next(now: now) {
            switch next {
            case .element(let sequence): out.append(Int(sequence))
            case .gap(let count): out.append(-count)
            }
        }
        return out
    }

    @Test func inOrderPacketsPassStraightThrough() {
        var buffer = Buffer(maxWait: 0.3)
        var out: [Int] = []
        for sequence: UInt16 in 100..<105 {
            let taken = buffer.insert(sequence, sequence: sequence, now: 0)
            #expect(taken)
            out += Self.drain(&buffer, now: 0)
        }
        #expect(out == [100, 101, 102, 103, 104])
        #expect(buffer.count == 0 && buffer.late == 0 && buffer.missing == 0)
    }

    @Test func aRetransmissionWithinTheWaitFillsTheGap() {
        var buffer = Buffer(maxWait: 0.3)
        buffer.insert(10, sequence: 10, now: 0)
        buffer.insert(12, sequence: 12, now: 0.01)
        buffer.insert(13, sequence: 13, now: 0.02)
        #expect(Self.drain(&buffer, now: 0.1) == [10], "11 is still awaited")
        buffer.insert(11, sequence: 11, now: 0.2)
        #expect(Self.drain(&buffer, now: 0.2) == [11, 12, 13])
        let again = buffer.insert(11, sequence: 11, now: 0.25)
        #expect(!again, "a second copy is late")
        #expect(buffer.late == 1 && buffer.missing == 0)
    }

    @Test func aGapIsGivenUpAfterTheWait() {
        var buffer = Buffer(maxWait: 0.3)
        buffer.insert(1, sequence: 1, now: 0)
        buffer.insert(4, sequence: 4, now: 0.05)
        buffer.insert(5, sequence: 5, now: 0.1)
        #expect(Self.drain(&buffer, now: 0.34) == [1], "the wait counts from the first packet past the gap")
        #expect(Self.drain(&buffer, now: 0.35) == [-2, 4, 5])
        let retransmitted = buffer.insert(3, sequence: 3, now: 0.4)
        #expect(!retransmitted, "a retransmission after the gap was given up is late")
        #expect(buffer.missing == 2 && buffer.late == 1)
    }

    @Test func sequenceNumbersWrap() {
        var buffer = Buffer(capacity: 8, maxWait: 0.3)
        var out: [Int] = []
        for sequence: UInt16 in [65534, 0, 65535, 1] {
            buffer.insert(sequence, sequence: sequence, now: 0)
            out += Self.drain(&buffer, now: 0)
        }
        #expect(out == [65534, 65535, 0, 1])
    }

    @Test func aJumpBeyondTheWindowStartsOver() {
        var buffer = Buffer(capacity: 8, maxWait: 0.3)
        #expect(buffer.capacity == 8)
        buffer.insert(1, sequence: 1, now: 0)
        buffer.insert(3, sequence: 3, now: 0)
        #expect(Self.drain(&buffer, now: 0) == [1])
        buffer.insert(40_000, sequence: 40_000, now: 0.01)
        #expect(Self.drain(&buffer, now: 0.01) == [-1, 40_000], "3 was given up with the jump")
        buffer.insert(39_000, sequence: 39_000, now: 0.02)
        buffer.insert(39_001, sequence: 39_001, now: 0.02)
        #expect(Self.drain(&buffer, now: 0.02) == [-1, 39_000, 39_001], "far behind is a restart, not a late packet")
        let older = buffer.insert(38_999, sequence: 38_999, now: 0.03)
        #expect(!older, "just behind the new start is late")
    }

    @Test func capacityRoundsUpToAPowerOfTwo() {
        #expect(Buffer(capacity: 300, maxWait: 0.1).capacity == 512)
        #expect(Buffer(capacity: 0, maxWait: 0.1).capacity == 2)
        #expect(Buffer(capacity: 1_000_000, maxWait: 0.1).capacity == 32_768)
    }
}
