import SCTP
import Testing

/// Two associations joined back to back in this process (each one's output queued for the
/// other): the association comes up, messages of every kind cross both ways intact, and a
/// stream reset reaches the far side — usrsctp itself, with no thread of its own.
@Suite(.serialized) struct SCTPAssociationTests {
    final class Pair {
        var toB: [[UInt8]] = [], toA: [[UInt8]] = []
        var eventsA: [SCTPAssociation.Event] = [], eventsB: [SCTPAssociation.Event] = []
        var a: SCTPAssociation!, b: SCTPAssociation!

        init() throws {
            a = try SCTPAssociation(output: { [unowned self] in toB.append($0) }, events: { [unowned self] in eventsA.append($0) })
            b = try SCTPAssociation(output: { [unowned self] in toA.append($0) }, events: { [unowned self] in eventsB.append($0) })
        }

        /// Delivers queued packets until both directions are quiet, running timers between rounds.
        func pump(until done: () -> Bool, rounds: Int = 2000) async {
            for _ in 0..<rounds {
                while !toB.isEmpty || !toA.isEmpty {
                    let (forB, forA) = (toB, toA)
                    toB = []
                    toA = []
                    for p in forB { p.withUnsafeBytes { b.receive($0) } }
                    for p in forA { p.withUnsafeBytes { a.receive($0) } }
                }
                if done() { return }
                try? await Task.sleep(for: .milliseconds(5))
                SCTPAssociation.handleTimers()
            }
        }

        func messages(_ events: [SCTPAssociation.Event]) -> [(UInt16, UInt32, [UInt8])] {
            events.compactMap { if case .message(let s, let p, let d) = $0 { (s, p, d) } else { nil } }
        }
    }

    @Test(.timeLimit(.minutes(1))) func comesUpAndCarriesMessagesBothWays() async throws {
        let pair = try Pair()
        await pair.pump { pair.eventsA.contains(.established) && pair.eventsB.contains(.established) }
        #expect(pair.eventsA.contains(.established) && pair.eventsB.contains(.established))

        let big = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try pair.a.send(stream: 1, ppid: 51, data: Array("hello".utf8))
        try pair.a.send(stream: 1, ppid: 53, data: big)
        try pair.a.send(stream: 3, ppid: 57, data: [])  // empty binary: one byte on the wire, none delivered
        try pair.b.send(stream: 2, ppid: 51, data: Array("unordered".utf8), unordered: true, reliability: .maxRetransmits(0))
        try pair.b.send(stream: 2, ppid: 51, data: Array("timed".utf8), reliability: .maxPacketLifeTime(500))
        await pair.pump { pair.messages(pair.eventsB).count == 3 && pair.messages(pair.eventsA).count == 2 }
        let atB = pair.messages(pair.eventsB), atA = pair.messages(pair.eventsA)
        #expect(atB.map(\.0) == [1, 1, 3] && atB.map(\.1) == [51, 53, 57])
        #expect(atB[0].2 == Array("hello".utf8) && atB[1].2 == big && atB[2].2.isEmpty)
        #expect(Set(atA.map { String(decoding: $0.2, as: UTF8.self) }) == ["unordered", "timed"])

        try pair.a.resetStreams([1])
        await pair.pump { pair.eventsB.contains(.streamsReset([1])) }
        #expect(pair.eventsB.contains(.streamsReset([1])))
        pair.a.close()
        pair.b.close()
        #expect(throws: SCTPAssociation.SCTPError.closed) { try pair.a.send(stream: 1, ppid: 51, data: [1]) }
    }
}
