import ICE
import ParleyCore
import ParleyRTP
import RTCP
import RTP

extension PeerConnectionCore {
    /// One RTP packet (RFC 3550 §5.1, no CSRCs or extensions) on the audio stream, numbered by the
    /// connection (sequence, timestamp advancing by `increment`).
    func sendAudio(_ payload: [UInt8], increment: UInt32, payloadType: UInt8?, marker: Bool) {
        guard let pt = payloadType ?? remote?.payloadType else {
            stats.sendDropped += 1
            return
        }
        let timestamp = nextTimestamp
        nextTimestamp &+= increment
        sequenceNumber &+= 1
        sendRTP(payload, payloadType: pt, sequenceNumber: sequenceNumber, timestamp: timestamp, marker: marker)
    }

    /// One RTP packet numbered by the caller (an audio or video engine that keeps its own RTP
    /// clock), sent from the SSRC of the payload type's section (audio when it is not negotiated).
    func sendRTP(_ payload: [UInt8], payloadType pt: UInt8, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool) {
        let format = rtp.payloadFormats[pt]
        let stream = format.flatMap { rtp.sendStreamIndex(section: $0.section) } ?? 0
        let length = RTPFixedHeader.size + payload.count
        guard rtp.isReady, state == .connected || state == .disconnected, stream < rtp.sendStreams.count,
              length + rtp.trailerLength <= scratch.count else {
            stats.sendDropped += 1
            return
        }
        var packet = [UInt8](repeating: 0, count: length + rtp.trailerLength)
        let ssrc = rtp.sendStreams[stream].ssrc
        let protected: Result<Int, RTPSessionError> = packet.withUnsafeMutableBytes { raw in
            RTPFixedHeader.write(to: raw.baseAddress!, payloadType: pt, marker: marker, sequenceNumber: sequenceNumber,
                                 timestamp: timestamp, ssrc: ssrc)
            payload.withUnsafeBytes { bytes in
                if let source = bytes.baseAddress {
                    (raw.baseAddress! + RTPFixedHeader.size).copyMemory(from: source, byteCount: bytes.count)
                }
            }
            do throws(RTPSessionError) { return .success(try rtp.protectRTP(raw, length: length)) } catch {
                return .failure(error)
            }
        }
        guard case .success(let protectedLength) = protected else {
            stats.srtpErrors += 1
            return
        }
        packet.removeLast(packet.count - protectedLength)
        if format?.kind != .video {
            packet.withUnsafeBytes { retransmissions?.store($0, sequenceNumber: sequenceNumber, now: now) }
        }
        guard sendOnSelectedPair(packet) else {
            stats.sendDropped += 1
            return
        }
        rtp.noteSent(stream: stream, timestamp: timestamp, payloadBytes: payload.count, now: now)
        if format?.kind == .video {
            stats.videoPacketsSent += 1
        } else {
            stats.packetsSent += 1
            stats.payloadBytesSent += UInt64(payload.count)
        }
        flush()
    }

    /// One RTP packet laid out by the caller, sent as it is: its own SSRC and header extensions
    /// (a simulcast layer carries its mid and rid, RFC 8852 §3). Counted as video.
    func send(_ packet: RTPPacket) {
        let length = packet.serializedSize
        var bytes = [UInt8](repeating: 0, count: length + rtp.trailerLength)
        guard rtp.isReady, state == .connected || state == .disconnected, bytes.count <= scratch.count else {
            stats.sendDropped += 1
            return
        }
        let protected: Int? = bytes.withUnsafeMutableBytes { raw in
            guard (try? packet.serialize(into: raw)) == length else { return nil }
            return try? rtp.protectRTP(raw, length: length)
        }
        guard let protected, sendOnSelectedPair(Array(bytes.prefix(protected))) else {
            stats.sendDropped += 1
            return
        }
        stats.videoPacketsSent += 1
        flush()
    }

    /// A Generic NACK for `lost` of the peer's stream `mediaSSRC`.
    func sendNACK(mediaSSRC: UInt32, lost: [UInt16]) {
        guard rtp.isReady, state == .connected || state == .disconnected,
              let datagram = try? rtp.nackDatagram(from: 0, to: mediaSSRC, lost: lost), sendOnSelectedPair(datagram) else { return }
        stats.nacksSent += 1
        flush()
    }

    /// SRTP in, through the RTP session (statistics per remote SSRC), out on `audio` or `video`
    /// by the payload type's section.
    func receiveRTP(_ bytes: UnsafeRawBufferPointer) {
        if media.isActive { return receiveTransceiverRTP(bytes) }
        guard bytes.count <= scratch.count else { return }
        let arrival = now
        let received: (PeerConnection.ReceivedRTP, isVideo: Bool)? = scratch.withUnsafeMutableBytes { buffer -> (PeerConnection.ReceivedRTP, isVideo: Bool)? in
            guard let base = buffer.baseAddress, let src = bytes.baseAddress else { return nil }
            base.copyMemory(from: src, byteCount: bytes.count)
            let packet: RTPReceivedPacket
            do throws(RTPSessionError) { packet = try rtp.receiveRTP(buffer, length: bytes.count, arrival: arrival) } catch {
                if case .srtp = error { stats.srtpErrors += 1 }
                return nil
            }
            let view = packet.view
            return (PeerConnection.ReceivedRTP(payload: Array(view.payload), payloadType: view.payloadType,
                                               sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                               ssrc: view.ssrc, marker: view.marker),
                    packet.format?.kind == .video)
        }
        guard let (packet, isVideo) = received else { return }
        if isVideo {
            stats.videoPacketsReceived += 1
            videoSink.yield(packet)
        } else {
            stats.packetsReceived += 1
            stats.payloadBytesReceived += UInt64(packet.payload.count)
            var packet = packet
            packet.isRetransmission = requestMissing(after: packet, arrival: arrival)
            audioSink.yield(packet)
        }
    }

