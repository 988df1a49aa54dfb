import ParleyNet
import SDP
import Testing
import WebRTC

/// Audio and video on one bundled transport, end to end: our `PeerConnection` (full ICE, DTLS,
/// SRTP) against the echo of a `MediaTransportServer` and against another `PeerConnection`.
@Suite(.serialized) struct VideoEchoTests {
    /// Waits until `condition` holds or `timeout` passes.
    func poll(timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return await condition()
    }

    /// Collects what arrives on a stream until it finishes.
    func collect(_ stream: AsyncStream<PeerConnection.ReceivedRTP>) -> Task<[PeerConnection.ReceivedRTP], Never> {
        Task {
            var packets: [PeerConnection.ReceivedRTP] = []
            for await packet in stream { packets.append(packet) }
            return packets
        }
    }

    @Test(.timeLimit(.minutes(1))) func videoAndAudioComeBackOnTheirOwnTracks() async throws {
        let server = try MediaTransportServer()
        var configuration = PeerConnection.Configuration()
        configuration.videoCodecs = [.vp8, .h264]
        configuration.rtcpInterval = .milliseconds(200)
        let pc = try PeerConnection(configuration: configuration)
        let offer = try await pc.createOffer()
        let parsed = try SessionDescription(parsing: offer)
        #expect(parsed.bundleGroups == [["0", "1"]])
        #expect(parsed.media.map(\.mediaType) == ["audio", "video"])
        #expect(parsed.media[1].formats == ["96", "102"])
        let answer = try await server.createEchoSession(offer: offer)
        let answered = try SessionDescription(parsing: answer.sdp)
        let audioSSRC = try #require(answered.media[0].ssrcs.first), videoSSRC = try #require(answered.media[1].ssrcs.first)
        #expect(answered.media[1].formats == ["96"])  // our first choice
        try await pc.setRemoteAnswer(answer.sdp)
        #expect(await pc.waitUntilConnected(timeout: .seconds(10)))
        let before = await pc.statistics()
        #expect(before.videoCodec == .vp8 && before.videoPayloadType == 96)
        #expect(before.localVideoSSRC != nil && before.localVideoSSRC != before.localSSRC)

        let audio = collect(pc.audio), video = collect(pc.video)
        for i in 0..<20 {
            let frame = (0..<(300 + i)).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ i) }
            // One video frame in two packets, the marker on the last (RFC 7741 §4.1).
            pc.sendRTP(payload: Array(frame.prefix(150)), payloadType: 96, sequenceNumber: UInt16(2 * i),
                       timestamp: UInt32(3_000 * i), marker: false)
            pc.sendRTP(payload: Array(frame.dropFirst(150)), payloadType: 96, sequenceNumber: UInt16(2 * i + 1),
                       timestamp: UInt32(3_000 * i), marker: true)
            pc.sendAudio(payload: [UInt8](repeating: UInt8(i), count: 40), timestampIncrement: 960)
        }
        let echoed = await poll {
            let s = await pc.statistics()
            return s.videoPacketsReceived >= 40 && s.packetsReceived >= 20 && s.roundTripTimeSamples > 0
        }
        let stats = await pc.statistics()
        let session = await server.session(id: answer.id)
        await pc.close()
        let videoPackets = await video.value, audioPackets = await audio.value
        await server.shutdown()

        #expect(echoed, "video \(stats.videoPacketsReceived)/\(stats.videoPacketsSent), audio \(stats.packetsReceived)")
        #expect(stats.videoPacketsSent == 40 && stats.packetsSent == 20)
        #expect(videoPackets.count == 40 && audioPackets.count == 20)
        #expect(Set(videoPackets.map(\.ssrc)) == [videoSSRC] && Set(audioPackets.map(\.ssrc)) == [audioSSRC])
        #expect(videoPackets.allSatisfy { $0.payloadType == 96 } && audioPackets.allSatisfy { $0.payloadType == 111 })
        // Frames intact, in order, with their markers; numbering continuous on the server's track.
        let frames = stride(from: 0, to: videoPackets.count, by: 2).map { videoPackets[$0].payload + videoPackets[$0 + 1].payload }
        #expect(frames == (0..<20).map { i in (0..<(300 + i)).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ i) } })
        #expect(videoPackets.map(\.marker) == (0..<40).map { $0 % 2 == 1 })
        for (a, b) in zip(videoPackets, videoPackets.dropFirst()) { #expect(b.sequenceNumber == a.sequenceNumber &+ 1) }
        #expect(session?.videoCodec == .vp8 && session?.localVideoSSRC == videoSSRC)
        #expect(session?.counters.rtpEchoed == 60)
        #expect(stats.roundTripTime != nil)  // the server's reports cover our audio stream
    }

    @Test(.timeLimit(.minutes(1))) func peerConnectionsNegotiateVideoOnlyWhenBothTakeIt() async throws {
        var withVideo = PeerConnection.Configuration()
        withVideo.videoCodecs = [.vp9, .vp8]
        let offerer = try PeerConnection(configuration: withVideo)
        var vp8Only = PeerConnection.Configuration()
        vp8Only.videoCodecs = [.vp8]
        let answerer = try PeerConnection(configuration: vp8Only)
        let audioOnly = try PeerConnection()

        let offer = try await offerer.createOffer()
        let rejected = try SessionDescription(parsing: try await audioOnly.createAnswer(toOffer: offer))
        #expect(rejected.media.map(\.isRejected) == [false, true] && rejected.bundleGroups == [["0"]])
        let answer = try await answerer.createAnswer(toOffer: offer)
        let parsed = try SessionDescription(parsing: answer)
        #expect(parsed.bundleGroups == [["0", "1"]] && parsed.media[1].formats == ["96"])  // VP8, the one it takes
        try await offerer.setRemoteAnswer(answer)
        #expect(await offerer.waitUntilConnected(timeout: .seconds(10)))
        #expect(await answerer.waitUntilConnected(timeout: .seconds(10)))
        let received = collect(answerer.video)
        for i in 0..<10 {
            offerer.sendRTP(payload: [UInt8](repeating: UInt8(i), count: 100), payloadType: 96,
                            sequenceNumber: UInt16(i), timestamp: UInt32(3_000 * i), marker: true)
        }
        #expect(await poll { await answerer.statistics().videoPacketsReceived >= 10 })
        let offererStats = await offerer.statistics()
        await offerer.close()
        await answerer.close()
        await audioOnly.close()
        let packets = await received.value
        #expect(packets.map(\.payload) == (0..<10).map { [UInt8](repeating: UInt8($0), count: 100) })
        #expect(Set(packets.map(\.ssrc)) == [offererStats.localVideoSSRC])
    }
}
