import ParleyCore
import ParleyVPX
import SDP
import SFU
import Testing
import VideoCore
import VP8
import WebRTC

/// Client `PeerConnection`s with transceivers as room participants, over real sockets against the
/// server's room media plane (`MediaTransportServer` room sessions): a publisher's audio and real
/// VP8 reach a subscriber's receive slots through routes; key frame requests and NACKs cross the
/// SFU in both hops; a re-offer adds a slot without touching ICE or DTLS.
@Suite(.serialized) struct TransceiverRoomTests {
    /// A participant: its connection, transceivers (in the order given) and room session.
    struct Participant {
        let pc: PeerConnection
        let transceivers: [RTPTransceiver]
        let answer: RoomSessionAnswer
        let offer: String

        static func join(_ server: MediaTransportServer,
                         _ sections: [(RTPTransceiver.Kind, RTPTransceiver.Direction)]) async throws -> Participant {
            var configuration = PeerConnection.Configuration()
            configuration.rtcpInterval = .milliseconds(200)
            let pc = try PeerConnection(configuration: configuration)
            var transceivers: [RTPTransceiver] = []
            for (kind, direction) in sections { transceivers.append(try await pc.addTransceiver(kind: kind, direction: direction)) }
            let offer = try await pc.createOffer()
            let answer = try await server.createRoomSession(offer: offer) { _ in }
            try await pc.setRemoteAnswer(answer.sdp)
            #expect(await pc.waitUntilConnected(timeout: .seconds(10)))
            return Participant(pc: pc, transceivers: transceivers, answer: answer, offer: offer)
        }

        func address(_ transceiver: RTPTransceiver) -> MediaSectionAddress {
            MediaSectionAddress(session: answer.id, mid: transceiver.mid)
        }
    }

    /// Everything one transceiver received.
    final class Collected: Sendable {
        private let packets = Recorder<PeerConnection.ReceivedRTP>()
        private let task: Task<Void, Never>

        init(_ transceiver: RTPTransceiver) {
            let store = packets
            let stream = transceiver.received
            task = Task { for await packet in stream { store.append(packet) } }
        }

        var all: [PeerConnection.ReceivedRTP] { packets.values }
        var count: Int { packets.values.count }
        func cancel() { task.cancel() }

        /// The VP8 frames the packets make (in sequence order, RFC 7741 §4.1).
        func frames() -> [VP8AssembledFrame] {
            var depacketizer = VP8Depacketizer()
            var seen = Set<UInt16>()
            let ordered = all.filter { seen.insert($0.sequenceNumber).inserted }.sorted {
                Int16(bitPattern: $0.sequenceNumber &- $1.sequenceNumber) < 0
            }
            return ordered.compactMap { p in
                try? depacketizer.push(sequenceNumber: p.sequenceNumber, timestamp: p.timestamp, marker: p.marker, payload: p.payload[...])
            }
        }
    }

    /// A camera: test pattern frames through libvpx, packetized (RFC 7741) and sent on `transceiver`.
    final class Camera {
        var pattern = TestPattern(width: 320, height: 180)
        let encoder: VP8Encoder
        var packetizer = VP8Packetizer()
        var frame: UInt32 = 0

        init() throws { encoder = try VP8Encoder(width: 320, height: 180, bitrate: 300_000) }

        func send(_ count: Int, to pc: PeerConnection, on transceiver: RTPTransceiver, keyFrameFirst: Bool = false) async throws {
            for i in 0..<count {
                for encoded in try encoder.encode(pattern.next(), keyFrame: keyFrameFirst && i == 0) {
                    pc.sendFrame(packetizer.packetize(encoded.data, maxPayloadSize: 1000), on: transceiver, timestamp: 3_000 * frame)
                }
                frame += 1
                try await Task.sleep(for: .milliseconds(33))  // 30 frames a second: media pacing
            }
        }

        /// Sends frames (at most 300) until `condition` holds: loss recovery needs packets after a
        /// gap to see it, however slow a loaded machine is.
        func send(until condition: () async -> Bool, to pc: PeerConnection, on transceiver: RTPTransceiver) async throws -> Bool {
            for _ in 0..<300 {
                if await condition() { return true }
                try await send(1, to: pc, on: transceiver)
            }
            return await condition()
        }
    }

