import Glibc
import ICE
import ParleyCore
import ParleyNet
import ParleyRTP
import RTCP
import RTP

extension PeerSession {
    /// An SRTP packet, in place in the socket's receive slot: unprotected and recorded by the RTP
    /// session, then written once into a send-batch slot for the track of its section (our SSRC;
    /// sequence number and timestamp by the track's munger, so gaps and pacing carry over; RED kept
    /// or added as the track decides) and protected there for the selected pair. Nothing allocates; the caller
    /// flushes the batch once per receive batch. Returns the number of datagrams queued (0 or 1).
    func receiveEchoRTP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                        out: inout [Datagram], batch: UDPSendBatch) -> Int {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: datagram.address, now: now, out: &out)
        let received = datagram.bytes.count
        guard state == .connected,
              received + rtp.trailerLength <= min(datagram.slot.count, batch.maxDatagramBytes) else {
            counters.mediaDropped += 1
            return 0
        }
        let packet: RTPReceivedPacket
        do { packet = try rtp.receiveRTP(datagram.slot, length: received, arrival: now) } catch {
            count(error)
            return 0
        }
        let view = packet.view
        guard let format = packet.format, let track = trackIndex(section: format.section) else {
            counters.mediaDropped += 1
            return 0
        }
        counters.rtpReceived += 1
        // Our own RED comes back whole; a plain frame is wrapped when our track adds redundancy.
        var frame = view.payload
        if format.kind == .redundantAudio {
            guard let red = try? REDPayloadView(view.payload) else {
                counters.mediaDropped += 1
                return 0
            }
            counters.redReceived += 1
            frame = red.primary.data
        }
        guard case .send(let update) = tracks[track].forward(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber,
                                                             timestamp: view.timestamp, marker: view.marker,
                                                             kind: format.kind, now: now),
              let payloadBytes = queuePacket(update, track: track, source: view, frame: frame,
                                             to: selectedSocketAddress ?? datagram.address, now: now, batch: batch) else {
            counters.mediaDropped += 1
            return 0
        }
        rtp.noteSent(stream: track, timestamp: update.timestamp, payloadBytes: payloadBytes, now: now)
        counters.rtpEchoed += 1
        return 1
    }

    /// What the call and room paths do first with an RTP datagram: consent refreshed by the
    /// traffic, then, on a connected session, the packet unprotected in place and recorded; nil
    /// (counted) otherwise.
    func unprotectRTP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                      out: inout [Datagram]) -> RTPReceivedPacket? {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: datagram.address, now: now, out: &out)
        guard state == .connected else {
            counters.mediaDropped += 1
            return nil
        }
        do { return try rtp.receiveRTP(datagram.slot, length: datagram.bytes.count, arrival: now) } catch {
            count(error)
            return nil
        }
    }

    /// SRTP-protects a packet in a send slot; -1 (nothing queued) on failure.
    func protect(_ slot: UnsafeMutableRawBufferPointer, length: Int) -> Int {
        do { return try rtp.protectRTP(slot, length: length) } catch {
            counters.srtpErrors += 1
            return -1
        }
    }

    /// Counts a packet the RTP session refused.
    func count(_ error: RTPSessionError) {
        switch error {
        case .srtp: counters.srtpErrors += 1
        case .notKeyed, .malformedRTP, .tooLarge, .noSuchStream: counters.mediaDropped += 1
        }
    }

    /// An SRTCP packet, unprotected in place in the receive slot and read by the RTP session
    /// (sender reports for LSR/DLSR, report blocks on our streams).
    func receiveRTCP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                     out: inout [Datagram]) {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: datagram.address, now: now, out: &out)
        let summary: RTCPReceiveSummary
        do {
            summary = try rtp.receiveRTCP(datagram.slot, length: datagram.bytes.count, arrival: now,
                                          arrivalNTP: NTPTime.now())
        } catch {
            count(error)
            return
        }
        counters.rtcpReceived += 1
        counters.senderReportsReceived += summary.senderReports
        counters.receiverReportsReceived += summary.receiverReports
        for ssrc in summary.keyframeRequests {
            if kind == .room { relayRoomKeyframeRequest(on: ssrc, now: now, out: &out) } else { relayKeyframeRequest(on: ssrc, out: &out) }
        }
        if !summary.nacks.isEmpty { answer(summary.nacks, now: now, out: &out) }
        // The peer's loss on our audio decides how much redundancy a RED track adds.
        if kind == .room, summary.reportBlocksOnOurStreams > 0 || summary.receiverEstimate != nil {
            readDownlinkFeedback(estimate: summary.receiverEstimate, now: now)
        }
        if summary.reportBlocksOnOurStreams > 0 {
            var index = 0
            while index < tracks.count, index < rtp.sendStreams.count {  // a room's audio slots: each its own reports
                if let report = rtp.sendStreams[index].remoteReport, index == 0 || tracks[index].red != nil {
                    tracks[index].reportRemoteLoss(fractionLost: report.fractionLost)
                }
                index += 1
            }
        }
    }

    /// The peer asked a key frame of one of our video tracks: an echo asks the peer for one on the
    /// stream it echoes (a forwarder relays PLI to the source, RFC 7667 §3.7).
    func relayKeyframeRequest(on ssrc: UInt32, out: inout [Datagram]) {
        guard kind == .echo, let track = tracks.firstIndex(where: { $0.ssrc == ssrc && $0.kind == .video }),
              let source = rtp.latestReceiveStream(section: rtp.sendStreams[track].section),
              let destination = selectedSocketAddress else { return }
        do {
            out.append(Datagram(address: destination, bytes: try rtp.keyframeRequestDatagram(from: track, to: source.ssrc)))
            counters.rtcpSent += 1
            counters.keyframeRequestsRelayed += 1
        } catch {
            count(error)
        }
    }

    /// Our compound RTCP (built by the RTP session), protected with SRTCP.
    func sendReports(now: Double, out: inout [Datagram]) {
        guard let destination = selectedSocketAddress else { return }
        do {
            out.append(Datagram(address: destination, bytes: try rtp.reportDatagram(now: now, ntp: NTPTime.now())))
            counters.rtcpSent += 1
        } catch {
            count(error)
        }
    }
}
