import ParleyRTP
import ParleySRTP
import RTCP
import RTP
import Testing

/// One RTP session for every kind of leg: streams per SSRC, reception statistics, compound RTCP
/// and SRTP, on a virtual clock (seconds) and virtual NTP time.
@Suite struct RTPSessionTests {
    @Test func plainRTPKeepsOneReceiveStreamPerSSRCAndRoutesByPayloadType() throws {
        var session = RTPTestSupport.plainSession()
        #expect(session.isReady)
        for i in 0..<10 {
            var audio = RTPTestSupport.packet(pt: 111, seq: UInt16(100 + i), ts: UInt32(960 * i), ssrc: 0xA)
            let a = try RTPTestSupport.receive(&session, &audio, length: 32, arrival: 0.02 * Double(i))
            #expect(a.ssrc == 0xA && a.format == RTPTestSupport.opus)
            var video = RTPTestSupport.packet(pt: 96, seq: UInt16(7 + i), ts: UInt32(3000 * i), ssrc: 0xB)
            let v = try RTPTestSupport.receive(&session, &video, length: 32, arrival: 0.02 * Double(i) + 0.01)
            #expect(v.format?.kind == .video && v.format?.section == 1)
        }
        var unknown = RTPTestSupport.packet(pt: 77, seq: 1, ts: 1, ssrc: 0xC)
        #expect(try RTPTestSupport.receive(&session, &unknown, length: 32, arrival: 1).format == nil)
        #expect(session.receiveStreams.map(\.ssrc) == [0xA, 0xB, 0xC])
        #expect(session.receiveStreams.map(\.clockRate) == [48_000, 90_000, 48_000])
        #expect(session.receiveStreams[0].statistics.packetsReceived == 10)
        #expect(session.receiveStreams[1].statistics.extendedHighestSequence == 16)
        #expect(session.latestReceiveStream(section: 0)?.ssrc == 0xA)
        #expect(session.latestReceiveStream()?.ssrc == 0xC)
        #expect(session.latestReceiveStream(section: 1)?.ssrc == 0xB)
    }

    @Test func receiveStreamsAreBoundedAndTheLongestSilentIsReplaced() throws {
        var session = RTPTestSupport.plainSession(maxReceiveStreams: 2)
        for (i, ssrc) in [UInt32(1), 2, 1, 3].enumerated() {
            var bytes = RTPTestSupport.packet(pt: 111, seq: UInt16(i), ts: 0, ssrc: ssrc)
            _ = try RTPTestSupport.receive(&session, &bytes, length: 32, arrival: Double(i))
        }
        #expect(session.receiveStreams.count == 2)
        #expect(Set(session.receiveStreams.map(\.ssrc)) == [1, 3])  // 2 was silent longest
        #expect(session.receiveStreamsCreated == 3 && session.receiveStreamsEvicted == 1)
    }

