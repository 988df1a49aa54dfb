import Foundation
import RTP
import SDP
import SFU
import Synchronization
import Testing
import WebRTC

/// Simulcast on the SFU's packet path (RFC 8853): a publisher sends three VP8 layers of one
/// section on SSRCs it never announced, each packet with its mid and rid elements (RFC 8852 §3),
/// as a browser does; the server binds each SSRC to its layer, and a subscriber's slot forwards
/// one layer as one continuous stream (sequence numbers and picture IDs run on across a switch).
@Suite(.serialized) struct RoomSimulcastForwardingTests {
    static let midID: UInt8 = 4, ridID: UInt8 = 10
    /// The layers: rid, SSRC, key frame size.
    static let layers: [(rid: String, ssrc: UInt32, width: UInt16, height: UInt16)] =
        [("q", 0x5101, 320, 180), ("h", 0x5102, 640, 360), ("f", 0x5103, 1280, 720)]

    /// Our client's offer with its video section made a simulcast one: the mid and rid
    /// extensions, a rid line per layer and `a=simulcast:send q;h;f` (what Chromium offers for
    /// `sendEncodings` with three rids).
    static func simulcastOffer(_ offer: String) -> String {
        var lines = offer.components(separatedBy: "\r\n")
        guard let video = lines.firstIndex(where: { $0.hasPrefix("m=video") }),
              let mid = lines[video...].firstIndex(where: { $0.hasPrefix("a=mid:") }) else { return offer }
        lines.insert(contentsOf: ["a=extmap:\(midID) urn:ietf:params:rtp-hdrext:sdes:mid",
                                  "a=extmap:\(ridID) urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"]
                     + layers.map { "a=rid:\($0.rid) send" } + ["a=simulcast:send q;h;f"], at: mid + 1)
        return lines.joined(separator: "\r\n")
    }

    /// One-packet VP8 frames (RFC 7741 §4.2: X, S, a 15-bit picture ID); a key frame carries its
    /// size (RFC 6386 §9.1); the byte after the frame header names the layer (1-based).
    static func frame(layer: Int, picture: UInt16, key: Bool) -> [UInt8] {
        let descriptor: [UInt8] = [0x90, 0x80, 0x80 | UInt8(picture >> 8), UInt8(picture & 0xFF)]
        let (w, h) = (layers[layer].width, layers[layer].height)
        let header: [UInt8] = key ? [0x10, 0, 0, 0x9D, 0x01, 0x2A, UInt8(w & 0xFF), UInt8(w >> 8), UInt8(h & 0xFF), UInt8(h >> 8)]
                                  : [0x11, 0, 0]
        return descriptor + header + [UInt8(layer + 1)] + [UInt8](repeating: 7, count: 40 * (layer + 1))
    }

    @Test(.timeLimit(.minutes(1))) func aSlotForwardsTheLargestLiveLayerAndMovesDownWhenItStops() async throws {
        let server = try MediaTransportServer()
        let alice = try await RoomSessionTests.Participant.join(server, editOffer: Self.simulcastOffer)
        let bob = try await RoomSessionTests.Participant.join(server)
        #expect(alice.answer.sdp.contains("a=simulcast:recv q;h;f"), "answer:\n\(alice.answer.sdp)")
        let received = RoomSessionTests.Received()
        let video = bob.pc.video
        let collector = Task { for await packet in video { received.withLock { $0.append(packet) } } }
        #expect(await server.route(alice.address("1"), to: bob.address("1")))

        var sequence = [UInt16](repeating: 100, count: 3)
        func send(frames: Range<Int>, layers sending: [Int]) async throws {
            for i in frames {
                for layer in sending {
                    let extensions = try RTPHeaderExtension(elements: [
                        RTPExtensionElement(id: Self.midID, data: Array("1".utf8)),
                        RTPExtensionElement(id: Self.ridID, data: Array(Self.layers[layer].rid.utf8))])
                    alice.pc.send(RTPPacket(marker: true, payloadType: 96, sequenceNumber: sequence[layer], timestamp: UInt32(3_000 * i),
                                            ssrc: Self.layers[layer].ssrc, headerExtension: extensions,
                                            payload: Self.frame(layer: layer, picture: UInt16(1_000 * (layer + 1) + i), key: i % 10 == 0)))
                    sequence[layer] &+= 1
                }
                try await Task.sleep(for: .milliseconds(33))
            }
        }
        @Sendable func layersReceived() -> [UInt8] {
            received.withLock { $0.map { $0.payload[4] & 0x01 == 0 ? $0.payload[14] : $0.payload[7] } }
        }
        // All three layers: once the server has seen their key frames, the slot takes the largest
        // at its next key frame, and only it.
        try await send(frames: 0..<45, layers: [0, 1, 2])
        #expect(await eventually { layersReceived().count >= 10 })
        #expect(Set(layersReceived()) == [3], "layers forwarded: \(layersReceived())")
        let beforeSwitch = received.withLock { $0.count }
        // The publisher's encoder drops its top layer (as under CPU or bandwidth limits): once it is
        // stale the slot moves to the middle layer, at that layer's key frame.
        try await send(frames: 45..<120, layers: [0, 1])
        let after = layersReceived().dropFirst(beforeSwitch)
        #expect(!after.isEmpty && Set(after) == [2], "after the top layer stopped: \(Array(after))")
        // One stream for bob: sequence numbers and picture IDs run on across the switch.
        let packets = received.withLock { $0 }
        let numbers = packets.map(\.sequenceNumber)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(numbers)")
        let pictures = packets.map { UInt16($0.payload[2] & 0x7F) << 8 | UInt16($0.payload[3]) }
        #expect(zip(pictures, pictures.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(pictures)")
        #expect(Set(packets.map(\.ssrc)).count == 1)
        let bobSession = await server.session(id: bob.answer.id)
        #expect(bobSession?.counters.layerSwitches == 1)
        collector.cancel()
        for p in [alice, bob] { await p.pc.close() }
        await server.shutdown()
    }

