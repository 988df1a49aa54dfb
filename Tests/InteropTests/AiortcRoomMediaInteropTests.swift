import Foundation
import Synchronization
import ParleyTestSupport
import Testing
import WebRTC

/// The SFU's data path with aiortc on both ends: a publisher (sendonly Opus tone and VP8 video)
/// and a subscriber (recvonly audio and video slots) each get a room session of a
/// `MediaTransportServer`; routes send the publisher's sections into the subscriber's slots, and
/// the subscriber must decode both: Opus with energy, VP8 frames at the publisher's size (aiortc
/// decodes with libvpx, so a forwarded stream that is not decodable fails here).
///
/// The SDP goes through files (the script prints its offers; the test writes the answers), so
/// this test needs neither signaling nor HTTP. Needs the project venv; without it the test fails.
@Suite(.serialized, .tags(.interop)) struct AiortcRoomMediaInteropTests {
    @Test(.timeLimit(.minutes(1))) func aSubscriberDecodesWhatThePublisherSendsThroughTheForwarder() async throws {
        let server = try MediaTransportServer()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("parley-room-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("room.py")
        try AiortcRoomScript.source.write(to: script, atomically: true, encoding: .utf8)
        let python = Python.packageRoot.appendingPathComponent(".venv/bin/python3").path
        let child = try ChildProcess(executable: python, arguments: [script.path, dir.path, "4"])
        defer { child.kill() }

        let offers = try #require(await child.waitForJSON(key: "offers", timeout: .seconds(20))?["offers"] as? [String: String],
                                  "no offers\n\(child.stderr.suffix(3000))")
        let levels = Levels()
        let publisher = try await server.createRoomSession(offer: try #require(offers["publisher"])) { event in
            if case .audioLevel(_, let mid, let level) = event { levels.list.withLock { $0.append((mid, level)) } }
        }
        let subscriber = try await server.createRoomSession(offer: try #require(offers["subscriber"])) { event in
            if case .quality(_, let quality) = event { levels.quality.withLock { $0.append(quality) } }
        }
        #expect(publisher.sending.map(\.codec) == [.audio(.opus), .video(.vp8)] && publisher.receiving.isEmpty)
        #expect(subscriber.receiving.map(\.codec) == [.audio(.opus), .video(.vp8)] && subscriber.sending.isEmpty)
        for (source, slot) in zip(publisher.sending, subscriber.receiving) {
            #expect(await server.route(MediaSectionAddress(session: publisher.id, mid: source.mid),
                                       to: MediaSectionAddress(session: subscriber.id, mid: slot.mid)))
        }
        let answers = try JSONSerialization.data(withJSONObject: ["publisher": publisher.sdp, "subscriber": subscriber.sdp])
        try answers.write(to: dir.appendingPathComponent("answers.json"), options: .atomic)

        // Counters while both run (the sessions end when aiortc closes).
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, child.isRunning,
              await server.session(id: subscriber.id)?.counters.rtpForwarded ?? 0 < 200 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let publisherSession = await server.session(id: publisher.id)
        let subscriberSession = await server.session(id: subscriber.id)
        let reported = await child.waitForJSON(key: "result", timeout: .seconds(30)) != nil
        let exited = await child.wait(timeout: .seconds(10))
        #expect(reported)
        await server.shutdown()
        #expect(exited, "aiortc did not finish\n\(child.stderr.suffix(3000))")
        let result = try #require(child.jsonLines.last { $0["result"] != nil }?["result"] as? [String: Any],
                                  "no result\nstdout:\n\(child.stdout.suffix(2000))\nstderr:\n\(child.stderr.suffix(3000))")
        print("aiortc room media: \(result)")
        print("aiortc room media: publisher session \(publisherSession.map { "\($0.counters)" } ?? "-")")
        print("aiortc room media: subscriber session \(subscriberSession.map { "\($0.counters)" } ?? "-")")
        let audioFrames = result["audio_frames"] as? Int ?? 0
        let videoFrames = result["video_frames"] as? Int ?? 0
        #expect(audioFrames > 100, "subscriber decoded \(audioFrames) audio frames")
        #expect((result["audio_peak"] as? Double ?? 0) > 0.1, "the tone did not come through")
        #expect(videoFrames > 30, "subscriber decoded \(videoFrames) video frames")
        #expect(result["video_size"] as? [Int] == [640, 480], "video size \(result["video_size"] ?? "-")")
        #expect(publisherSession?.counters.rtpReceived ?? 0 > 0 && subscriberSession?.counters.rtpForwarded ?? 0 > 0)
        // RFC 6464 levels of the publisher's tone (amplitude 0.5: about -9 dBov), ten a second.
        let heard = levels.list.withLock { $0 }
        let values = heard.map { $0.1 }
        print("aiortc room media: \(heard.count) audio levels, \(Set(values).sorted())")
        #expect(heard.count >= 20 && heard.allSatisfy { $0.0 == publisher.sending[0].mid })
        #expect(values.filter { (6...12).contains($0) }.count >= values.count / 2, "levels \(values)")
        #expect(publisher.sdp.contains("urn:ietf:params:rtp-hdrext:ssrc-audio-level"))
        // Once a second, the subscriber's paths: nothing lost on loopback, and a round trip from
        // its reports on our slots (which needs it to read our sender reports).
        let quality = levels.quality.withLock { $0 }
        print("aiortc room media: subscriber quality \(quality)")
        #expect(quality.count >= 2 && quality.allSatisfy { $0.downlinkLoss == 0 && $0.uplinkLoss == 0 })
        #expect(quality.contains { $0.roundTripTime != nil }, "no round trip: aiortc did not read our sender reports")
    }

    final class Levels: Sendable {
        let list = Mutex<[(String, UInt8)]>([])
        let quality = Mutex<[PeerSessionQuality]>([])
    }
}

enum AiortcRoomScript {
    static let source = AiortcScriptPrelude.source(frequency: 440) + #"""
import os
from aiortc import VideoStreamTrack

async def main(handoff, seconds):
    cfg = RTCConfiguration(iceServers=[])
    pub, sub = RTCPeerConnection(cfg), RTCPeerConnection(cfg)
    t0 = time.perf_counter()
    res = {"publisher": {}, "subscriber": {}}
    pub_up, sub_up = watch(pub, res["publisher"], t0), watch(sub, res["subscriber"], t0)
    pub.addTransceiver(Tone(), direction="sendonly")
    pub.addTransceiver(VideoStreamTrack(), direction="sendonly")
    sub.addTransceiver("audio", direction="recvonly")
    sub.addTransceiver("video", direction="recvonly")
    got = {}
    tally(sub, got, t0)

    await pub.setLocalDescription(await pub.createOffer())
    await sub.setLocalDescription(await sub.createOffer())
    print(json.dumps({"offers": {"publisher": pub.localDescription.sdp, "subscriber": sub.localDescription.sdp}}), flush=True)
    path = os.path.join(handoff, "answers.json")
    while not os.path.exists(path):
        await asyncio.sleep(0.02)
    with open(path) as f:
        answers = json.load(f)
    got["answers_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    await pub.setRemoteDescription(RTCSessionDescription(sdp=answers["publisher"], type="answer"))
    await sub.setRemoteDescription(RTCSessionDescription(sdp=answers["subscriber"], type="answer"))
    await asyncio.wait_for(asyncio.gather(pub_up.wait(), sub_up.wait()), 15)
    await asyncio.sleep(seconds)
    got["states"] = res
    print(json.dumps({"result": got}), flush=True)
    await pub.close()
    await sub.close()

asyncio.run(main(sys.argv[1], float(sys.argv[2])))
"""#
}