    @Test func refusalsAreTypedAndCheap() throws {
        var unkeyed = RTPSession(configuration: .init(cname: "x"))
        #expect(!unkeyed.isReady)
        var bytes = RTPTestSupport.packet(pt: 111, seq: 1, ts: 1, ssrc: 1)
        #expect(throws: RTPSessionError.notKeyed) { try RTPTestSupport.receive(&unkeyed, &bytes, length: 32, arrival: 0) }
        #expect(throws: RTPSessionError.notKeyed) { try RTPTestSupport.protect(unkeyed, &bytes, length: 32) }
        var plain = RTPTestSupport.plainSession()
        var short: [UInt8] = [0x80, 111, 0, 1]
        #expect(throws: RTPSessionError.malformedRTP(.truncated(needed: 12, available: 4))) {
            try RTPTestSupport.receive(&plain, &short, length: 4, arrival: 0)
        }
        #expect(throws: RTPSessionError.tooLarge(needed: 99, available: 4)) {
            try RTPTestSupport.receive(&plain, &short, length: 99, arrival: 0)
        }
        let (alice, _) = try RTPTestSupport.keyedPair()
        var forged = RTPTestSupport.packet(pt: 111, seq: 1, ts: 1, ssrc: 1)
        var bob = alice  // alice's own keys cannot unprotect what claims to come from bob
        #expect(throws: RTPSessionError.srtp(.authenticationFailed)) {
            try RTPTestSupport.receive(&bob, &forged, length: 48, arrival: 0)
        }
    }

    @Test(arguments: SRTPProfile.allCases)
    func srtpBothWaysWithReportsAndRoundTripTime(profile: SRTPProfile) throws {
        var (alice, bob) = try RTPTestSupport.keyedPair(profile)
        let audio = alice.addSendStream(ssrc: 0xA1, clockRate: 48_000, section: 0)
        bob.addSendStream(ssrc: 0xB1, clockRate: 48_000, section: 0)
        // Alice sends 50 packets, 2 lost on the way.
        for i in 0..<50 {
            var bytes = RTPTestSupport.packet(pt: 111, seq: UInt16(1000 + i), ts: UInt32(960 * i), ssrc: 0xA1)
            let length = try RTPTestSupport.protect(alice, &bytes, length: 32)
            alice.noteSent(stream: audio, timestamp: UInt32(960 * i), payloadBytes: 20, now: 0.02 * Double(i))
            guard i != 10, i != 11 else { continue }
            _ = try RTPTestSupport.receive(&bob, &bytes, length: length, arrival: 0.02 * Double(i) + 0.005)
        }
        #expect(alice.sendStreams[0].packetsSent == 50 && alice.sendStreams[0].payloadOctetsSent == 1000)
        // Alice's SR at 1.0 s (NTP 1.0), read by Bob at 1.05 s.
        let fromAlice = try alice.reportDatagram(now: 1.0, ntp: RTPTestSupport.ntp(1.0))
        let read = try RTPTestSupport.receiveRTCP(&bob, fromAlice, arrival: 1.05, arrivalNTP: RTPTestSupport.ntp(1.05))
        #expect(read.senderReports == 1 && read.reportBlocksOnOurStreams == 0)
        // Bob reports 0.25 s later (DLSR 0.2 s); Alice reads it 0.05 s after: RTT 0.1 s.
        let report = bob.makeReports(now: 1.25, ntp: RTPTestSupport.ntp(1.25))
        guard case .receiverReport(let rr) = report.first else {
            Issue.record("Bob has sent nothing: an RR first, got \(report)")
            return
        }
        let block = try #require(rr.reports.first)
        #expect(rr.ssrc == 0xB1 && block.ssrc == 0xA1)
        #expect(block.totalLost == 2 && block.extendedHighestSequenceNumber == 1049)
        #expect(block.lastSenderReport == NTPTime.compact(RTPTestSupport.ntp(1.0)))
        let fromBob = try bob.reportDatagram(now: 1.25, ntp: RTPTestSupport.ntp(1.25))
        let back = try RTPTestSupport.receiveRTCP(&alice, fromBob, arrival: 1.3, arrivalNTP: RTPTestSupport.ntp(1.3))
        #expect(back.receiverReports == 1 && back.reportBlocksOnOurStreams == 1)
        let stream = alice.sendStreams[0]
        #expect(stream.remoteReport?.totalLost == 2)
        #expect(stream.roundTripTimeSamples == 1)
        let rtt = try #require(stream.roundTripTime)
        #expect(rtt > .milliseconds(99) && rtt < .milliseconds(101), "RTT \(rtt)")
        // Forged or replayed SRTCP is refused.
        #expect(throws: RTPSessionError.self) {
            try RTPTestSupport.receiveRTCP(&alice, fromBob, arrival: 1.4, arrivalNTP: RTPTestSupport.ntp(1.4))
        }
    }

    @Test func compoundReportsCoverEverySSRCInOnePlace() throws {
        var session = RTPTestSupport.plainSession(cname: "parley-x")
        // Nothing sent and no stream: an RR from the receiver SSRC, and its CNAME.
        let idle = session.makeReports(now: 0, ntp: RTPTestSupport.ntp(0))
        #expect(idle.count == 2)
        guard case .receiverReport(let rr) = idle[0], case .sourceDescription(let sdes) = idle[1] else {
            Issue.record("\(idle)")
            return
        }
        #expect(rr.ssrc == session.receiverSSRC && rr.reports.isEmpty)
        #expect(sdes.chunks.map(\.source) == [session.receiverSSRC])
        #expect(sdes.chunks.first?.items.first == .init(type: .cname, "parley-x"))

        let audio = session.addSendStream(ssrc: 0xA, clockRate: 48_000, section: 0)
        let video = session.addSendStream(clockRate: 90_000, section: 1)
        #expect(session.sendStreams[video].ssrc != 0xA && session.sendStreamIndex(section: 1) == video)
        for (i, ssrc) in [UInt32(0x100), 0x200].enumerated() {
            var bytes = RTPTestSupport.packet(pt: 111, seq: 1, ts: 1, ssrc: ssrc)
            _ = try RTPTestSupport.receive(&session, &bytes, length: 32, arrival: Double(i))
        }
        // Only video has sent: RR from the first (audio) SSRC with both blocks, an SR for video.
        session.noteSent(stream: video, timestamp: 90_000, payloadBytes: 1000, now: 1)
        let packets = session.makeReports(now: 2, ntp: RTPTestSupport.ntp(2))
        guard packets.count == 3, case .receiverReport(let first) = packets[0], case .senderReport(let sr) = packets[1],
              case .sourceDescription(let both) = packets[2] else {
            Issue.record("\(packets)")
            return
        }
        #expect(first.ssrc == 0xA && first.reports.map(\.ssrc) == [0x100, 0x200])
        #expect(sr.ssrc == session.sendStreams[video].ssrc && sr.reports.isEmpty)
        #expect(sr.rtpTimestamp == 90_000 + 90_000)  // extrapolated one second on the 90 kHz clock
        #expect(sr.packetCount == 1 && sr.octetCount == 1000)
        #expect(both.chunks.map(\.source) == [0xA, session.sendStreams[video].ssrc])
        // Once audio has sent, it leads with an SR; streams silent past the timeout drop out.
        session.noteSent(stream: audio, timestamp: 0, payloadBytes: 10, now: 2)
        let later = session.makeReports(now: 10.5, ntp: RTPTestSupport.ntp(10.5))
        guard case .senderReport(let lead) = later[0] else {
            Issue.record("\(later)")
            return
        }
        #expect(lead.ssrc == 0xA && lead.reports.map(\.ssrc) == [0x200])  // 0x100 last heard at 0 s
        #expect(RTCPPacket.serialized(later).count == RTCPPacket.serializedSize(of: later))
    }

    @Test func keyframeRequestsAreReadAndRelayedAsPLI() throws {
        var (alice, bob) = try RTPTestSupport.keyedPair()
        let video = alice.addSendStream(ssrc: 0xF1, clockRate: 90_000, section: 1)
        bob.addSendStream(ssrc: 0xB1, clockRate: 90_000, section: 1)
        let pli = try alice.keyframeRequestDatagram(from: video, to: 0xB1)
        let summary = try RTPTestSupport.receiveRTCP(&bob, pli, arrival: 0, arrivalNTP: RTPTestSupport.ntp(0))
        #expect(summary.keyframeRequests == [0xB1] && summary.receiverReports == 1 && !summary.malformed)
        // FIR entries count as requests too; plain RTP carries the compound as it is.
        var plain = RTPTestSupport.plainSession()
        let fir = RTCPPacket.serialized([
            .receiverReport(ReceiverReport(ssrc: 9)),
            .fullIntraRequest(FullIntraRequest(senderSSRC: 9, entries: [.init(ssrc: 0xC1, sequenceNumber: 1),
                                                                        .init(ssrc: 0xC2, sequenceNumber: 1)])),
        ])
        #expect(try RTPTestSupport.receiveRTCP(&plain, fir, arrival: 0, arrivalNTP: 0).keyframeRequests == [0xC1, 0xC2])
        #expect(throws: RTPSessionError.noSuchStream(5)) { try alice.keyframeRequestDatagram(from: 5, to: 1) }
        let stream = plain.addSendStream(clockRate: 90_000, section: 1)
        let unprotected = try RTCPPacket.parseCompound(try plain.keyframeRequestDatagram(from: stream, to: 0xC1))
        #expect(unprotected.count == 3)
        if case .pictureLossIndication(let request) = unprotected[1] { #expect(request.mediaSSRC == 0xC1) }
    }

    @Test func malformedCompoundRTCPIsReadUpToTheBadPacket() throws {
        var session = RTPTestSupport.plainSession()
        var other = RTPTestSupport.plainSession()
        let good = RTCPPacket.serialized(other.makeReports(now: 0, ntp: RTPTestSupport.ntp(0)))
        let summary = try RTPTestSupport.receiveRTCP(&session, good + [0x80, 200, 0xFF, 0xFF], arrival: 0,
                                                     arrivalNTP: RTPTestSupport.ntp(0))
        #expect(summary.receiverReports == 1 && summary.malformed)
        #expect(try RTPTestSupport.receiveRTCP(&session, [0x80, 201, 0, 9, 1, 2, 3, 4], arrival: 0,
                                               arrivalNTP: 0).malformed)
    }
}
