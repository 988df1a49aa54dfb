import ICE
import ParleyCore
import ParleyNet
import ParleyRTP
import RTP

/// The media path of a call session: the two-party case of a selective forwarding unit
/// (RFC 7667 §3.7). A received packet is unprotected once, in place in the socket's receive slot,
/// by this session's RTP session. Then, for each sink (at most one in a two-party call, more in a
/// room), it is copied once into a send-batch slot, its header rewritten there as the sink's
/// audio track decides (`RTPForwardingTrack`: the sink's SSRC, continuous numbering, the sink's
/// payload types), and protected there with the sink's SRTP for the sink's selected pair. Nothing
/// allocates per packet, except a telephone-event key (one event) and an audio tap (a copy of the
/// payload, by design).
extension PeerSession {
    /// An SRTP packet for a call session. Returns the number of datagrams queued.
    func receiveCallRTP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                        out: inout [Datagram], batch: UDPSendBatch) -> Int {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: datagram.address, now: now, out: &out)
        guard state == .connected else {
            counters.mediaDropped += 1
            return 0
        }
        let packet: RTPReceivedPacket
        do { packet = try rtp.receiveRTP(datagram.slot, length: datagram.bytes.count, arrival: now) } catch {
            count(error)
            return 0
        }
        // A call session negotiates audio (and telephone events) only.
        guard let format = packet.format, format.kind == .audio || format.kind == .telephoneEvent else {
            counters.mediaDropped += 1
            return 0
        }
        let view = packet.view
        counters.rtpReceived += 1
        if format.kind == .telephoneEvent {
            let keys = telephoneEvents.receive(payload: view.payload, timestamp: view.timestamp, now: now)
            if let key = keys.0 { reportDigit(key) }
            if let key = keys.1 { reportDigit(key) }
        } else if let tap {
            tap.send(AudioTapPacket(payload: Array(view.payload), sequenceNumber: view.sequenceNumber,
                                    timestamp: view.timestamp, payloadType: view.payloadType, codec: offer.codec))
        }
        // Indexing rather than `for sink in sinks`: the iterator's generic read coroutine allocates
        // its frame in unoptimized builds.
        var queued = 0
        var index = 0
        while index < sinks.count {
            if sinks[index].sendForwarded(view, kind: format.kind, now: now, batch: batch) { queued += 1 }
            index += 1
        }
        return queued
    }

    /// Sends a packet of our source on our audio track. False if it was not queued.
    func sendForwarded(_ view: RTPPacketView, kind: RTPPayloadFormat.Kind, now: Double, batch: UDPSendBatch) -> Bool {
        let length = view.bytes.count
        guard state == .connected, let destination = selectedSocketAddress,
              length + rtp.trailerLength <= batch.maxDatagramBytes,
              case .send(let update) = tracks[0].forward(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber,
                                                         timestamp: view.timestamp, marker: view.marker, kind: kind,
                                                         now: now) else {
            counters.forwardDropped += 1
            return false
        }
        let queued = batch.withUnsafeSlot(to: destination) { slot in
            slot.baseAddress!.copyMemory(from: view.bytes.baseAddress!, byteCount: length)
            guard let rewriter = try? RTPHeaderRewriter(UnsafeMutableRawBufferPointer(rebasing: slot[0..<length])) else {
                return -1
            }
            update.apply(to: rewriter)
            return protect(slot, length: length)
        }
        guard queued else {
            counters.forwardDropped += 1
            return false
        }
        rtp.noteSent(stream: 0, timestamp: update.timestamp, payloadBytes: view.payloadRange.count, now: now)
        counters.rtpForwarded += 1
        return true
    }

    /// Sends a frame the server encoded on our audio track (an RTP packet built in a send-batch
    /// slot). Dropped while a forwarding source feeds the stream. False if it was not queued.
    func play(_ frame: EncodedAudioFrame, now: Double, batch: UDPSendBatch) -> Bool {
        let length = RTPFixedHeader.size + frame.payload.count
        guard source == nil, state == .connected, let destination = selectedSocketAddress, frame.samples >= 0,
              length + rtp.trailerLength <= batch.maxDatagramBytes else {
            counters.framesDropped += 1
            return false
        }
        let update = tracks[0].play(samples: UInt32(clamping: frame.samples), now: now)
        let queued = batch.withUnsafeSlot(to: destination) { slot in
            let base = slot.baseAddress!
            update.write(to: base)
            frame.payload.withUnsafeBytes { payload in
                if let bytes = payload.baseAddress {
                    (base + RTPFixedHeader.size).copyMemory(from: bytes, byteCount: payload.count)
                }
            }
            return protect(slot, length: length)
        }
        guard queued else {
            counters.framesDropped += 1
            return false
        }
        rtp.noteSent(stream: 0, timestamp: update.timestamp, payloadBytes: frame.payload.count, now: now)
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
        setSource(nil)
        for sink in sinks {
            sink.source = nil
            sink.tracks[0].sourceChanged()
        }
        sinks = []
    }
}