    /// Generic NACK (RFC 4585 §6.2.1) for the audio packets missing before `packet`, while a
    /// retransmission can still be played: one round trip must fit in the playout budget. True
    /// when `packet` itself is one we asked for again.
    func requestMissing(after packet: PeerConnection.ReceivedRTP, arrival: Double) -> Bool {
        guard nackRequester != nil else { return false }
        // What the packet's RED blocks carry is not missing: only losses RED cannot cover are asked for.
        recoveredBlocks.removeAll(keepingCapacity: true)
        if packet.payloadType == stats.redPayloadType {
            packet.payload.withUnsafeBytes { raw in
                guard let red = try? REDPayloadView(raw) else { return }
                redRecovery.recover(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, red: red,
                                    into: &recoveredBlocks)
            }
        } else {
            redRecovery.observe(sequenceNumber: packet.sequenceNumber)
        }
        let isRetransmission = nackRequester?.received(packet.sequenceNumber, now: arrival,
                                                       suppliedByRED: recoveredBlocks) ?? false
        let rtt = rtp.sendStreams.first?.roundTripTime?.seconds ?? 0.02
        nackRequester?.due(now: arrival, roundTripTime: rtt,
                           playoutBudget: nackPlayoutBudget ?? configuration.nackPlayoutBudget.seconds, into: &nackDue)
        guard !nackDue.isEmpty else { return isRetransmission }
        do {
            if sendOnSelectedPair(try rtp.nackDatagram(from: 0, to: packet.ssrc, lost: nackDue)) { stats.nacksSent += 1 }
        } catch {
            stats.srtpErrors += 1
        }
        return isRetransmission
    }

    /// The peer's Generic NACKs on our audio: each packet still kept goes out again as it went.
    func answer(_ nacks: [TransportLayerNACK]) {
        guard let retransmissions, let audio = rtp.sendStreams.first else { return }
        retransmissions.answer(nacks, mediaSSRC: audio.ssrc, now: now) { bytes in
            if sendOnSelectedPair(Array(bytes)) { stats.retransmissionsSent += 1 }
        }
    }

    /// SRTCP: sender reports (for our LSR/DLSR) and report blocks on our streams (RTT, loss, jitter).
    func receiveRTCP(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= scratch.count, let source = bytes.baseAddress else { return }
        let arrival = now, arrivalNTP = NTPTime.now()
        let result: Result<RTCPReceiveSummary, RTPSessionError> = scratch.withUnsafeMutableBytes { buffer in
            buffer.baseAddress!.copyMemory(from: source, byteCount: bytes.count)
            do throws(RTPSessionError) {
                return .success(try rtp.receiveRTCP(buffer, length: bytes.count, arrival: arrival, arrivalNTP: arrivalNTP))
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let summary):
            stats.rtcpReceived += 1
            if media.isActive {
                handleTransceiverFeedback(summary)
            } else if !summary.nacks.isEmpty {
                answer(summary.nacks)
            }
        case .failure(.srtp): stats.srtpErrors += 1
        case .failure: break
        }
    }

    /// Our compound RTCP (built by the RTP session), protected with SRTCP.
    func sendReports() {
        do {
            if sendOnSelectedPair(try rtp.reportDatagram(now: now, ntp: NTPTime.now())) { stats.rtcpSent += 1 }
        } catch {
            stats.srtpErrors += 1
        }
    }

    func statistics() -> PeerConnection.Statistics {
        var s = stats
        s.state = state
        s.iceState = ice.state
        s.failure = failure
        s.timings = timings
        if let pair = ice.selectedPair {
            s.localCandidate = pair.local
            s.remoteCandidate = pair.remote
        }
        if let audio = rtp.sendStreams.first {
            s.remoteFractionLost = audio.remoteReport?.fractionLost
            s.remoteCumulativeLost = audio.remoteReport?.totalLost
            s.remoteJitter = audio.remoteReport?.jitter
            s.roundTripTime = audio.roundTripTime
            s.roundTripTimeSamples = audio.roundTripTimeSamples
        }
        let received = rtp.latestReceiveStream(section: remote?.audioIndex)
        s.remoteSSRC = received?.ssrc
        s.jitter = Double(received?.statistics.jitter ?? 0) / Double(received?.clockRate ?? 48_000)
        s.cumulativeLost = received?.statistics.cumulativeLost ?? 0
        return s
    }
}