    /// A subscriber's budget that cannot carry a track switches its slot off (nothing forwarded,
    /// `.trackSwitched` told); once it can, the slot comes back on at a key frame.
    @Test(.timeLimit(.minutes(1))) func aSlotThatNoLongerFitsIsSwitchedOffAndBackOn() async throws {
        let server = try MediaTransportServer()
        let switches = Mutex<[Bool]>([])
        let alice = try await RoomSessionTests.Participant.join(server)
        let bob = try await RoomSessionTests.Participant.join(server, events: { event in
            if case .trackSwitched(_, "1", let off) = event { switches.withLock { $0.append(off) } }
        })
        let received = RoomSessionTests.Received()
        let video = bob.pc.video
        let collector = Task { for await packet in video { received.withLock { $0.append(packet) } } }
        #expect(await server.route(alice.address("1"), to: bob.address("1"), priority: .low))
        // 60-byte frames at 30 a second: about 16 kbit/s, over a 1 kbit/s cap.
        await server.setBandwidthProfile(BandwidthProfile(maxSubscriptionBitrate: 1_000), session: bob.answer.id)
        var picture = 0
        func send(seconds: Double) async throws {
            for _ in 0..<Int(seconds * 30) {
                alice.pc.sendRTP(payload: RoomSessionTests.vp8(picture: UInt16(picture), key: picture % 10 == 0), payloadType: 96,
                                 sequenceNumber: UInt16(picture), timestamp: UInt32(3_000 * picture), marker: true)
                picture += 1
                try await Task.sleep(for: .milliseconds(33))
            }
        }
        try await send(seconds: 1.5)
        #expect(await eventually { switches.withLock { $0 } == [true] }, "switches: \(switches.withLock { $0 })")
        let whileOff = received.withLock { $0.count }
        try await send(seconds: 0.6)
        #expect(received.withLock { $0.count } == whileOff, "nothing forwarded while switched off")
        await server.setBandwidthProfile(BandwidthProfile(), session: bob.answer.id)
        try await send(seconds: 1)
        #expect(switches.withLock { $0 } == [true, false])
        let after = received.withLock { Array($0.dropFirst(whileOff)) }
        #expect(after.count > 10 && after.first.map { $0.payload[4] & 0x01 == 0 } == true, "back on at a key frame")
        let bobSession = await server.session(id: bob.answer.id)
        #expect(bobSession?.counters.slotSwitches == 2)
        collector.cancel()
        for p in [alice, bob] { await p.pc.close() }
        await server.shutdown()
    }

