import Foundation
import ParleyCore
import SDP
import Synchronization
import Testing
import WebRTC

/// Room sessions of a `MediaTransportServer` (the SFU's data path) with our own `PeerConnection`
/// as each participant: every section the client sends in is a published track, every section it
/// receives in a slot with an SSRC of the server's, and routes decide which goes where.
@Suite(.serialized) struct RoomSessionTests {
    /// A participant: a client with audio and VP8 video (both sendrecv), its room session, and the
    /// SSRCs the server announced for its two slots.
    struct Participant {
        let pc: PeerConnection
        let answer: RoomSessionAnswer
        let slotSSRCs: [UInt32]

        static func join(_ server: MediaTransportServer, editOffer: (String) -> String = { $0 },
                         events: @escaping @Sendable (PeerSessionEvent) -> Void = { _ in }) async throws -> Participant {
            var configuration = PeerConnection.Configuration()
            configuration.videoCodecs = [.vp8]
            configuration.rtcpInterval = .milliseconds(200)
            let pc = try PeerConnection(configuration: configuration)
            let answer = try await server.createRoomSession(offer: editOffer(try await pc.createOffer()), events: events)
            try await pc.setRemoteAnswer(answer.sdp)
            #expect(await pc.waitUntilConnected(timeout: .seconds(10)))
            let media = try SessionDescription(parsing: answer.sdp).media
            return Participant(pc: pc, answer: answer, slotSSRCs: media.compactMap(\.ssrcs.first))
        }

        func address(_ mid: String) -> MediaSectionAddress { MediaSectionAddress(session: answer.id, mid: mid) }