    @Test(.timeLimit(.minutes(2))) func aPublishersAudioAndVP8ReachASubscribersSlotsThroughTheRoomPlane() async throws {
        let server = try MediaTransportServer()
        let alice = try await Participant.join(server, [(.audio, .sendonly), (.video, .sendonly)])
        let bob = try await Participant.join(server, [(.audio, .recvonly), (.video, .recvonly)])
        let (mic, camera) = (alice.transceivers[0], alice.transceivers[1])
        let (audioSlot, videoSlot) = (bob.transceivers[0], bob.transceivers[1])
        #expect(alice.answer.sending.map(\.mid) == [mic.mid, camera.mid] && alice.answer.receiving.isEmpty)
        #expect(bob.answer.receiving.map(\.mid) == [audioSlot.mid, videoSlot.mid] && bob.answer.sending.isEmpty)
        // Bob's slots learnt the server's SSRCs from the answer, the video one with RTX and NACK.
        let answerMedia = try SessionDescription(parsing: bob.answer.sdp).media
        let videoSlotStats = try #require(await bob.pc.statistics(of: videoSlot))
        #expect(videoSlotStats.remoteSSRC == answerMedia[1].ssrcGroups.first?.ssrcs.first && videoSlotStats.remoteRTXSSRC != nil)
        #expect(videoSlotStats.isNACKNegotiated && videoSlotStats.rtxPayloadType == 97)
        #expect(try #require(await bob.pc.statistics(of: audioSlot)).remoteSSRC == answerMedia[0].ssrcs.first)

        let events = Recorder<TransceiverEvent>()
        let eventStream = alice.pc.transceiverEvents
        let eventTask = Task { for await event in eventStream { events.append(event) } }
        let heard = Collected(audioSlot), seen = Collected(videoSlot)
        #expect(await server.route(alice.address(mic), to: bob.address(audioSlot)))
        #expect(await server.route(alice.address(camera), to: bob.address(videoSlot)))
        // A frame is a packet or two here, so one simulated loss is a large fraction of an RTCP
        // interval's packets: the allocator would switch the slot off. This test is about loss recovery.
        await server.setBandwidthProfile(BandwidthProfile(trackSwitchOffMode: .disabled), session: bob.answer.id)

        // Audio: 20 Opus-sized frames, each recognisable.
        for i in 0..<20 {
            alice.pc.send(payload: [0xFC, UInt8(i)] + [UInt8](repeating: 0x55, count: 60), on: mic, timestamp: UInt32(960 * i),
                          audioLevel: 30)
        }
        // Video: real VP8 frames; the route asked alice for a key frame, and the first one is.
        let cameraSource = try Camera()
        try await cameraSource.send(15, to: alice.pc, on: camera)
        #expect(await eventually { heard.count >= 20 })
        #expect(heard.all.map { $0.payload[1] } == (0..<20).map(UInt8.init), "audio frames in order, each once")
        #expect(Set(heard.all.map(\.ssrc)) == [answerMedia[0].ssrcs[0]], "audio arrives under the slot's SSRC")
        #expect(await eventually { seen.frames().count >= 10 })
        let key = try #require(seen.frames().first { $0.isKeyFrame })
        let decoded = try #require(try VP8Decoder().decode(key.data))
        #expect(decoded.width == 320 && decoded.height == 180)
        #expect(events.values.contains(.keyFrameRequested(mid: camera.mid, rid: nil)), "the route's PLI: \(events.values)")

        // Bob's PLI goes through the SFU to alice's camera (≤ 1 per 200 ms per section).
        try await Task.sleep(for: .milliseconds(250))
        let requestsBefore = try #require(await alice.pc.statistics(of: camera)).sendStreams[0].keyFrameRequests
        bob.pc.requestKeyFrame(videoSlot)
        #expect(await eventually {
            (await alice.pc.statistics(of: camera))?.sendStreams[0].keyFrameRequests ?? 0 > requestsBefore
        })

        // Alice's uplink loses a packet: the server's NACK is answered from her send cache, and
        // bob gets every packet.
        await alice.pc.simulateUplinkLoss(on: camera, packets: 1)
        #expect(try await cameraSource.send(until: { (await alice.pc.statistics(of: camera))?.sendStreams[0].retransmissionsSent ?? 0 >= 1 },
                                           to: alice.pc, on: camera))
        // Bob's downlink loses two: his NACK is answered by the server, as RTX (RFC 4588).
        try await Task.sleep(for: .milliseconds(200))  // the uplink loss's repair settles
        let before = try #require(await bob.pc.statistics(of: videoSlot))
        await bob.pc.simulateDownlinkLoss(on: videoSlot, packets: 2)
        #expect(try await cameraSource.send(until: {
            (await bob.pc.statistics(of: videoSlot))?.retransmissionsReceived ?? 0 >= before.retransmissionsReceived + 2
        }, to: alice.pc, on: camera))
        #expect(try #require(await bob.pc.statistics(of: videoSlot)).nacksSent > before.nacksSent)
        let numbers = Set(seen.all.map(\.sequenceNumber)).sorted { Int16(bitPattern: $0 &- $1) < 0 }
        #expect(numbers.count == Int(numbers.last! &- numbers.first!) + 1, "every video packet arrived in the end")

        eventTask.cancel()
        heard.cancel()
        seen.cancel()
        await alice.pc.close()
        await bob.pc.close()
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(2))) func aReOfferAddsASlotWithoutRestartingTheTransport() async throws {
        let server = try MediaTransportServer()
        let alice = try await Participant.join(server, [(.video, .sendonly)])
        let bob = try await Participant.join(server, [(.video, .recvonly)])
        let camera = alice.transceivers[0], first = bob.transceivers[0]
        let firstSeen = Collected(first)
        #expect(await server.route(alice.address(camera), to: bob.address(first)))
        let cameraSource = try Camera()
        try await cameraSource.send(5, to: alice.pc, on: camera)
        #expect(await eventually { firstSeen.frames().count >= 3 })
        let connectedAt = await bob.pc.statistics().timings.dtlsConnected

        // The server asks for one more video slot (room.renegotiate): bob adds it and re-offers.
        let second = try await bob.pc.addTransceiver(kind: .video, direction: .recvonly)
        let reoffer = try await bob.pc.createOffer()
        let before = try SessionDescription(parsing: bob.offer), after = try SessionDescription(parsing: reoffer)
        #expect(after.media.map(\.mid) == [first.mid, second.mid] && after.bundleGroup(containing: first.mid) == [first.mid, second.mid])
        #expect(after.media[0].iceUfrag == before.media[0].iceUfrag && after.media[0].icePwd == before.media[0].icePwd)
        #expect(after.media[0].fingerprints == before.media[0].fingerprints)
        #expect(after.origin.sessionID == before.origin.sessionID && after.origin.sessionVersion > before.origin.sessionVersion)
        let renegotiated = try await server.renegotiateRoomSession(id: bob.answer.id, offer: reoffer)
        #expect(renegotiated.receiving.map(\.mid) == [first.mid, second.mid])
        try await bob.pc.setRemoteAnswer(renegotiated.sdp)
        #expect(try #require(await bob.pc.statistics(of: second)).remoteSSRC != nil)

        // A second route fills the new slot (the same camera: a second subscription), from a key frame.
        let secondSeen = Collected(second)
        #expect(await server.route(alice.address(camera), to: bob.address(second)))
        try await cameraSource.send(10, to: alice.pc, on: camera, keyFrameFirst: true)
        #expect(await eventually { secondSeen.frames().contains { $0.isKeyFrame } })
        let key = try #require(secondSeen.frames().first { $0.isKeyFrame })
        let decoded = try #require(try VP8Decoder().decode(key.data))
        #expect(decoded.width == 320 && decoded.height == 180)
        #expect(firstSeen.frames().count >= 13, "the first slot goes on")
        let stats = await bob.pc.statistics()
        #expect(stats.state == .connected && stats.timings.dtlsConnected == connectedAt, "no new DTLS handshake")

        // An ICE restart (RFC 8445 §9) with transceivers: new credentials, the same sections, DTLS kept.
        let restart = try SessionDescription(parsing: try await bob.pc.restartICE())
        #expect(restart.media.map(\.mid) == [first.mid, second.mid] && restart.media[0].iceUfrag != after.media[0].iceUfrag)
        let restartAnswer = try await server.renegotiateRoomSession(id: bob.answer.id, offer: restart.serialized())
        try await bob.pc.setRemoteAnswer(restartAnswer.sdp)
        let countBefore = secondSeen.count
        #expect(try await cameraSource.send(until: { secondSeen.count > countBefore + 5 }, to: alice.pc, on: camera))
        #expect(await bob.pc.statistics().timings.dtlsConnected == connectedAt)

        // A second re-offer before the answer is refused.
        _ = try await bob.pc.createOffer()
        await #expect(throws: ParleyError.self) { try await bob.pc.createOffer() }
        firstSeen.cancel()
        secondSeen.cancel()
        await alice.pc.close()
        await bob.pc.close()
        await server.shutdown()
    }
}
