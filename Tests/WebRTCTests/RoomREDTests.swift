import Foundation
import RTP
import Testing
import WebRTC

/// RED (RFC 2198) in rooms: a publisher's `red/48000/2` around Opus is answered, and each receive
/// slot takes it as it negotiated: kept whole (block types renamed) for a subscriber with RED,
/// reduced to the primary Opus frame for one without.
@Suite(.serialized) struct RoomREDTests {
    static func join(_ server: MediaTransportServer, red: Bool) async throws -> RoomSessionTests.Participant {
        var configuration = PeerConnection.Configuration()
        configuration.offerRED = red
        configuration.rtcpInterval = .milliseconds(200)
        let pc = try PeerConnection(configuration: configuration)
        let answer = try await server.createRoomSession(offer: try await pc.createOffer()) { _ in }
        try await pc.setRemoteAnswer(answer.sdp)
        #expect(await pc.waitUntilConnected(timeout: .seconds(10)))
        return RoomSessionTests.Participant(pc: pc, answer: answer, slotSSRCs: [])
    }

    /// An Opus-sized frame numbered `index`.
    static func frame(_ index: Int) -> [UInt8] { [0xFC, UInt8(index)] + [UInt8](repeating: 0x55, count: 58) }

    /// Sends frames 0..<10 from `pc` as RED (PT 63 around Opus 111) with distance 1, 20 ms apart,
    /// numbered from 100; the packets of `lost` are built but not sent.
    static func sendRED(_ pc: PeerConnection, lost: Set<Int> = []) async throws {
        var encoder = REDEncoder(payloadType: 63, distance: 1)
        var buffer = [UInt8](repeating: 0, count: 2_000)
        for i in 0..<10 {
            let timestamp = UInt32(1_000 + 960 * i)
            let length = frame(i).withUnsafeBytes { primary in
                buffer.withUnsafeMutableBytes { encoder.encode(primary: primary, timestamp: timestamp, blockPayloadType: 111, into: $0)!.length }
            }
            if !lost.contains(i) {
                pc.sendRTP(payload: Array(buffer[0..<length]), payloadType: 63, sequenceNumber: UInt16(100 + i), timestamp: timestamp)
            }
            try await Task.sleep(for: .milliseconds(20))  // media pacing
        }
    }

    @Test(.timeLimit(.minutes(1))) func aREDPublisherReachesREDAndPlainSubscribersEachInTheirForm() async throws {
        let server = try MediaTransportServer()
        let alice = try await Self.join(server, red: true)
        let bob = try await Self.join(server, red: true)
        let carol = try await Self.join(server, red: false)
        #expect(alice.answer.sdp.contains("a=rtpmap:63 red/48000/2\r\n") && alice.answer.sdp.contains("a=fmtp:63 111/111\r\n"),
                "answer:\n\(alice.answer.sdp)")
        #expect(!carol.answer.sdp.contains("red/48000"))
        #expect(await server.route(alice.address("0"), to: bob.address("0")))
        #expect(await server.route(alice.address("0"), to: carol.address("0")))
        let atBob = RoomSessionTests.Received(), atCarol = RoomSessionTests.Received()
        let (bobAudio, carolAudio) = (bob.pc.audio, carol.pc.audio)
        let collectors = [Task { for await p in bobAudio { atBob.withLock { $0.append(p) } } },
                          Task { for await p in carolAudio { atCarol.withLock { $0.append(p) } } }]

        // Alice sends 10 frames as RED with distance 1 (each repeats the one before).
        try await Self.sendRED(alice.pc)
        #expect(await eventually { atBob.withLock { $0.count } >= 10 && atCarol.withLock { $0.count } >= 10 })

        // Bob negotiated RED: each packet as alice sent it, the primary and the frame before.
        let bobGot = atBob.withLock { $0 }
        #expect(bobGot.count == 10 && bobGot.allSatisfy { $0.payloadType == 63 })
        for (index, packet) in bobGot.enumerated() {
            try packet.payload.withUnsafeBytes { raw in
                let red = try REDPayloadView(raw)
                #expect(red.primary.payloadType == 111 && Array(red.primary.data) == Self.frame(index))
                #expect(red.redundantCount == (index == 0 ? 0 : 1))
                if index > 0 { #expect(Array(red[0].data) == Self.frame(index - 1) && red[0].timestampOffset == 960) }
            }
        }
        // Carol did not: plain Opus, the primaries, one stream.
        let carolGot = atCarol.withLock { $0 }
        #expect(carolGot.map(\.payloadType) == Array(repeating: 111, count: 10))
        #expect(carolGot.map(\.payload) == (0..<10).map(Self.frame))
        #expect(zip(carolGot, carolGot.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        #expect(try #require(await server.session(id: alice.answer.id)).counters.redReceived == 10)
        for collector in collectors { collector.cancel() }
        for p in [alice, bob, carol] { await p.pc.close() }
        await server.shutdown()
    }

    /// A packet the publisher's hop lost, recovered from the next packet's redundancy, reaches a
    /// subscriber without RED as a packet of its own, in its place in the stream.
    @Test(.timeLimit(.minutes(1))) func aPlainSubscriberGetsWhatREDRecoveredInItsPlace() async throws {
        let server = try MediaTransportServer()
        let alice = try await Self.join(server, red: true)
        let carol = try await Self.join(server, red: false)
        #expect(await server.route(alice.address("0"), to: carol.address("0")))
        let atCarol = RoomSessionTests.Received()
        let carolAudio = carol.pc.audio
        let collector = Task { for await p in carolAudio { atCarol.withLock { $0.append(p) } } }
        defer { collector.cancel() }

        // Alice sends 10 frames as RED with distance 1; packets 4 and 7 never arrive.
        try await Self.sendRED(alice.pc, lost: [4, 7])
        #expect(await eventually { atCarol.withLock { $0.count } >= 10 })

        // Every frame, in order, numbered and timed as alice numbered them (one offset for the stream).
        let got = atCarol.withLock { $0 }
        #expect(got.map(\.payload) == (0..<10).map(Self.frame), "frames \(got.map { $0.payload.count > 1 ? Int($0.payload[1]) : -1 })")
        #expect(got.allSatisfy { $0.payloadType == 111 })
        #expect(zip(got, got.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 && $1.timestamp == $0.timestamp &+ 960 })
        #expect(try #require(await server.session(id: alice.answer.id)).counters.redBlocksRecovered == 2)
        for p in [alice, carol] { await p.pc.close() }
        await server.shutdown()
    }
}
