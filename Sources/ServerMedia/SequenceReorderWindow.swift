/// Puts one RTP stream's packets back in sequence-number order (RFC 3550 §A.1 wrap arithmetic)
/// for the recorders: up to `window` packets wait for a missing one, then it is declared lost
/// and the next is released with the count missing before it. Duplicates and packets behind
/// the released ones are dropped; one far behind (more than four windows) is a new stream
/// (sender restart, SSRC change): what waits is released first and numbering restarts there.
/// A value type: `RecordingLeg` (call recordings) and `TrackRecorder` (room tracks) share it.
package struct SequenceReorderWindow<Element> {
    package let window: Int
    package private(set) var started = false
    private var nextSequence: UInt16 = 0
    private var pending: [(sequence: UInt16, element: Element)] = []
    /// Packets declared lost so far.
    package private(set) var lost = 0

    package init(window: Int) {
        self.window = min(max(1, window), 1_000)
        pending.reserveCapacity(self.window + 1)
    }

    /// Takes a packet: `restart` is called (after the old stream is released) when it starts a
    /// new stream; `emit` gets each packet now in order and how many were missing before it.
    package mutating func insert(_ sequence: UInt16, _ element: Element, restart: () -> Void = {},
                         emit: (Element, Int) -> Void) {
        if !started {
            started = true
            nextSequence = sequence
        }
        var ahead = Int16(bitPattern: sequence &- nextSequence)
        if ahead < -Int16(4 * window) {
            drain(force: true, emit: emit)
            nextSequence = sequence
            restart()
            ahead = 0
        }
        guard ahead >= 0, !pending.contains(where: { $0.sequence == sequence }) else { return }
        let index = pending.firstIndex { Int16(bitPattern: $0.sequence &- sequence) > 0 } ?? pending.count
        pending.insert((sequence, element), at: index)
        drain(force: false, emit: emit)
    }

    /// Releases everything held, declaring what never came lost.
    package mutating func flush(emit: (Element, Int) -> Void) {
        drain(force: true, emit: emit)
    }

    private mutating func drain(force: Bool, emit: (Element, Int) -> Void) {
        while let first = pending.first {
            let missing = Int(UInt16(first.sequence &- nextSequence))
            guard missing == 0 || force || pending.count > window || missing > window else { return }
            pending.removeFirst()
            lost += missing
            nextSequence = first.sequence &+ 1
            emit(first.element, missing)
        }
    }
}
