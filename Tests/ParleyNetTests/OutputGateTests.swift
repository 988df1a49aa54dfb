@testable import ParleyNet
import Testing

/// The back-pressure state machine on a virtual clock (nanoseconds).
@Suite struct OutputGateTests {
    let limits = OutputLimits(highWater: 1000, lowWater: 100, stallTimeout: .seconds(2), maxQueuedBytes: 5000)

    @Test func fullAtTheHighWaterMarkDrainedAtTheLowOne() {
        var gate = OutputGate(limits: limits)
        #expect(gate.update(pending: 500, progressed: false, now: 0) == .none)
        #expect(gate.update(pending: 1001, progressed: false, now: 1) == .becameFull)
        #expect(gate.isFull)
        #expect(gate.update(pending: 2000, progressed: false, now: 2) == .none)
        #expect(gate.update(pending: 500, progressed: true, now: 3) == .none, "still above the low-water mark")
        #expect(gate.update(pending: 100, progressed: true, now: 4) == .drained)
        #expect(!gate.isFull)
    }

    @Test func overTheCapOverflows() {
        var gate = OutputGate(limits: limits)
        #expect(gate.update(pending: 5001, progressed: false, now: 0) == .overflowed)
    }

    @Test func stallIsCountedFromTheLastProgress() {
        var gate = OutputGate(limits: limits)
        let second: UInt64 = 1_000_000_000
        _ = gate.update(pending: 0, progressed: false, now: 0)
        // The queue starts at 10 s after an hour idle: the stall clock starts then, not at 0.
        _ = gate.update(pending: 2000, progressed: false, now: 10 * second)
        #expect(!gate.isStalled(pending: 2000, now: 11 * second))
        #expect(gate.stallDeadline(now: 11 * second) == second)
        _ = gate.update(pending: 1500, progressed: true, now: 11 * second)  // the peer took some
        #expect(!gate.isStalled(pending: 1500, now: 12 * second + second / 2))
        #expect(gate.isStalled(pending: 1500, now: 13 * second))
        #expect(!gate.isStalled(pending: 0, now: 100 * second), "nothing waiting is never a stall")
    }
}
