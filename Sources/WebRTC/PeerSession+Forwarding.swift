import ICE
import ParleyCore
import ParleyNet
import ParleyRTP
import RTCP
import RTP
import VP8

/// The media path of a call session: the two-party case of a selective forwarding unit
/// (RFC 7667 §3.7). A received packet is unprotected once, in place in the socket's receive slot,
/// by this session's RTP session. Then, for each sink (at most one in a two-party call, more in a
/// room), it is copied once into a send-batch slot, its header rewritten there as the sink's
/// audio track decides (`RTPForwardingTrack`: the sink's SSRC, continuous numbering, the sink's
/// payload types; RED, RFC 2198, kept, added or taken off as the two legs negotiated it), and
/// protected there with the sink's SRTP for the sink's selected pair; or copied into a hand-off
/// for a leg on another transport's loop (`RTPPacketHandoff`). Nothing allocates per
/// packet, except a telephone-event key (one event) and an audio tap (a copy of the payload, by
/// design).
extension PeerSession {
    /// An SRTP packet for a call session. Returns the number of datagrams queued.
    func receiveCallRTP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                        out: inout [Datagram], batch: UDPSendBatch) -> Int {
        guard let packet = unprotectRTP(datagram, from: source, now: now, out: &out) else { return 0 }
        // A call session negotiates audio (with RED, and telephone events) only.
        guard let format = packet.format, format.kind != .video else {
            counters.mediaDropped += 1
            return 0
        }
        let view = packet.view
        counters.rtpReceived += 1
        var frame = view.payload
        var red: REDPayloadView?
        // Only a RED packet's own blocks stand for lost packets; none linger from the one before.
        recoveredBlocks.removeAll(keepingCapacity: true)
        switch format.kind {
        case .telephoneEvent:
            let keys = telephoneEvents.receive(payload: view.payload, timestamp: view.timestamp, now: now)
            if let key = keys.0 { reportDigit(key) }
            if let key = keys.1 { reportDigit(key) }
        case .redundantAudio:
            guard let parsed = try? REDPayloadView(view.payload) else {
                counters.mediaDropped += 1
                return 0
            }
            counters.redReceived += 1
            red = parsed
            frame = parsed.primary.data
            redRecovery.recover(sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, red: parsed,
                                into: &recoveredBlocks)
            counters.redBlocksRecovered += recoveredBlocks.count
        default:
            redRecovery.observe(sequenceNumber: view.sequenceNumber)
        }
        if let tap, format.kind != .telephoneEvent { tapAudio(view, frame: frame, red: red, now: now, tap: tap) }
        if nackRequester != nil { requestMissing(before: view, now: now, out: &out) }
        // Indexing rather than `for sink in sinks`: the iterator's generic read coroutine allocates
        // its frame in unoptimized builds.
        var queued = 0
        var index = 0
        while index < sinks.count {
            let sink = sinks[index]
            // A sink without RED gets the frames our peer's redundancy recovered as packets of their own.
            if let red, sink.tracks[0].redPayloadType == nil {
                var block = 0
                while block < recoveredBlocks.count {
                    let recovered = recoveredBlocks[block]
                    if sink.sendForwarded(ssrc: view.ssrc, sequenceNumber: recovered.sequenceNumber,
                                          timestamp: recovered.timestamp, marker: false, kind: .audio, source: nil,
                                          frame: red[recovered.block].data, now: now, batch: batch) { queued += 1 }
                    block += 1
                }
            }
            if sink.sendForwarded(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                  marker: view.marker, kind: format.kind, source: view, frame: frame, now: now,
                                  batch: batch) { queued += 1 }
            index += 1
        }
        if !handoffs.isEmpty { handOver(view, kind: format.kind, frame: frame, red: red) }
        return queued
    }

    /// Copies the packet into each hand-off (legs on another transport): plain frames only, the
    /// frames RED recovered first as packets of their own (RFC 2198 §4).
    private func handOver(_ view: RTPPacketView, kind: RTPPayloadFormat.Kind, frame: UnsafeRawBufferPointer,
                          red: REDPayloadView?) {
        var index = 0
        while index < handoffs.count {
            let handoff = handoffs[index]
            if let red {
                var block = 0
                while block < recoveredBlocks.count {
                    let recovered = recoveredBlocks[block]
                    handoff.push(ssrc: view.ssrc, sequenceNumber: recovered.sequenceNumber, timestamp: recovered.timestamp,
                                 marker: false, kind: .audio, payload: red[recovered.block].data)
                    block += 1
                }
            }
            handoff.push(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp, marker: view.marker,
                         kind: kind == .redundantAudio ? .audio : kind, payload: frame)
            index += 1
        }
    }

    /// Generic NACK (RFC 4585 §6.2.1) to our peer for its packets missing before `view` (those
    /// RED just recovered are not missing), while a retransmission can still be played.
    private func requestMissing(before view: RTPPacketView, now: Double, out: inout [Datagram]) {
        guard nackRequester != nil else { return }
        nackRequester!.received(view.sequenceNumber, now: now, suppliedByRED: recoveredBlocks)
        sendNACKs(&nackRequester!, mediaSSRC: view.ssrc, from: 0, playoutBudget: configuration.nackPlayoutBudget.seconds,
                  now: now, out: &out)
    }

    /// Asks our peer (from send stream `stream`, or our receiver SSRC) for what `requester` says
    /// is due now on `mediaSSRC`, given the round trip and the playout budget.
    func sendNACKs(_ requester: inout RTPNACKRequester, mediaSSRC: UInt32, from stream: Int?, playoutBudget: Double,
                   now: Double, out: inout [Datagram]) {
        let rtt = rtp.sendStreams.first?.roundTripTime?.seconds ?? 0.02
        requester.due(now: now, roundTripTime: rtt, playoutBudget: playoutBudget, into: &nackDue)
        guard !nackDue.isEmpty, let destination = selectedSocketAddress else { return }
        do {
            out.append(Datagram(address: destination, bytes: try rtp.nackDatagram(from: stream, to: mediaSSRC, lost: nackDue)))
            counters.nacksSent += 1
            counters.rtcpSent += 1
        } catch {
            count(error)
        }
    }

    /// Our peer's Generic NACKs on our tracks: each packet still kept goes out again as it went.
    func answer(_ nacks: [TransportLayerNACK], now: Double, out: inout [Datagram]) {
        guard let destination = selectedSocketAddress else { return }
        if kind == .room { return answerSlotNACKs(nacks, to: destination, now: now, out: &out) }
        var track = 0
        while track < retransmissions.count {
            counters.retransmissionsSent += retransmissions[track]?.answer(nacks, mediaSSRC: tracks[track].ssrc, now: now) { bytes in
                out.append(Datagram(address: destination, bytes: Array(bytes)))
            } ?? 0
            track += 1
        }
    }

    /// Hands audio to the tap as plain codec frames: the frames RED recovered, then the packet's.
    private func tapAudio(_ view: RTPPacketView, frame: UnsafeRawBufferPointer, red: REDPayloadView?, now: Double,
                          tap: OffLoopDelivery<MediaTapPacket>) {
        let payloadType = red == nil ? view.payloadType : offer.payloadType
        if let red {
            for recovered in recoveredBlocks {
                tap.send(MediaTapPacket(payload: Array(red[recovered.block].data), ssrc: view.ssrc,
                                        sequenceNumber: recovered.sequenceNumber, timestamp: recovered.timestamp,
                                        payloadType: payloadType, codec: .audio(offer.codec), arrival: now))
            }
        }
        tap.send(MediaTapPacket(payload: Array(frame), ssrc: view.ssrc, sequenceNumber: view.sequenceNumber,
                                timestamp: view.timestamp, marker: view.marker, payloadType: payloadType,
                                codec: .audio(offer.codec), arrival: now))
    }

    /// Sends a packet of a source (`source`, or a frame recovered from its RED) on our track
    /// `track` (the audio track of a call session; a receive slot of a room session). False if it
    /// was not queued.
    func sendForwarded(ssrc: UInt32, sequenceNumber: UInt16, timestamp: UInt32, marker: Bool,
                       kind: RTPPayloadFormat.Kind, source view: RTPPacketView?, frame: UnsafeRawBufferPointer,
                       track: Int = 0, vp8: VP8PayloadDescriptor.Fields? = nil, now: Double, batch: UDPSendBatch) -> Bool {
        guard state == .connected, let destination = selectedSocketAddress,
              case .send(let update) = tracks[track].forward(ssrc: ssrc, sequenceNumber: sequenceNumber,
                                                             timestamp: timestamp, marker: marker, kind: kind, now: now),
              let payloadBytes = queuePacket(update, track: track, source: view, frame: frame, vp8: vp8, to: destination,
                                             now: now, batch: batch)
        else {
            counters.forwardDropped += 1
            return false
        }
        rtp.noteSent(stream: track, timestamp: update.timestamp, payloadBytes: payloadBytes, now: now)
        counters.rtpForwarded += 1
        return true
    }

    /// Sends a frame the server encoded on our audio track `track` (a call's only track, or a
    /// room session's receive slot): an RTP packet built in a send-batch slot, wrapped in RED
    /// when the track adds redundancy. Dropped while a forwarding source feeds the stream (the
    /// call's source, the slot's route). False if it was not queued.
    func play(_ frame: EncodedAudioFrame, track: Int = 0, now: Double, batch: UDPSendBatch) -> Bool {
        let fed = kind == .room ? roomSources.indices.contains(track) && roomSources[track] != nil
            : source != nil || !incoming.isEmpty
        guard !fed, tracks.indices.contains(track), tracks[track].kind == .audio, state == .connected,
              let destination = selectedSocketAddress, frame.samples >= 0 else {
            counters.framesDropped += 1
            return false
        }
        let update = tracks[track].play(samples: UInt32(clamping: frame.samples), now: now)
        let payloadBytes = frame.payload.withUnsafeBytes { payload in
            queuePacket(update, track: track, source: nil, frame: payload, to: destination, now: now, batch: batch)
        }
        guard let payloadBytes else {
            counters.framesDropped += 1
            return false
        }
        rtp.noteSent(stream: track, timestamp: update.timestamp, payloadBytes: payloadBytes, now: now)
        counters.framesPlayed += 1
        return true
    }

    func reportDigit(_ key: Character) {
        counters.digits += 1
        Log.debug(.webrtc, "session \(id): telephone-event key received")
        events?.send(.digit(sessionID: id, digit: key))
    }

    // MARK: - Forwarding links

    /// Makes `newSource` (or nobody) the source of this session's stream.
    func setSource(_ newSource: PeerSession?) {
        guard newSource !== source else { return }
        if let old = source { old.sinks.removeAll { $0 === self } }
        source = newSource
        newSource?.sinks.append(self)
        tracks[0].sourceChanged()
    }

    /// Ends every forwarding link of this session, as source and as sink.
    func unlinkForwarding() {
        unlinkRoom()
        setSource(nil)
        dropHandoffs()
        for sink in sinks {
            sink.source = nil
            sink.tracks[0].sourceChanged()
        }
        sinks = []
    }
}
