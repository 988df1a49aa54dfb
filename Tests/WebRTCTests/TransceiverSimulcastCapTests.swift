import ParleyCore
import ParleyVPX
import SFU
import Testing
import VideoCore
import VP8
import WebRTC

/// A client's simulcast layers under a subscriber's cap: with `maxSubscriptionBitrate` between the
/// two layers' rates the allocator moves the slot to the smaller one, which the subscriber decodes
/// (the layer moves of an SDK publisher, without the interop test's network).
@Suite(.serialized) struct TransceiverSimulcastCapTests {
    @Test(.timeLimit(.minutes(2))) func aCappedSubscriberGetsTheSmallerLayer() async throws {
        let server = try MediaTransportServer()
        let alice = try PeerConnection()
        let camera = try await alice.addTransceiver(kind: .video, direction: .sendonly, sendEncodings: ["q", "h"])
        let aliceAnswer = try await server.createRoomSession(offer: try await alice.createOffer()) { _ in }
        try await alice.setRemoteAnswer(aliceAnswer.sdp)
        let bob = try PeerConnection()
        let slot = try await bob.addTransceiver(kind: .video, direction: .recvonly)
        let bobAnswer = try await server.createRoomSession(offer: try await bob.createOffer()) { _ in }
        try await bob.setRemoteAnswer(bobAnswer.sdp)
        #expect(await alice.waitUntilConnected(timeout: .seconds(10)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(10)))
        await server.setBandwidthProfile(BandwidthProfile(maxSubscriptionBitrate: 1_000_000), session: bobAnswer.id)
        let sizes = Recorder<Int>()
        let stream = slot.received
        let collector = Task {
            var depacketizer = VP8Depacketizer()
            for await packet in stream {
                guard let frame = try? depacketizer.push(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                                         marker: packet.marker, payload: packet.payload[...]),
                      frame.isKeyFrame, let image = try? VP8Decoder().decode(frame.data) else { continue }
                sizes.append(image.width)
            }
        }
        #expect(await server.route(MediaSectionAddress(session: aliceAnswer.id, mid: camera.mid),
                                   to: MediaSectionAddress(session: bobAnswer.id, mid: slot.mid)))
        // Grain and a key frame a second keep the layers apart: q at about 0.5 Mbit/s, h at about
        // 1.8 Mbit/s as the server measures them, so only q fits the 1 Mbit/s cap.
        let encoders = [("q", try VP8Encoder(width: 320, height: 180, bitrate: 100_000)),
                        ("h", try VP8Encoder(width: 640, height: 360, bitrate: 600_000))]
        var patterns = [TestPattern(width: 320, height: 180), TestPattern(width: 640, height: 360)]
        var packetizers = [VP8Packetizer(), VP8Packetizer()]
        let events = alice.transceiverEvents
        let keyFrames = Recorder<String>()
        let watcher = Task { for await event in events { if case .keyFrameRequested(_, let rid?) = event { keyFrames.append(rid) } } }
        for frame in 0..<120 {
            for (index, (rid, encoder)) in encoders.enumerated() {
                var picture = patterns[index].next()
                for i in stride(from: 0, to: picture.y.count, by: 7) { picture.y[i] = UInt8.random(in: 0...255) }
                let asked = keyFrames.values.contains(rid)
                for encoded in try encoder.encode(picture, keyFrame: frame % 30 == 0 || asked) {
                    alice.sendFrame(packetizers[index].packetize(encoded.data), on: camera, rid: rid, timestamp: 3_000 * UInt32(frame))
                }
            }
            keyFrames.removeAll()
            try await Task.sleep(for: .milliseconds(33))
        }
        print("capped subscriber decoded key frames of widths \(sizes.values)")
        #expect(sizes.values.contains(320), "the smaller layer reaches the capped subscriber: \(sizes.values)")
        #expect(!sizes.values.suffix(2).contains(640), "and the larger does not stay: \(sizes.values)")
        collector.cancel()
        watcher.cancel()
        await alice.close()
        await bob.close()
        await server.shutdown()
    }
}