        /// `count` audio packets and as many one-packet VP8 frames.
        func send(_ count: Int, from start: Int = 0) {
            for i in start..<(start + count) {
                pc.sendAudio(payload: [UInt8](repeating: UInt8(i), count: 40), timestampIncrement: 960)
                // A VP8 key frame every fifth frame: a slot starts at one.
                pc.sendRTP(payload: RoomSessionTests.vp8(picture: UInt16(i), key: i % 5 == 0), payloadType: 96,
                           sequenceNumber: UInt16(i), timestamp: UInt32(3_000 * i), marker: true)
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func routesCarryEachPublishedSectionIntoTheSlotsGivenIt() async throws {
        let server = try MediaTransportServer()
        let alice = try await Participant.join(server)
        let bob = try await Participant.join(server)
        #expect(alice.answer.sending.map(\.mid) == ["0", "1"] && alice.answer.receiving.map(\.mid) == ["0", "1"])
        #expect(alice.answer.sending.map(\.codec) == [.audio(.opus), .video(.vp8)])
        #expect(alice.slotSSRCs.count == 2 && Set(alice.slotSSRCs).count == 2)

        // Nothing is routed yet: what alice sends goes nowhere.
        alice.send(5)
        #expect(await eventually { await server.session(id: alice.answer.id)?.counters.rtpReceived ?? 0 >= 10 })
        #expect(await bob.pc.statistics().videoPacketsReceived == 0)

        #expect(await server.route(alice.address("0"), to: bob.address("0")))
        #expect(await server.route(alice.address("1"), to: bob.address("1")))
        // Kinds, own sessions and unknown sections are refused.
        #expect(await server.route(alice.address("0"), to: bob.address("1")) == false)
        #expect(await server.route(alice.address("1"), to: alice.address("1")) == false)
        #expect(await server.route(alice.address("7"), to: bob.address("1")) == false)
        #expect(await server.route(MediaSectionAddress(session: "nobody", mid: "0"), to: bob.address("0")) == false)

        alice.send(10, from: 5)
        #expect(await eventually {
            let s = await bob.pc.statistics()
            return s.videoPacketsReceived >= 10 && s.packetsReceived >= 10
        })
        let bobStats = await bob.pc.statistics()
        #expect(bobStats.remoteSSRC == bob.slotSSRCs[0], "audio arrives under the server's slot SSRC")
        // The route asked alice for a key frame (PLI) of her video.
        let aliceSession = await server.session(id: alice.answer.id)
        #expect(aliceSession?.counters.keyframeRequestsRelayed ?? 0 >= 1)

        // Emptying the video slot stops the video; audio goes on.
        #expect(await server.route(nil, to: bob.address("1")))
        let videoBefore = await bob.pc.statistics().videoPacketsReceived
        alice.send(10, from: 15)
        #expect(await eventually { await bob.pc.statistics().packetsReceived >= bobStats.packetsReceived + 10 })
        #expect(await bob.pc.statistics().videoPacketsReceived == videoBefore)

        // When alice's session ends, bob's slot empties with it.
        await alice.pc.close()
        #expect(await eventually { await server.session(id: alice.answer.id) == nil })
        #expect(await server.route(alice.address("0"), to: bob.address("0")) == false)
        await bob.pc.close()
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func aGapInPublishedVideoIsAskedForAgain() async throws {
        let server = try MediaTransportServer()
        // Generic NACK on video (RFC 4585 §4.2), as browsers offer it.
        let alice = try await Participant.join(server) {
            $0.replacingOccurrences(of: "a=rtcp-fb:96 nack pli\r\n", with: "a=rtcp-fb:96 nack\r\na=rtcp-fb:96 nack pli\r\n")
        }
        #expect(alice.answer.sdp.contains("a=rtcp-fb:96 nack\r\n"), "answer:\n\(alice.answer.sdp)")
        // Packets 0–4, then a gap (5 and 6 lost), then a packet every 10 ms until the server asks.
        for i in 0..<5 { alice.pc.sendRTP(payload: [1, 2, 3], payloadType: 96, sequenceNumber: UInt16(i), timestamp: 0, marker: true) }
        var next: UInt16 = 7
        var asked = false
        while !asked, next < 300 {
            alice.pc.sendRTP(payload: [1, 2, 3], payloadType: 96, sequenceNumber: next, timestamp: 0, marker: true)
            next += 1
            try await Task.sleep(for: .milliseconds(10))  // media pacing, not a wait for a condition
            asked = await server.session(id: alice.answer.id)?.counters.nacksSent ?? 0 >= 1
        }
        #expect(asked, "no NACK after \(next) packets")
        await alice.pc.close()
        await server.shutdown()
    }

    /// One VP8 packet (RFC 7741 §4.2): X=1, S=1, PID=0, a 15-bit picture ID, then the VP8 payload
    /// header's first byte, whose P bit is 0 in a key frame (§4.3).
    static func vp8(picture: UInt16, key: Bool) -> [UInt8] {
        [0x90, 0x80, 0x80 | UInt8(picture >> 8), UInt8(picture & 0xFF), key ? 0x10 : 0x11] + [UInt8](repeating: 7, count: 60)
    }

    @Test(.timeLimit(.minutes(1))) func aVP8SlotSwitchesSourcesAtAKeyFrameWithPictureIDsContinuing() async throws {
        let server = try MediaTransportServer()
        let alice = try await Participant.join(server), carol = try await Participant.join(server)
        let bob = try await Participant.join(server)
        let received = Received()
        let video = bob.pc.video
        let collector = Task { for await packet in video { received.withLock { $0.append(packet) } } }
        func send(_ who: Participant, _ pictures: [(UInt16, Bool)], from start: Int) {
            for (i, (picture, key)) in pictures.enumerated() {
                who.pc.sendRTP(payload: Self.vp8(picture: picture, key: key), payloadType: 96, sequenceNumber: UInt16(start + i),
                               timestamp: UInt32(3_000 * (start + i)), marker: true)
            }
        }
        func pictureIDs() -> [UInt16] {
            received.withLock { $0.map { UInt16($0.payload[2] & 0x7F) << 8 | UInt16($0.payload[3]) } }
        }
        #expect(await server.route(alice.address("1"), to: bob.address("1")))
        // Delta frames before alice's key frame cannot be decoded: the slot waits for it.
        send(alice, [(100, false), (101, false), (102, true), (103, false), (104, false)], from: 0)
        #expect(await eventually { received.withLock { $0.count } >= 3 })
        #expect(pictureIDs() == [102, 103, 104])
        // Switching to carol: her deltas wait for her key frame, whose picture follows alice's last.
        #expect(await server.route(carol.address("1"), to: bob.address("1")))
        send(carol, [(9_000, false), (9_001, true), (9_002, false)], from: 0)
        #expect(await eventually { received.withLock { $0.count } >= 5 })
        #expect(pictureIDs() == [102, 103, 104, 105, 106])
        let bobSession = await server.session(id: bob.answer.id)
        #expect(bobSession?.counters.forwardDropped ?? 0 >= 3, "the deltas before each key frame were held back")
        // Sequence numbers run on across the switch too.
        let sequence = received.withLock { $0.map(\.sequenceNumber) }
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(sequence)")
        collector.cancel()
        for p in [alice, carol, bob] { await p.pc.close() }
        await server.shutdown()
    }

    final class Received: Sendable {
        private let list = Mutex<[PeerConnection.ReceivedRTP]>([])
        func withLock<T>(_ body: (inout [PeerConnection.ReceivedRTP]) -> T) -> T { list.withLock { body(&$0) } }
    }

    @Test func roomOffersTakeEverySectionWithTheirOwnCodec() throws {
        let offer = try SessionDescription(parsing: Self.threeSectionOffer)
        let parsed = try MediaOffer(roomOffer: offer, videoCodecs: MediaTransportServer.roomVideoCodecs)
        #expect(parsed.accepted.map(\.mid) == ["0", "1", "2"])
        #expect(parsed.accepted.map(\.payloadType) == [111, 96, 96])  // payload types repeat across sections
        #expect(parsed.bundleMids == ["0", "1", "2"])
        // RED around Opus is taken (kept or taken off per slot, `RoomREDTests`); telephone events are not.
        #expect(parsed.accepted.map(\.redPayloadType) == [63, nil, nil] && parsed.accepted.allSatisfy { $0.telephoneEventPayloadType == nil })
        #expect(parsed.sections[2].remoteSSRCs.isEmpty && parsed.sections[1].remoteSSRCs == [22])
        // Transport-wide CC (draft-holmer-rmcat-transport-wide-cc-extensions-01) is accepted on what the peer sends.
        #expect(parsed.sections[0].transportCCExtensionID == 3 && parsed.sections[0].rtcpFeedback.map(\.type) == ["transport-cc"])
        // A payload type naming two codecs is refused in the later section.
        let clash = Self.threeSectionOffer.replacingOccurrences(of: "a=rtpmap:96 VP8/90000\r\na=mid:2",
                                                                with: "a=rtpmap:96 H264/90000\r\na=mid:2")
        let clashing = try MediaOffer(roomOffer: try SessionDescription(parsing: clash), videoCodecs: [.vp8, .h264])
        #expect(clashing.accepted.map(\.mid) == ["0", "1"])
    }

    @Test func reOffersAddSlotsAndKeepWhatStays() async throws {
        let server = try MediaTransportServer()
        let first = try await server.createRoomSession(offer: Self.threeSectionOffer) { _ in }
        #expect(first.sending.map(\.mid) == ["0", "1"] && first.receiving.map(\.mid) == ["2"])
        #expect(first.sdp.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n")
                && first.sdp.contains("a=rtcp-fb:111 transport-cc\r\n"), "answer:\n\(first.sdp)")
        let slotSSRC = try #require(try SessionDescription(parsing: first.sdp).media[2].ssrcs.first)
        // Two more receive slots (audio and video); the published sections stay.
        let more = Self.threeSectionOffer.replacingOccurrences(of: "a=group:BUNDLE 0 1 2", with: "a=group:BUNDLE 0 1 2 3 4")
            + Self.slot("audio", mid: "3", format: "111", map: "opus/48000/2") + Self.slot("video", mid: "4", format: "96", map: "VP8/90000")
        let second = try await server.renegotiateRoomSession(id: first.id, offer: more)
        #expect(second.id == first.id)
        #expect(second.sending.map(\.mid) == ["0", "1"] && second.receiving.map(\.mid) == ["2", "3", "4"])
        #expect(second.receiving.map(\.codec) == [.video(.vp8), .audio(.opus), .video(.vp8)])
        let media = try SessionDescription(parsing: second.sdp).media
        #expect(media[2].ssrcs.first == slotSSRC, "a slot keeps its SSRC")
        #expect(Set([slotSSRC] + media[3].ssrcs.prefix(1) + media[4].ssrcs.prefix(1)).count == 3)
        #expect(media.map(\.mid) == ["0", "1", "2", "3", "4"] && media.allSatisfy { !$0.isRejected })
        #expect(try SessionDescription(parsing: second.sdp).origin.sessionVersion == 3)
        // Fewer sections than before, or a changed codec, are refused.
        await #expect(throws: ParleyError.self) { try await server.renegotiateRoomSession(id: first.id, offer: Self.threeSectionOffer) }
        let recoded = more.replacingOccurrences(of: "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:111 opus/48000/2\r\na=mid:3",
                                                with: "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:0 PCMU/8000\r\na=mid:3")
        #expect(recoded != more)
        await #expect(throws: ParleyError.self) { try await server.renegotiateRoomSession(id: first.id, offer: recoded) }
        await #expect(throws: ParleyError.self) { try await server.renegotiateRoomSession(id: "nobody", offer: more) }
        await server.shutdown()
    }

