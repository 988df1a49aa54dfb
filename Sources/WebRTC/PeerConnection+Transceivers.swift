import ParleyCore
import ParleyNet
import Synchronization

/// Transceivers (W3C `addTransceiver`, unified plan): what a room participant needs — any number
/// of sending and receiving sections on one BUNDLE transport, simulcast, re-offers. A connection
/// that has transceivers offers only them (and its data channel section with
/// `offerDataChannels`), in place of the call's audio and video sections; it always offers (the
/// room server answers, docs/signaling.md §12).
///
/// ```swift
/// let pc = try PeerConnection(configuration: configuration)
/// let mic = try await pc.addTransceiver(kind: .audio, direction: .sendonly)
/// let camera = try await pc.addTransceiver(kind: .video, direction: .sendonly, sendEncodings: ["q", "h", "f"])
/// let slot = try await pc.addTransceiver(kind: .video, direction: .recvonly)
/// let answer = try await signaling.join(offer: try await pc.createOffer(), tracks: [(mic.mid, "mic"), (camera.mid, "camera")])
/// try await pc.setRemoteAnswer(answer)
/// pc.sendFrame(vp8Packets, on: camera, rid: "f", timestamp: ts)
/// for await packet in slot.received { … }
/// ```
extension PeerConnection {
    /// Adds a section of `kind` to the next offer (`createOffer()`: the first, or a re-offer once
    /// answered), with its own SSRC (and an RTX SSRC for video, RFC 4588) per stream it sends.
    /// - Parameters:
    ///   - sendEncodings: rids of the simulcast streams to send (RFC 8853, at most 4, video only);
    ///     empty for one stream.
    ///   - streamID, trackID: the section's `a=msid` (RFC 8830); by default the connection's stream
    ///     and a generated track id. Rooms name tracks in signaling by `mid`, not by msid.
    /// - Throws: 53400 when closed, on a connection that already offered without transceivers or
    ///   answered an offer, past 256 transceivers, or for invalid `sendEncodings`.
    public func addTransceiver(kind: RTPTransceiver.Kind, direction: RTPTransceiver.Direction = .sendrecv,
                               sendEncodings: [String] = [], streamID: String? = nil,
                               trackID: String? = nil) async throws(ParleyError) -> RTPTransceiver {
        try checkOpen()
        let core = self.core
        let result: Result<RTPTransceiver, ParleyError> = await onLoop {
            core.value.addTransceiver(kind: kind, direction: direction, sendEncodings: sendEncodings, streamID: streamID,
                                      trackID: trackID)
        }
        return try result.get()
    }

    /// Stops `transceiver` (W3C `RTCRtpTransceiver.stop()`): nothing more is sent or delivered in
    /// its section (its `received` finishes, `TransceiverEvent.stopped` follows), and every later
    /// offer carries the section with port 0, its mid kept (RFC 8829 §5.2.2), so the answerer
    /// stops it too. A room server unpublishes the track it carried (docs/signaling.md §12).
    /// Nothing happens once stopped or closed.
    public func stop(_ transceiver: RTPTransceiver) async {
        guard closedStatistics.withLock({ $0 == nil }) else { return }
        let core = self.core, index = transceiver.index
        await onLoop {
            guard core.value.media.list.indices.contains(index), !core.value.media.list[index].isStopped else { return }
            core.value.stopTransceiver(index)
        }
    }

    /// Every transceiver, in the order added (the order of their sections).
    public var transceivers: [RTPTransceiver] {
        get async {
            if closedStatistics.withLock({ $0 != nil }) { return [] }
            let core = self.core
            return await onLoop { core.value.media.list.map(\.handle) }
        }
    }

    /// Sends one RTP payload on `transceiver` (its simulcast stream `rid`): an Opus frame, or one
    /// VP8 packet as `VP8Packetizer` made it (RFC 7741). The connection numbers the packets of each
    /// stream, adds the header extensions the answer took and protects it; `timestamp` is the
    /// caller's media clock (48 kHz audio, 90 kHz video). `audioLevel` is the RFC 6464 level
    /// (0–127 −dBov) when the answer took the extension. Dropped, and counted in `sendDropped`,
    /// before connected, on a transceiver not negotiated or stopped, or for an unknown rid.
    public func send(payload: [UInt8], on transceiver: RTPTransceiver, rid: String? = nil, timestamp: UInt32,
                     marker: Bool = false, audioLevel: UInt8? = nil) {
        guard closedStatistics.withLock({ $0 == nil }) else { return }
        let core = self.core, index = transceiver.index
        loop.execute {
            core.value.send(payload, transceiver: index, rid: rid, timestamp: timestamp, marker: marker, audioLevel: audioLevel)
            core.value.flush()
        }
    }

    /// Sends one video frame's packets (in order, one timestamp; the marker on the last, RFC 7741
    /// §4.1) in one hop to the connection's loop.
    public func sendFrame(_ packets: [[UInt8]], on transceiver: RTPTransceiver, rid: String? = nil, timestamp: UInt32) {
        guard closedStatistics.withLock({ $0 == nil }), !packets.isEmpty else { return }
        let core = self.core, index = transceiver.index
        loop.execute {
            for (i, packet) in packets.enumerated() {
                core.value.send(packet, transceiver: index, rid: rid, timestamp: timestamp, marker: i == packets.count - 1,
                                audioLevel: nil)
            }
            core.value.flush()
        }
    }

    /// Asks the sender of what `transceiver` receives for a key frame (PLI, RFC 4585 §6.3.1),
    /// when the answer took PLI or FIR: a decoder that lost its reference. Ignored otherwise.
    public func requestKeyFrame(_ transceiver: RTPTransceiver) {
        guard closedStatistics.withLock({ $0 == nil }) else { return }
        let core = self.core, index = transceiver.index
        loop.execute { core.value.requestKeyFrame(transceiver: index) }
    }

    /// What `transceiver` negotiated, sent and received; nil once the connection is closed.
    public func statistics(of transceiver: RTPTransceiver) async -> TransceiverStatistics? {
        if closedStatistics.withLock({ $0 != nil }) { return nil }
        let core = self.core, index = transceiver.index
        return await onLoop { core.value.media.list.indices.contains(index) ? TransceiverStatistics(core.value.media.list[index]) : nil }
    }

    /// Tests: the next `packets` of `transceiver`'s stream `rid` are numbered and kept for NACKs
    /// but not sent (an uplink loss the peer's NACK repairs).
    package func simulateUplinkLoss(on transceiver: RTPTransceiver, rid: String? = nil, packets: Int) async {
        let core = self.core, index = transceiver.index
        await onLoop {
            guard let layer = core.value.layerIndex(index, rid: rid) else { return }
            core.value.media.list[index].layers[layer].dropNext += packets
        }
    }

    /// Tests: the next `packets` that arrive for `transceiver` (its media SSRC, not RTX) are
    /// dropped before SRTP (a downlink loss our NACK repairs).
    package func simulateDownlinkLoss(on transceiver: RTPTransceiver, packets: Int) async {
        let core = self.core, index = transceiver.index
        await onLoop {
            guard core.value.media.list.indices.contains(index) else { return }
            core.value.media.list[index].dropIncoming += packets
        }
    }
}
