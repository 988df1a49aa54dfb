import ParleyCore
import ParleyVPX
import SDP
import Testing
import VideoCore
import VP8
import WebRTC

/// A simulcast transceiver (RFC 8853) through the room plane: the publisher's client sends two
/// VP8 layers on SSRCs it never announced, each packet naming its mid and rid (RFC 8852 §3) as the
/// answer took them; the server binds each SSRC to its layer, and the subscriber's slot carries the
/// largest, which decodes at that layer's size. Key frame requests name the layer asked of.
@Suite(.serialized) struct TransceiverSimulcastTests {
    /// One layer: its rid, a test pattern and an encoder of its size.
    final class Layer {
        let rid: String
        var pattern: TestPattern
        let encoder: VP8Encoder
        var packetizer = VP8Packetizer()

        init(rid: String, width: Int, height: Int) throws {
            self.rid = rid
            pattern = TestPattern(width: width, height: height)
            encoder = try VP8Encoder(width: width, height: height, bitrate: width * height * 2)
        }
    }

    @Test(.timeLimit(.minutes(2))) func theSlotCarriesTheLargestLayerTheClientSendsByRid() async throws {
        let server = try MediaTransportServer()
        let alice = try PeerConnection()
        let camera = try await alice.addTransceiver(kind: .video, direction: .sendonly, sendEncodings: ["q", "h"])
        let aliceAnswer = try await server.createRoomSession(offer: try await alice.createOffer()) { _ in }
        #expect(aliceAnswer.sdp.contains("a=simulcast:recv q;h"), "answer:\n\(aliceAnswer.sdp)")
        try await alice.setRemoteAnswer(aliceAnswer.sdp)
        let bob = try PeerConnection()
        let slot = try await bob.addTransceiver(kind: .video, direction: .recvonly)
        let bobAnswer = try await server.createRoomSession(offer: try await bob.createOffer()) { _ in }
        try await bob.setRemoteAnswer(bobAnswer.sdp)
        #expect(await alice.waitUntilConnected(timeout: .seconds(10)))
        #expect(await bob.waitUntilConnected(timeout: .seconds(10)))
        let events = Recorder<TransceiverEvent>()
        let eventStream = alice.transceiverEvents
        let eventTask = Task { for await event in eventStream { events.append(event) } }
        let received = Recorder<PeerConnection.ReceivedRTP>()
        let stream = slot.received
        let collector = Task { for await packet in stream { received.append(packet) } }
        #expect(await server.route(MediaSectionAddress(session: aliceAnswer.id, mid: camera.mid),
                                   to: MediaSectionAddress(session: bobAnswer.id, mid: slot.mid)))

        let layers = [try Layer(rid: "q", width: 320, height: 180), try Layer(rid: "h", width: 640, height: 360)]
        func largestKeyFrame() throws -> I420Frame? {
            var depacketizer = VP8Depacketizer()
            for packet in received.values {
                guard let frame = try? depacketizer.push(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                                                         marker: packet.marker, payload: packet.payload[...]),
                      frame.isKeyFrame, let image = try VP8Decoder().decode(frame.data), image.width == 640 else { continue }
                return image
            }
            return nil
        }
        var frame: UInt32 = 0
        while frame < 150, try largestKeyFrame() == nil {
            for layer in layers {
                // A key frame a second on each layer: the slot switches up at the larger one's.
                for encoded in try layer.encoder.encode(layer.pattern.next(), keyFrame: frame % 30 == 0) {
                    alice.sendFrame(layer.packetizer.packetize(encoded.data), on: camera, rid: layer.rid, timestamp: 3_000 * frame)
                }
            }
            frame += 1
            try await Task.sleep(for: .milliseconds(33))  // media pacing
        }
        let image = try #require(try largestKeyFrame(), "no 640x360 key frame after \(frame) frames")
        #expect(image.height == 360)
        #expect(Set(received.values.map(\.ssrc)).count == 1, "one stream in the slot")
        // The route's key frame requests named a layer of the camera.
        #expect(events.values.contains { if case .keyFrameRequested(camera.mid, let rid?) = $0 { ["q", "h"].contains(rid) } else { false } },
                "\(events.values)")
        let stats = try #require(await alice.statistics(of: camera))
        #expect(stats.sendStreams.map(\.rid) == ["q", "h"] && stats.sendStreams.allSatisfy { $0.packetsSent >= 10 })
        eventTask.cancel()
        collector.cancel()
        await alice.close()
        await bob.close()
        await server.shutdown()
    }
}