    @Test func aRoomsVideoCodecsRestrictTheAnswer() async throws {
        let server = try MediaTransportServer()
        let vp8 = try await server.createRoomSession(offer: Self.threeSectionOffer, videoCodecs: [.vp8]) { _ in }
        #expect(vp8.sending.map(\.mid) == ["0", "1"] && vp8.receiving.map(\.mid) == ["2"])
        // An H.264 room rejects the VP8-only video sections; the audio stays.
        let other = Self.threeSectionOffer.replacingOccurrences(of: "a=ice-ufrag:abcd", with: "a=ice-ufrag:efgh")
        let h264 = try await server.createRoomSession(offer: other, videoCodecs: [.h264]) { _ in }
        #expect(h264.sending.map(\.mid) == ["0"] && h264.receiving.isEmpty)
        #expect(try SessionDescription(parsing: h264.sdp).media.map(\.isRejected) == [false, true, true])
        // A re-offer is held to the room's codecs too.
        let again = try await server.renegotiateRoomSession(id: h264.id, offer: other, videoCodecs: [.h264])
        #expect(again.sending.map(\.mid) == ["0"] && again.receiving.isEmpty)
        await server.shutdown()
    }

    /// A recvonly receive slot, as a browser's `addTransceiver(kind, {direction: "recvonly"})` offers it.
    static func slot(_ kind: String, mid: String, format: String, map: String) -> String {
        ["m=\(kind) 9 UDP/TLS/RTP/SAVPF \(format)", "c=IN IP4 0.0.0.0", "a=rtpmap:\(format) \(map)", "a=mid:\(mid)",
         "a=recvonly", "a=rtcp-mux", ""].joined(separator: "\r\n")
    }

    static let threeSectionOffer = [
        "v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE 0 1 2",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 126", "c=IN IP4 0.0.0.0",
        "a=rtpmap:111 opus/48000/2", "a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111", "a=rtpmap:126 telephone-event/48000",
        "a=mid:0", "a=sendonly", "a=rtcp-mux", "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"), "a=setup:actpass",
        "a=ssrc:11 cname:x", "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
        "a=rtcp-fb:111 transport-cc",
        "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack pli",
        "a=mid:1", "a=sendonly", "a=rtcp-mux", "a=ssrc:22 cname:x",
        "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=rtpmap:96 VP8/90000\r\na=mid:2", "a=recvonly", "a=rtcp-mux",
        "",
    ].joined(separator: "\r\n")
}
