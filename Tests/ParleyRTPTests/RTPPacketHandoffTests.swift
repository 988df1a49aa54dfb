import ParleyRTP
import Synchronization
import Testing

/// The bounded hand-off between two loops, driven from one thread: order, header fields, the
/// wake-up only when the ring goes from idle to busy, drops when full, oversized or closed.
@Suite struct RTPPacketHandoffTests {
    final class Wakes: Sendable {
        let count = Atomic<Int>(0)
    }

    static func push(_ handoff: RTPPacketHandoff, _ sequence: UInt16, kind: RTPPayloadFormat.Kind = .audio, bytes: Int = 160) -> Bool {
        let payload = [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: bytes)
        return payload.withUnsafeBytes {
            handoff.push(ssrc: 7, sequenceNumber: sequence, timestamp: UInt32(sequence) * 160, marker: sequence == 1, kind: kind, payload: $0)
        }
    }

    @Test func packetsComeOutInOrderWithTheirFieldsAndOneWakePerBusySpell() {
        let wakes = Wakes()
        let handoff = RTPPacketHandoff(capacity: 4, maxPayloadBytes: 480, schedule: { _ in wakes.count.add(1, ordering: .relaxed) }) { _ in }
        #expect(Self.push(handoff, 1) && Self.push(handoff, 2) && Self.push(handoff, 4, kind: .telephoneEvent))
        #expect(wakes.count.load(ordering: .relaxed) == 1)
        var seen: [(UInt16, UInt32, Bool, RTPPayloadFormat.Kind, UInt8, Int)] = []
        #expect(handoff.drain { seen.append(($0.sequenceNumber, $0.timestamp, $0.marker, $0.kind, $0.payload[0], $0.payload.count)) } == 3)
        // The gap (3) stays a gap: the hand-off neither fills nor renumbers.
        #expect(seen.map(\.0) == [1, 2, 4] && seen.map(\.1) == [160, 320, 640] && seen.map(\.2) == [true, false, false])
        #expect(seen.map(\.3) == [.audio, .audio, .telephoneEvent] && seen.map(\.4) == [1, 2, 4] && seen.allSatisfy { $0.5 == 160 })
        #expect(Self.push(handoff, 5))
        #expect(wakes.count.load(ordering: .relaxed) == 2)
    }

    @Test func aFullRingAnOversizedPayloadAndAClosedHandoffDrop() {
        let handoff = RTPPacketHandoff(capacity: 2, maxPayloadBytes: 200)
        #expect(Self.push(handoff, 1) && Self.push(handoff, 2))
        #expect(!Self.push(handoff, 3))
        #expect(!Self.push(handoff, 4, bytes: 201))
        #expect(handoff.drain { _ in } == 2)
        #expect(Self.push(handoff, 5))
        handoff.close()
        #expect(!Self.push(handoff, 6))
        var delivered = 0
        #expect(handoff.drain { _ in delivered += 1 } == 1 && delivered == 0)
        #expect(handoff.pushed == 3 && handoff.dropped == 3)
    }
}
