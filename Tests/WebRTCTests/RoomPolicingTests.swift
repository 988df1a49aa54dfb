import Foundation
import SFU
import Testing
import WebRTC

/// What one room participant may cost the others, on real sockets: a publisher past its bitrate
/// cap is cut to its allowance, and a subscriber flooding PLIs and NACKs reaches its publisher at
/// most once per 200 ms (RFC 4585 §3.5) and gets retransmissions within its allowance.
@Suite(.serialized) struct RoomPolicingTests {
    typealias Participant = TransceiverRoomTests.Participant
    typealias Collected = TransceiverRoomTests.Collected

    /// A one-packet VP8 key frame (RFC 7741 §4.2: X, S, a 15-bit picture ID; P=0) of `size` bytes.
    static func keyFrame(picture: Int, size: Int) -> [UInt8] {
        [0x90, 0x80, 0x80 | UInt8((picture >> 8) & 0x7F), UInt8(picture & 0xFF), 0x10] + [UInt8](repeating: 7, count: size - 5)
    }

    static func bytes(_ collected: Collected) -> Int { collected.all.reduce(0) { $0 + $1.payload.count } }

    /// Alice ignores REMB and sends about 5 Mbit/s of video and 800 kbit/s of audio against a 500 kbit/s
    /// cap; carol publishes within it. Bob gets alice's video within 1.5 × the cap (plus a second's
    /// burst) and her audio within 256 kbit/s; dave gets all of carol's.
    @Test(.timeLimit(.minutes(2))) func aPublisherPastItsCapIsCutToItsAllowance() async throws {
        var configuration = MediaTransportServer.Configuration()
        configuration.roomPublishBitrate = 500_000
        let server = try MediaTransportServer(configuration: configuration)
        let alice = try await Participant.join(server, [(.audio, .sendonly), (.video, .sendonly)])
        let carol = try await Participant.join(server, [(.audio, .sendonly), (.video, .sendonly)])
        let bob = try await Participant.join(server, [(.audio, .recvonly), (.video, .recvonly)])
        let dave = try await Participant.join(server, [(.audio, .recvonly), (.video, .recvonly)])
        for (publisher, subscriber) in [(alice, bob), (carol, dave)] {
            for i in 0..<2 {
                #expect(await server.route(publisher.address(publisher.transceivers[i]), to: subscriber.address(subscriber.transceivers[i])))
            }
            await server.setBandwidthProfile(BandwidthProfile(trackSwitchOffMode: .disabled), session: subscriber.answer.id)
        }
        let bobAudio = Collected(bob.transceivers[0]), bobVideo = Collected(bob.transceivers[1])
        let daveAudio = Collected(dave.transceivers[0]), daveVideo = Collected(dave.transceivers[1])

        let start = ContinuousClock.now
        var (aliceBytes, carolPackets) = (0, (audio: 0, video: 0))
        for tick in 0..<200 {  // 10 ms ticks: media pacing
            for k in 0..<5 {
                let frame = Self.keyFrame(picture: tick * 5 + k, size: 1_200)
                alice.pc.send(payload: frame, on: alice.transceivers[1], timestamp: UInt32(900 * (tick * 5 + k)), marker: true)
                aliceBytes += frame.count
            }
            alice.pc.send(payload: [UInt8](repeating: 0x55, count: 1_000), on: alice.transceivers[0], timestamp: UInt32(480 * tick))
            if tick % 2 == 0 {  // 160-byte Opus frames every 20 ms: 64 kbit/s
                carol.pc.send(payload: [0xFC] + [UInt8](repeating: 0x55, count: 159), on: carol.transceivers[0], timestamp: UInt32(480 * tick))
                carolPackets.audio += 1
            }
            if tick % 3 == 0 {  // a 1,200-byte frame every 30 ms: 320 kbit/s
                carol.pc.send(payload: Self.keyFrame(picture: tick, size: 1_200), on: carol.transceivers[1], timestamp: UInt32(900 * tick),
                              marker: true)
                carolPackets.video += 1
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let sendTime = (ContinuousClock.now - start) / .seconds(1)
        // Everything sent has arrived once bob's counts stand still.
        var settled = (-1, -1)
        for _ in 0..<100 where settled != (bobVideo.count, bobAudio.count) {
            settled = (bobVideo.count, bobAudio.count)
            try await Task.sleep(for: .milliseconds(200))
        }
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        let videoAllowance = 1.5 * 500_000 / 8, audioAllowance = 256_000.0 / 8
        let (videoForwarded, audioForwarded) = (Self.bytes(bobVideo), Self.bytes(bobAudio))
        print("publish cap: alice sent \(aliceBytes) video bytes in \(sendTime) s (\(Double(aliceBytes) * 8 / sendTime / 1e6) Mbit/s); "
              + "bob got \(videoForwarded) video bytes (\(Double(videoForwarded) * 8 / elapsed / 1e3) kbit/s over \(elapsed) s) and "
              + "\(audioForwarded) audio bytes (\(Double(audioForwarded) * 8 / elapsed / 1e3) kbit/s)")
        #expect(Double(videoForwarded) <= videoAllowance * (elapsed + 1), "within 1.5 × the cap, plus a second's burst")
        #expect(Double(videoForwarded) >= videoAllowance * sendTime / 3, "the allowance is forwarded")
        #expect(Double(audioForwarded) <= audioAllowance * (elapsed + 1))
        let aliceCounters = try #require(await server.session(id: alice.answer.id)).counters
        #expect(aliceCounters.publishOverRate > 0)
        #expect(await server.statistics().sessionTotals.publishOverRate == aliceCounters.publishOverRate, "in /metrics")
        // Carol, within her cap, lost nothing to it.
        #expect(try #require(await server.session(id: carol.answer.id)).counters.publishOverRate == 0)
        let carolSent = carolPackets
        #expect(await eventually { daveAudio.count >= carolSent.audio * 9 / 10 && daveVideo.count >= carolSent.video * 9 / 10 },
                "dave: \(daveAudio.count) of \(carolSent.audio) audio, \(daveVideo.count) of \(carolSent.video) video packets")
        for collected in [bobAudio, bobVideo, daveAudio, daveVideo] { collected.cancel() }
        for p in [alice, carol, bob, dave] { await p.pc.close() }
        await server.shutdown()
    }

    /// Bob floods alice's track with 1,000 PLIs and 1,000 NACKs a second for 2 s: alice gets at
    /// most 5 PLIs a second (+1), and bob at most his allowance of retransmissions (300 a second,
    /// 300 at once); the rest is counted as throttled and refused.
    @Test(.timeLimit(.minutes(2))) func aPLIAndNACKFloodIsThrottled() async throws {
        let server = try MediaTransportServer()
        let alice = try await Participant.join(server, [(.video, .sendonly)])
        let bob = try await Participant.join(server, [(.video, .recvonly)])
        let (camera, slot) = (alice.transceivers[0], bob.transceivers[0])
        #expect(await server.route(alice.address(camera), to: bob.address(slot)))
        await server.setBandwidthProfile(BandwidthProfile(trackSwitchOffMode: .disabled), session: bob.answer.id)
        let seen = Collected(slot)
        var picture = 0
        func sendVideo() {  // a 500-byte frame (one packet)
            alice.pc.send(payload: Self.keyFrame(picture: picture, size: 500), on: camera, timestamp: UInt32(900 * picture), marker: true)
            picture += 1
        }
        for _ in 0..<30 {
            sendVideo()
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await eventually { seen.count >= 20 })
        let slotStats = try #require(await bob.pc.statistics(of: slot))
        let slotSSRC = try #require(slotStats.remoteSSRC)
        try await Task.sleep(for: .milliseconds(250))  // the route's PLI is past its 200 ms
        let plisBefore = try #require(await alice.pc.statistics(of: camera)).sendStreams[0].keyFrameRequests
        let bobBefore = try #require(await server.session(id: bob.answer.id)).counters
        let retransmittedBefore = try #require(await bob.pc.statistics(of: slot)).retransmissionsReceived

        // Every 10 ms tick, a PLI and a NACK per millisecond since the start (1,000 a second however
        // late the tick), each NACK for 10 of the last 100 packets bob got.
        let start = ContinuousClock.now
        var (plis, nacks) = (0, 0)
        while ContinuousClock.now - start < .seconds(2) {
            sendVideo()
            let recent = Array(Set(seen.all.map(\.sequenceNumber)).sorted { Int16(bitPattern: $0 &- $1) < 0 }.suffix(100))
            let due = Int((ContinuousClock.now - start) / .milliseconds(1)) + 1 - plis
            for i in 0..<max(due, 0) {
                bob.pc.requestKeyFrame(slot)
                let part = Array(recent.dropFirst((i % 10) * 10).prefix(10))
                if !part.isEmpty { bob.pc.sendNACK(mediaSSRC: slotSSRC, sequenceNumbers: part) }
                (plis, nacks) = (plis + 1, nacks + 1)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let floodTime = (ContinuousClock.now - start) / .seconds(1)
        try await Task.sleep(for: .milliseconds(300))  // what is on its way arrives
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        let plisAtAlice = try #require(await alice.pc.statistics(of: camera)).sendStreams[0].keyFrameRequests - plisBefore
        let bobAfter = try #require(await server.session(id: bob.answer.id)).counters
        let aliceCounters = try #require(await server.session(id: alice.answer.id)).counters
        let retransmitted = bobAfter.retransmissionsSent - bobBefore.retransmissionsSent
        let refused = bobAfter.retransmissionsRefused - bobBefore.retransmissionsRefused
        let received = try #require(await bob.pc.statistics(of: slot)).retransmissionsReceived - retransmittedBefore
        print("flood: \(plis) PLIs and \(nacks) NACKs in \(floodTime) s (\(Double(plis) / floodTime)/s each); alice got \(plisAtAlice) PLIs "
              + "(\(Double(plisAtAlice) / elapsed)/s), \(aliceCounters.keyframeRequestsThrottled) throttled; bob got \(retransmitted) "
              + "retransmissions (\(received) seen, \(Double(retransmitted) / elapsed)/s), \(refused) refused")
        #expect(Double(plis) / floodTime >= 900, "a flood: \(plis) in \(floodTime) s")
        #expect(plisAtAlice >= 1 && Double(plisAtAlice) <= elapsed / 0.2 + 2, "≤ 5 a second, +1")
        #expect(aliceCounters.keyframeRequestsThrottled > 0)
        #expect(retransmitted > 0 && Double(retransmitted) <= 300 + 300 * elapsed, "the allowance: 300 a second, 300 at once")
        #expect(received <= retransmitted && refused > 0)
        seen.cancel()
        for p in [alice, bob] { await p.pc.close() }
        await server.shutdown()
    }
}
