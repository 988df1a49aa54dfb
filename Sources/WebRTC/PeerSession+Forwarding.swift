import ICE
import ParleyCore
import ParleyNet
import ParleySRTP
import RTP

/// The media path of a call session: the two-party case of a selective forwarding unit
/// (RFC 7667 §3.7). A received packet is unprotected once, in place in the socket's receive slot,
/// with this session's SRTP context. Then, for each sink (at most one in a two-party call, more
/// in a room), it is copied once into a send-batch slot, its header rewritten there for the
/// sink's stream (the sink's SSRC, sequence number and timestamp from the sink's
/// `OutgoingStream`, the sink's payload type), and protected there with the sink's context for
/// the sink's selected pair. Nothing allocates per packet, except a telephone-event key (one
/// event) and an audio tap (a copy of the payload, by design).
extension PeerSession {
    /// An SRTP packet for a call session. Returns the number of datagrams queued.
    func receiveCallRTP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                        out: inout [Datagram], batch: UDPSendBatch) -> Int {
        apply(ice.noteTraffic(from: source, now: Self.instant(now)), fallback: datagram.address, now: now, out: &out)
        guard let srtp, state == .connected else {
            counters.mediaDropped += 1
            return 0
        }
        let length: Int
        do { length = try srtp.unprotect(datagram.slot, length: datagram.bytes.count) } catch {
            counters.srtpErrors += 1
            return 0
        }
        let packet = UnsafeRawBufferPointer(rebasing: datagram.slot[0..<length])
        guard let view = try? RTPPacketView(packet) else {
            counters.mediaDropped += 1
            return 0
        }
        let payloadType = view.payloadType
        let isEvent = payloadType == telephoneEventPayloadType
        guard isEvent || payloadType == audioPayloadType else {
            counters.mediaDropped += 1
            return 0
        }
        counters.rtpReceived += 1
        reception.record(ssrc: view.ssrc, sequence: view.sequenceNumber, timestamp: view.timestamp,
                         payloadBytes: view.payloadRange.count, arrival: now, clockRate: offer.codec.clockRate)
        if isEvent {
            let keys = telephoneEvents.receive(payload: view.payload, timestamp: view.timestamp, now: now)
            if let key = keys.0 { reportDigit(key) }
            if let key = keys.1 { reportDigit(key) }
        } else if let tap {
            tap.send(AudioTapPacket(payload: Array(view.payload), sequenceNumber: view.sequenceNumber,
                                    timestamp: view.timestamp, payloadType: payloadType, codec: offer.codec))
        }
        // Indexing rather than `for sink in sinks`: the iterator's generic read coroutine allocates
        // its frame in unoptimized builds.
        var queued = 0
        var index = 0
        while index < sinks.count {
            if sinks[index].sendForwarded(view, isEvent: isEvent, now: now, batch: batch) { queued += 1 }
            index += 1
        }
        return queued
    }

    /// Sends a packet of our source on our stream. False if it was not queued.
    func sendForwarded(_ view: RTPPacketView, isEvent: Bool, now: Double, batch: UDPSendBatch) -> Bool {
        let length = view.bytes.count
        guard state == .connected, let srtp, let destination = selectedSocketAddress,
              let payloadType = isEvent ? telephoneEventPayloadType : audioPayloadType,
              length + SRTPContext.maxTrailerLength <= batch.maxDatagramBytes else {
            counters.forwardDropped += 1
            return false
        }
        let position = stream.forwarded(ssrc: view.ssrc, sequence: view.sequenceNumber, timestamp: view.timestamp,
                                        now: now)
        let queued = batch.withUnsafeSlot(to: destination) { slot in
            slot.baseAddress!.copyMemory(from: view.bytes.baseAddress!, byteCount: length)
            guard let rewriter = try? RTPHeaderRewriter(UnsafeMutableRawBufferPointer(rebasing: slot[0..<length])) else {
                return -1
            }
            rewriter.ssrc = localSSRC
            rewriter.sequenceNumber = position.sequenceNumber
            rewriter.timestamp = position.timestamp
            rewriter.payloadType = payloadType
            // RFC 4733 §2.5.1.3 gives the marker of an event packet its own meaning: leave it.
            if position.resynchronised, !isEvent { rewriter.marker = true }
            do { return try srtp.protect(slot, length: length) } catch {
                counters.srtpErrors += 1
                return -1
            }
        }
        guard queued else {
            counters.forwardDropped += 1
            return false
        }
        noteSent(timestamp: position.timestamp, payloadBytes: view.payloadRange.count, now: now)
        counters.rtpForwarded += 1
        return true
    }

    /// Sends a frame the server encoded on our stream (an RTP packet built in a send-batch slot).
    /// Dropped while a forwarding source feeds the stream. False if it was not queued.
    func play(_ frame: EncodedAudioFrame, now: Double, batch: UDPSendBatch) -> Bool {
        let length = 12 + frame.payload.count
        guard source == nil, state == .connected, let srtp, let destination = selectedSocketAddress, frame.samples >= 0,
              length + SRTPContext.maxTrailerLength <= batch.maxDatagramBytes else {
            counters.framesDropped += 1
            return false
        }
        let position = stream.played(samples: UInt32(clamping: frame.samples), now: now)
        let payloadType = audioPayloadType
        let queued = batch.withUnsafeSlot(to: destination) { slot in
            let base = slot.baseAddress!
            base.storeBytes(of: 0x80, as: UInt8.self)  // V=2, no padding, extension or CSRC
            base.storeBytes(of: (position.resynchronised ? 0x80 : 0) | payloadType, toByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: position.sequenceNumber.bigEndian, toByteOffset: 2, as: UInt16.self)
            base.storeBytes(of: position.timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
            base.storeBytes(of: localSSRC.bigEndian, toByteOffset: 8, as: UInt32.self)
            frame.payload.withUnsafeBytes { payload in
                if let bytes = payload.baseAddress { (base + 12).copyMemory(from: bytes, byteCount: payload.count) }
            }
            do { return try srtp.protect(slot, length: length) } catch {
                counters.srtpErrors += 1
                return -1
            }
        }
        guard queued else {
            counters.framesDropped += 1
            return false
        }
        noteSent(timestamp: position.timestamp, payloadBytes: frame.payload.count, now: now)
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
        stream.sourceChanged()
    }

    /// Ends every forwarding link of this session, as source and as sink.
    func unlinkForwarding() {
        setSource(nil)
        for sink in sinks {
            sink.source = nil
            sink.stream.sourceChanged()
        }
        sinks = []
    }
}
