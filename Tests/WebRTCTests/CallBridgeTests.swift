import Foundation
import ParleyOpus
import ParleyTestSupport
import RTP
import SDP
import Testing
import WebRTC

/// Two of our client `PeerConnection`s as call legs of one `MediaTransportServer`, bridged by
/// forwarding (the two-party SFU): real ICE, DTLS-SRTP and Opus over loopback UDP.
@Suite(.serialized) struct CallBridgeTests {
    /// Checks that packets form one stream: consecutive sequence numbers, the given SSRC.
    func expectOneStream(_ packets: [ClientLeg.Packet], ssrc: UInt32, sourceLocation: SourceLocation = #_sourceLocation) {
        for (x, y) in zip(packets, packets.dropFirst()) {
            #expect(y.audio.sequenceNumber == x.audio.sequenceNumber &+ 1, "sequence jump", sourceLocation: sourceLocation)
        }
        #expect(packets.allSatisfy { $0.audio.ssrc == ssrc }, "SSRC not the answer's", sourceLocation: sourceLocation)
    }

    /// Goertzel power of the decoded Opus frames (after the first 100 ms) at each frequency.
    func tonePowers(ofOpus frames: [[UInt8]], at frequencies: [Double]) throws -> [Double] {
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        var samples: [Double] = []
        var pcm = [Int16](repeating: 0, count: 5_760)
        for frame in frames {
            let n = try frame.withUnsafeBufferPointer { p in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(p, into: $0) } }
            samples += pcm[0..<n].map(Double.init)
        }
        let x = samples.dropFirst(4_800)
        return frequencies.map { f in
            let coefficient = 2 * cos(2 * .pi * f / 48_000)
            var s1 = 0.0, s2 = 0.0
            for v in x { (s1, s2) = (v + coefficient * s1 - s2, s1) }
            return s1 * s1 + s2 * s2 - coefficient * s1 * s2
        }
    }

    @Test(.timeLimit(.minutes(1))) func opusIsBridgedBothWaysWithTheSinksSSRCAndPayloadType() async throws {
        let server = try MediaTransportServer()
        let a = try await ClientLeg.connect(to: server)
        // B offers Opus as 109 (and telephone-event/48000 as 100): payload types are mapped.
        let b = try await ClientLeg.connect(to: server) { renumberPayloadTypes($0, [111: 109, 110: 100]) }
        #expect(b.answer.contains("a=rtpmap:109 opus/48000/2") && b.answer.contains("a=rtpmap:100 telephone-event/48000"))
        #expect(a.answer.contains("a=rtpmap:111 opus/48000/2") && a.answer.contains("a=rtpmap:110 telephone-event/48000"))
        #expect(await server.forward(from: a.id, to: b.id))
        #expect(await server.forward(from: b.id, to: a.id))
        let tapped = Recorder<MediaTapPacket>()
        #expect(await server.setAudioTap(session: a.id) { tapped.append($0) })

        async let toB: Void = ToneAudio.send(a.pc, frequency: 440, seconds: 0.6)
        async let toA: Void = ToneAudio.send(b.pc, frequency: 660, seconds: 0.6)
        _ = try await (toB, toA)
        #expect(await b.waitForPackets(30))
        #expect(await a.waitForPackets(30))
        try await Task.sleep(for: .milliseconds(60))

        let atB = b.received, atA = a.received
        #expect(atB.count >= 29 && atA.count >= 29, "B got \(atB.count), A got \(atA.count)")
        expectOneStream(atB, ssrc: b.answerSSRC)
        expectOneStream(atA, ssrc: a.answerSSRC)
        #expect(atB.allSatisfy { $0.audio.payloadType == 109 })
        #expect(atA.allSatisfy { $0.audio.payloadType == 111 })
        #expect(atB.first?.audio.marker == true)  // the stream starts a talkspurt
        for (x, y) in zip(atB, atB.dropFirst()) { #expect(y.audio.timestamp &- x.audio.timestamp == 960) }
        // The payloads are the Opus packets the other side encoded.
        let heardByB = try tonePowers(ofOpus: atB.map(\.audio.payload), at: [440, 660])
        let heardByA = try tonePowers(ofOpus: atA.map(\.audio.payload), at: [440, 660])
        #expect(heardByB[0] > 100 * heardByB[1], "B hears \(heardByB)")
        #expect(heardByA[1] > 100 * heardByA[0], "A hears \(heardByA)")

        let sentByA = await a.pc.statistics().packetsSent
        #expect(await eventually { tapped.values.count == Int(sentByA) })
        let taps = tapped.values
        #expect(taps.allSatisfy { $0.codec == .audio(.opus) && $0.payloadType == 111 })
        #expect(taps.map(\.payload) == atB.map(\.audio.payload))

        let snapshotA = try #require(await server.session(id: a.id))
        #expect(snapshotA.kind == .call && snapshotA.forwardingSource == b.id && snapshotA.forwardingSinks == [b.id])
        #expect(snapshotA.telephoneEventPayloadType == 110 && snapshotA.tapped)
        #expect(snapshotA.counters.rtpForwarded == atA.count && snapshotA.counters.rtpEchoed == 0)
        #expect(await server.statistics().rtpForwarded == atA.count + atB.count)
        await a.close()
        await b.close()
        await server.shutdown()
    }

    /// B's stream goes A → played frames → A: one stream throughout (no sequence jump), the
    /// marker at each switch, timestamps following the wall clock across the gaps.
    @Test(.timeLimit(.minutes(1))) func switchingBetweenForwardedAndPlayedMediaKeepsOneStream() async throws {
        let server = try MediaTransportServer()
        let a = try await ClientLeg.connect(to: server)
        let b = try await ClientLeg.connect(to: server)
        #expect(await server.forward(from: a.id, to: b.id))
        try await a.sendFrames(10, tag: 0xA1)
        #expect(await b.waitForPackets(10))

        server.play(EncodedAudioFrame(payload: [1, 2, 3], samples: 960), to: b.id)  // dropped: A is B's source
        await server.stopForwarding(to: b.id)
        try await a.sendFrames(3, tag: 0xA0)  // goes nowhere now
        let start = ContinuousClock.now
        for i in 0..<10 {
            server.play(EncodedAudioFrame(payload: ClientLeg.frame(tag: 0xB0, index: i), samples: 960), to: b.id)
            try await Task.sleep(until: start + .milliseconds(20 * (i + 1)), clock: .continuous)
        }
        #expect(await b.waitForPackets(20))
        try await Task.sleep(for: .milliseconds(100))
        #expect(await server.forward(from: a.id, to: b.id))
        try await a.sendFrames(10, tag: 0xA2)
        #expect(await b.waitForPackets(30))
        try await Task.sleep(for: .milliseconds(50))

        let packets = b.received
        try #require(packets.count == 30, "B got \(packets.count) packets")
        expectOneStream(packets, ssrc: b.answerSSRC)
        #expect(packets.map(\.audio.payload[0]) == Array(repeating: 0xA1, count: 10) + Array(repeating: 0xB0, count: 10)
            + Array(repeating: 0xA2, count: 10))
        // The marker starts a talkspurt at each switch; on a loaded machine the player may also
        // stall past 120 ms between two frames, which starts one too (RFC 3551 §4.1).
        let markers = packets.indices.filter { packets[$0].audio.marker }
        #expect(Set([0, 10, 20]).isSubset(of: markers), "markers at \(markers)")
        for i in 1..<30 {
            let step = packets[i].audio.timestamp &- packets[i - 1].audio.timestamp
            let wall = packets[i].arrival - packets[i - 1].arrival
            if packets[i].audio.marker {
                // The timestamp advances by the server's wall time between the two packets; arrival
                // times at the client only approximate it (loose bound: loaded CI machines).
                let media = Duration.microseconds(Int64(step) * 1_000_000 / 48_000)
                #expect(step >= 960 && abs((media - wall) / .milliseconds(1)) < 250, "talkspurt \(i): \(media) vs \(wall)")
            } else {
                #expect(step == 960, "packet \(i): step \(step)")
            }
        }
        let snapshot = try #require(await server.session(id: b.id))
        #expect(snapshot.counters.framesPlayed == 10 && snapshot.counters.framesDropped == 1)
        #expect(snapshot.counters.rtpForwarded == 20)
        #expect(await server.session(id: a.id)?.counters.rtpReceived == 23)
        await a.close()
        await b.close()
        await server.shutdown()
    }

    /// A key pressed on A reaches B as RFC 4733 packets on B's own telephone-event payload type,
    /// and is reported once as a digit of A's session. C negotiated no telephone-event: it gets
    /// the audio but not the event.
    @Test(.timeLimit(.minutes(1))) func telephoneEventsAreForwardedMappedAndReportedAsDigits() async throws {
        let server = try MediaTransportServer()
        let a = try await ClientLeg.connect(to: server)
        let b = try await ClientLeg.connect(to: server) { renumberPayloadTypes($0, [111: 109, 110: 100]) }
        var plain = PeerConnection.Configuration()
        plain.offerTelephoneEvent = false
        let c = try await ClientLeg.connect(to: server, configuration: plain)
        #expect(!c.answer.contains("telephone-event"))
        #expect(await server.forward(from: a.id, to: b.id))
        #expect(await server.forward(from: a.id, to: c.id))
        let event = try #require(await a.pc.statistics().telephoneEventPayloadType)
        #expect(event == 110)

        // Key 7 for 100 ms: three updates and three end packets at one timestamp (RFC 4733 §2.5).
        for (duration, end) in [(1_920, false), (3_840, false), (4_800, false), (4_800, true), (4_800, true), (4_800, true)] {
            let block = TelephoneEvent(event: 7, isEnd: end, volume: 10, duration: UInt16(duration)).serialized
            a.pc.sendAudio(payload: block, timestampIncrement: 0, payloadType: event, marker: duration == 1_920)
            try await Task.sleep(for: .milliseconds(20))
        }
        a.pc.sendAudio(payload: ClientLeg.frame(tag: 1, index: 0), timestampIncrement: 960)
        #expect(await b.waitForPackets(7))
        #expect(await c.waitForPackets(1))
        let digit = await a.waitForEvent { if case .digit = $0 { true } else { false } }
        #expect(digit == .digit(sessionID: a.id, digit: "7"))

        let atB = b.received
        expectOneStream(atB, ssrc: b.answerSSRC)
        #expect(atB.map(\.audio.payloadType) == Array(repeating: 100, count: 6) + [109])
        #expect(Set(atB.prefix(6).map(\.audio.timestamp)).count == 1)
        #expect(try TelephoneEvent.parseAll(atB[5].audio.payload) == [TelephoneEvent(event: 7, isEnd: true, volume: 10, duration: 4_800)])
        #expect(c.received.map(\.audio.payloadType) == [111])
        try await Task.sleep(for: .milliseconds(50))
        let snapshotA = try #require(await server.session(id: a.id))
        #expect(snapshotA.counters.digits == 1)
        #expect(a.events.filter { if case .digit = $0 { true } else { false } }.count == 1)
        #expect(await server.session(id: c.id)?.counters.forwardDropped == 6)
        await a.close()
        await b.close()
        await c.close()
        await server.shutdown()
    }
}