    /// A subscriber's NACK is answered from the publisher's packet cache through the slot's
    /// forward log. Without `rtx`, the same SRTP packet again (our client's replay window proves
    /// it: the copy of a packet it already has is a replay of that packet's index); with `rtx`
    /// (RFC 4588), on the slot's retransmission SSRC, each carrying the original sequence number
    /// and payload. What is no longer kept is counted, not sent.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true]) func nacksAreAnsweredFromThePublishersCache(rtx: Bool) async throws {
        let server = try MediaTransportServer()
        let alice = try await RoomSessionTests.Participant.join(server, editOffer: Self.simulcastOffer)
        // Bob's video section asks for Generic NACK (as browsers' do), and with `rtx` for RTX.
        let bob = try await RoomSessionTests.Participant.join(server, editOffer: { offer in
            var edited = offer.replacingOccurrences(of: "a=rtcp-fb:96 nack pli\r\n", with: "a=rtcp-fb:96 nack pli\r\na=rtcp-fb:96 nack\r\n")
            if rtx {
                // RTX is answered in sections the peer only receives in (a browser's subscriptions).
                edited = edited.replacingOccurrences(of: " UDP/TLS/RTP/SAVPF 96\r\n", with: " UDP/TLS/RTP/SAVPF 96 97\r\n")
                    .replacingOccurrences(of: "a=rtcp-fb:96 nack\r\n", with: "a=rtcp-fb:96 nack\r\na=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n")
                if let video = edited.range(of: "m=video"), let direction = edited.range(of: "a=sendrecv", range: video.upperBound..<edited.endIndex) {
                    edited.replaceSubrange(direction, with: "a=recvonly")
                }
            }
            return edited
        })
        #expect(bob.answer.sdp.contains("a=rtcp-fb:96 nack\r\n"))
        let media = try SessionDescription(parsing: bob.answer.sdp).media[1]
        let group = media.ssrcGroups.first { $0.semantics == "FID" }
        #expect(rtx == (group != nil) && rtx == bob.answer.sdp.contains("a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n"),
                "answer:\n\(bob.answer.sdp)")
        let received = RoomSessionTests.Received(), other = RoomSessionTests.Received()
        let (video, audio) = (bob.pc.video, bob.pc.audio)
        let collector = Task { for await packet in video { received.withLock { $0.append(packet) } } }
        let otherCollector = Task { for await packet in audio { other.withLock { $0.append(packet) } } }
        #expect(await server.route(alice.address("1"), to: bob.address("1")))
        var sequence = [UInt16](repeating: 500, count: 3)
        for i in 0..<40 {
            for layer in [0, 2] {
                let extensions = try RTPHeaderExtension(elements: [
                    RTPExtensionElement(id: Self.midID, data: Array("1".utf8)),
                    RTPExtensionElement(id: Self.ridID, data: Array(Self.layers[layer].rid.utf8))])
                alice.pc.send(RTPPacket(marker: true, payloadType: 96, sequenceNumber: sequence[layer], timestamp: UInt32(3_000 * i),
                                        ssrc: Self.layers[layer].ssrc, headerExtension: extensions,
                                        payload: Self.frame(layer: layer, picture: UInt16(i), key: i % 10 == 0)))
                sequence[layer] &+= 1
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await eventually { received.withLock { $0.count } >= 10 })
        let got = received.withLock { $0 }
        let slotSSRC = try #require(got.first?.ssrc)
        let before = await bob.pc.statistics().srtpErrors
        bob.pc.sendNACK(mediaSSRC: slotSSRC, sequenceNumbers: [got[2].sequenceNumber, got[5].sequenceNumber, got[0].sequenceNumber &- 100])
        #expect(await eventually { await server.session(id: bob.answer.id)?.counters.retransmissionsSent == 2 })
        let bobSession = await server.session(id: bob.answer.id)
        #expect(bobSession?.counters.retransmissionsMissed == 1, "one never sent")
        if rtx {
            // The client hands packets of a payload type it did not negotiate to its audio stream.
            #expect(await eventually { other.withLock { $0.filter { $0.payloadType == 97 }.count } == 2 })
            let copies = other.withLock { $0.filter { $0.payloadType == 97 } }
            #expect(copies.allSatisfy { $0.ssrc == group?.ssrcs.last } && Set(copies.map(\.ssrc)).count == 1)
            for (copy, original) in zip(copies, [got[2], got[5]]) {
                #expect(UInt16(copy.payload[0]) << 8 | UInt16(copy.payload[1]) == original.sequenceNumber)
                #expect(Array(copy.payload.dropFirst(2)) == original.payload && copy.timestamp == original.timestamp)
            }
            #expect(copies.count == 2 && copies[1].sequenceNumber == copies[0].sequenceNumber &+ 1)
        } else {
            #expect(await eventually { await bob.pc.statistics().srtpErrors == before + 2 }, "both copies were replays of packets it has")
        }
        collector.cancel()
        otherCollector.cancel()
        for p in [alice, bob] { await p.pc.close() }
        await server.shutdown()
    }
}
