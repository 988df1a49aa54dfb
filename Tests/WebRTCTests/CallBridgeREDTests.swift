import Foundation
import RTP
import Testing
import WebRTC

/// RED (RFC 2198) across a bridged call when only one leg negotiated it: the server takes it off
/// for the other leg — sending the frames its redundancy recovered as packets of their own — and
/// adds it toward the RED leg, repeating the frame before each one. Real ICE, DTLS-SRTP, loopback UDP.
@Suite(.serialized) struct CallBridgeREDTests {
    static func redLeg(_ server: MediaTransportServer) async throws -> ClientLeg {
        var configuration = PeerConnection.Configuration()
        configuration.offerRED = true
        return try await ClientLeg.connect(to: server, configuration: configuration)
    }

    @Test(.timeLimit(.minutes(1))) func redLegsLossIsRecoveredForAPlainLeg() async throws {
        let server = try MediaTransportServer()
        let a = try await Self.redLeg(server)
        let b = try await ClientLeg.connect(to: server)
        #expect(a.answer.contains("a=rtpmap:63 red/48000/2") && a.answer.contains("a=fmtp:63 111/111"))
        #expect(!b.answer.contains("red/48000"))
        #expect(await server.forward(from: a.id, to: b.id))
        let tapped = Recorder<MediaTapPacket>()
        #expect(await server.setAudioTap(session: a.id) { tapped.append($0) })

        // A sends 20 frames as RED with distance 1; packets 5, 11 and 12 never leave (the loss on
        // A's hop): 5 and 12 come back from the next packet's redundancy, 11 is gone.
        var encoder = REDEncoder(payloadType: 63, distance: 1)
        var buffer = [UInt8](repeating: 0, count: 2_000)
        let start = ContinuousClock.now
        for i in 0..<20 {
            let frame = ClientLeg.frame(tag: 0xA0, index: i)
            let timestamp = UInt32(1_000 + 960 * i)
            let length = frame.withUnsafeBytes { primary in
                buffer.withUnsafeMutableBytes { encoder.encode(primary: primary, timestamp: timestamp, blockPayloadType: 111, into: $0)!.length }
            }
            if ![5, 11, 12].contains(i) {
                a.pc.sendRTP(payload: Array(buffer[0..<length]), payloadType: 63, sequenceNumber: UInt16(100 + i),
                             timestamp: timestamp, marker: i == 0)
            }
            try await Task.sleep(until: start + .milliseconds(20 * (i + 1)), clock: .continuous)
        }
        #expect(await b.waitForPackets(19))
        try await Task.sleep(for: .milliseconds(60))
        let atB = b.received
        #expect(atB.allSatisfy { $0.audio.payloadType == 111 })
        #expect(atB.map { Int($0.audio.payload[1]) } == Array(0..<11) + Array(12..<20))
        // One stream: B's numbering keeps A's gap for the frame nobody could recover.
        let sequence = atB.map(\.audio.sequenceNumber)
        #expect(sequence[11] == sequence[10] &+ 2)
        #expect(zip(atB, atB.dropFirst()).allSatisfy { $1.audio.timestamp &- $0.audio.timestamp == ($1.audio.payload[1] == 12 ? 1_920 : 960) })
        #expect(tapped.values.map { Int($0.payload[1]) } == Array(0..<11) + Array(12..<20))
        #expect(tapped.values.allSatisfy { $0.payloadType == 111 })
        let counters = try #require(await server.session(id: a.id)?.counters)
        #expect(counters.redReceived == 17 && counters.redBlocksRecovered == 2)
        await a.close()
        await b.close()
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func aPlainLegsFramesReachTheREDLegWithTheFrameBefore() async throws {
        let server = try MediaTransportServer()
        let a = try await Self.redLeg(server)
        let b = try await ClientLeg.connect(to: server)
        #expect(await server.forward(from: b.id, to: a.id))
        try await b.sendFrames(10, tag: 0xB0)
        #expect(await a.waitForPackets(10))
        let atA = a.received
        #expect(atA.allSatisfy { $0.audio.payloadType == 63 })
        // Until A reports a clean path, each packet repeats the one before (distance 1).
        for (index, packet) in atA.enumerated() {
            try packet.audio.payload.withUnsafeBytes { raw in
                let red = try REDPayloadView(raw)
                #expect(red.primary.payloadType == 111 && Array(red.primary.data) == ClientLeg.frame(tag: 0xB0, index: index))
                #expect(red.redundantCount == (index == 0 ? 0 : 1))
                if index > 0 {
                    #expect(Array(red[0].data) == ClientLeg.frame(tag: 0xB0, index: index - 1) && red[0].timestampOffset == 960)
                }
            }
        }
        #expect(try #require(await server.session(id: a.id)?.counters).redWrapped == 10)
        await a.close()
        await b.close()
        await server.shutdown()
    }
}
