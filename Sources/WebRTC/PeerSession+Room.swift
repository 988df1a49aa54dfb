import ICE
import ParleyNet
import ParleyRTP
import RTCP
import RTP
import VP8
import SDP
import SFU

/// A section a room peer sends in (one of its published tracks): the SSRCs it arrives with and
/// the receive slots of other sessions it is routed to.
struct RoomInbound {
    let section: Int
    let mid: String
    let codec: MediaCodec
    /// From the section's `a=ssrc` lines (RFC 5576), or learnt from the first packet of the kind
    /// when the section announced none. At most `maxSSRCs`.
    var ssrcs: [UInt32]
    var sinks: [RoomSink] = []
    /// When a key frame was last asked of this section (seconds on the server's clock).
    var lastKeyframeRequest: Double = -.infinity
    /// The negotiated RFC 6464 audio level extension id, the loudest level since the last
    /// report, and when the next report is due.
    var audioLevelID: UInt8?
    var loudest: UInt8 = 127
    var nextLevelReport: Double = 0
    /// Generic NACK toward the publisher for what its hop lost (video that negotiated it); one
    /// per layer of a simulcast section (each layer numbers its own packets).
    var nacks: RTPNACKRequester?
    var layerNACKs: [RTPNACKRequester] = []
    /// Simulcast sections: how the streams are told apart, and the layers as they arrive.
    var simulcast: OfferedSimulcast?
    var layers: SimulcastLayers?
    /// The mid's bytes, compared in place with a packet's mid element (RFC 8843 §15.2).
    var midBytes: [UInt8] = []
    /// When a key frame was last asked of each layer.
    var layerKeyframeRequests: [Double] = []
    /// A recording's copy of every packet (`MediaTransportServer.setTap(section:)`).
    var tap: OffLoopDelivery<MediaTapPacket>?
    /// A video section without simulcast: its bitrate, for the subscribers' allocation.
    var meter = BitrateMeter()
    /// Video: what arrived, unprotected, one cache per layer (one without simulcast), from which
    /// subscribers' NACKs are answered (`forwardLogs`).
    var packets: [RTPRetransmissionCache] = []
    /// Bytes the section may forward (`PeerSession.publishAllowance`); nil: no cap.
    var allowance: PacketAllowance?
    /// Audio: which blocks of the publisher's RED packets stand for lost packets (for slots without RED).
    var redRecovery = REDLossRecovery()

    /// 512 packets of up to 1,500 bytes (768 KB) per layer: a second of a 4 Mbit/s layer.
    static func makePacketCache() -> RTPRetransmissionCache { RTPRetransmissionCache(capacity: 512, slotBytes: 1500) }

    static let maxSSRCs = 4
}

/// A receive slot fed by a `RoomInbound`: the session and the index of its track.
struct RoomSink {
    let session: PeerSession
    let track: Int
}

/// A VP8 receive slot's picture numbering across sources: after a change of source nothing is
/// sent until the new source starts a key frame (what came before cannot be decoded without the
/// pictures it refers to), and picture IDs and TL0PICIDX continue from the last ones sent
/// (`VP8PictureIDMunger`, RFC 7741 §4.2), so the receiver's decoder sees one stream.
struct SlotVideo {
    var pictures = VP8PictureIDMunger()
    var awaitingKeyFrame = true
    /// A simulcast source's layer the slot forwards, and the one it switches to at that layer's
    /// next key frame (the two differ while a switch waits).
    var layer: Int?
    var targetLayer: Int?
    /// The subscription's priority for the allocator (the room service's, dominant speaker
    /// included), and whether the allocator switched it off (nothing forwarded).
    var priority = TrackPriority.standard
    var switchedOff = false
    /// How many of its receiver's report blocks on the slot were read (`remoteReportCount`).
    var reportsRead = 0
    /// The receiver's id for abs-send-time, stamped on every packet forwarded in the slot.
    var absSendTimeID: UInt8?
    /// Where retransmissions go when the receiver took `rtx` (RFC 4588); else on the slot's SSRC.
    var rtx: SlotRetransmissionStream?
}

/// What a receive slot carries: the publishing session and its `roomInbound` index.
struct RoomSource {
    let session: PeerSession
    let inbound: Int
}

/// Room sessions: one participant's sections of an SFU (RFC 7667 §3.7). Each section the peer
/// sends in is a published track; each section it receives in is a receive slot, where we send
/// one track of our own (SSRC from `AnswerParameters.sectionTracks`) carrying whichever published
/// section is routed to it, renumbered by the slot's `RTPForwardingTrack` so the stream stays
/// continuous across changes of source. Key frame requests on a slot go to its source's peer.
extension PeerSession {
    /// How long a lost video packet is worth asking the publisher for again: receivers hold
    /// video frames longer than audio.
    static let videoNACKPlayoutBudget = 0.3
    /// A video slot keeps what it sent this long (512 packets: about 1.5 s at 2.5 Mbit/s) for
    /// its receiver's NACKs; a packet fits a slot of 1,300 bytes (MTU-sized, with the SRTP tag).
    /// The 666 kB are taken on the receiver's first NACK, so slots on clean paths cost nothing.

    /// How often a published audio section's loudest level is reported (`.audioLevel`).
    static let audioLevelInterval = 0.1

    /// At most one key frame request per published section in this time (many receivers of one
    /// track ask at once after a loss; RFC 4585 §3.5 asks feedback to be rate limited).
    static let keyframeRequestInterval = 0.2

    /// Adds the send tracks and published sections of `offer` that the session does not have yet
    /// (at creation, and for every re-offer). Existing tracks and routes stay.
    func addRoomSections(of offer: MediaOffer) {
        var random = SystemRandomNumberGenerator()
        for section in offer.accepted {
            guard let codec = section.codec, let mid = section.mid else { continue }
            if section.answerDirection.sends, trackIndex(section: section.index) == nil,
               let track = answerParameters.sectionTracks[mid] {
                rtp.addSendStream(ssrc: track.ssrc, clockRate: codec.clockRate, section: section.index)
                var slot = RTPForwardingTrack(
                    ssrc: track.ssrc, kind: codec.audio == nil ? .video : .audio, clockRate: codec.clockRate,
                    mediaPayloadType: section.payloadType, telephoneEventPayloadType: nil,
                    initialSequence: .random(in: 0...UInt16.max, using: &random),
                    initialTimestamp: .random(in: 0...UInt32.max, using: &random))
                slot.setREDPayloadType(section.redPayloadType)  // RFC 2198: RED kept for it, else taken off
                tracks.append(slot)
                roomSources.append(nil)
                retransmissions.append(nil)  // room slots resend from their source's cache (`forwardLogs`)
                forwardLogs.append(codec.audio == nil && section.genericNACK ? RTPForwardLog() : nil)
                var video = codec == .video(.vp8) ? SlotVideo(absSendTimeID: section.absSendTimeExtensionID) : nil
                if let payloadType = section.rtxPayloadType, let ssrc = track.rtxSSRC {
                    video?.rtx = SlotRetransmissionStream(payloadType: payloadType, ssrc: ssrc,
                                                          nextSequence: .random(in: 0...UInt16.max, using: &random))
                }
                slotVideo.append(video)
            }
            if section.direction.sends, transportFeedback == nil, let id = section.transportCCExtensionID {
                transportCCID = id
                transportFeedback = TransportFeedbackRecorder()
            }
            if section.direction.sends {
                let ssrcs = Array(section.remoteSSRCs.prefix(RoomInbound.maxSSRCs))
                if let index = roomInbound.firstIndex(where: { $0.section == section.index }) {
                    if !ssrcs.isEmpty { roomInbound[index].ssrcs = ssrcs }
                    roomInbound[index].audioLevelID = section.audioLevelExtensionID
                } else {
                    var inbound = RoomInbound(section: section.index, mid: mid, codec: codec, ssrcs: ssrcs)
                    inbound.audioLevelID = section.audioLevelExtensionID
                    inbound.allowance = Self.publishAllowance(audio: codec.audio != nil, cap: configuration.publishBitrateCap)
                    if codec.audio == nil, section.genericNACK { inbound.nacks = RTPNACKRequester() }
                    if codec.audio == nil { inbound.packets = [RoomInbound.makePacketCache()] }
                    if let simulcast = section.simulcast { inbound.startSimulcast(simulcast) }
                    roomInbound.append(inbound)
                }
            }
        }
    }

    /// A room peer's RTP: forwarded, as it came, to every slot routed to its section. Returns
    /// the number of datagrams queued.
    func receiveRoomRTP(_ datagram: UDPReceivedDatagram, from source: ICETransportAddress, now: Double,
                        out: inout [Datagram], batch: UDPSendBatch) -> Int {
        guard let packet = unprotectRTP(datagram, from: source, now: now, out: &out) else { return 0 }
        let view = packet.view
        // Every packet counts for the sender's bandwidth estimation, probes and padding included.
        if let id = transportCCID, let data = view.extensionElement(id: id),
           let sequence = try? TransportWideSequenceNumber(parsing: data) {
            transportFeedback?.record(sequence.value, arrivalMicroseconds: Int64(now * 1e6))
        }
        guard let format = packet.format, format.kind != .telephoneEvent,
              let inbound = inboundIndex(view, video: format.kind == .video),
              let carried = roomFrame(view, kind: format.kind, inbound: inbound) else {
            counters.mediaDropped += 1
            return 0
        }
        let (frame, red) = (carried.frame, carried.red)
        counters.rtpReceived += 1
        // Padding-only packets (bandwidth probes) go on too: the slots' numbering is the source's
        // plus an offset, so dropping one would read as a loss downstream.
        let vp8 = roomInbound[inbound].codec == .video(.vp8) ? VP8PayloadDescriptor.fields(of: view.payload) : nil
        let layer = noteLayerPacket(view, vp8: vp8, inbound: inbound, now: now)
        if let layer {
            if roomInbound[inbound].layerNACKs.indices.contains(layer) {
                sendNACKs(&roomInbound[inbound].layerNACKs[layer], received: view, now: now, out: &out)
            }
        } else if format.kind == .video, roomInbound[inbound].nacks != nil {
            sendNACKs(&roomInbound[inbound].nacks!, received: view, now: now, out: &out)
        }
        // Past the section's cap: dropped once noted as received (not asked for again).
        guard admitPublished(inbound: inbound, bytes: view.bytes.count, now: now) else { return 0 }
        if layer == nil, format.kind == .video { roomInbound[inbound].meter.add(bytes: view.payload.count, now: now) }
        if let id = roomInbound[inbound].audioLevelID { noteAudioLevel(view, id: id, inbound: inbound, now: now) }
        if let tap = roomInbound[inbound].tap {
            let payloadType = format.kind == .redundantAudio ? offer.sections[roomInbound[inbound].section].payloadType : view.payloadType
            tapSection(view, frame: frame, payloadType: payloadType, codec: roomInbound[inbound].codec, now: now, tap: tap)
        }
        // What the extensions said is read; the subscribers negotiated their own (or none), so
        // the elements go on as padding (RFC 8285 §4.2: zero bytes), in place in the receive slot.
        if let range = view.extensionRange {
            UnsafeMutableRawBufferPointer(rebasing: datagram.slot[range]).initializeMemory(as: UInt8.self, repeating: 0)
        }
        let cache = layer ?? 0
        if roomInbound[inbound].packets.indices.contains(cache) {
            roomInbound[inbound].packets[cache].store(view.bytes, sequenceNumber: view.sequenceNumber, now: now)
        }
        var queued = 0
        var index = 0
        while index < roomInbound[inbound].sinks.count {
            let sink = roomInbound[inbound].sinks[index]
            index += 1
            if let layer {
                switch sink.session.admitLayer(layer, track: sink.track, startsKeyFrame: vp8?.startsKeyFrame == true) {
                case .forward: sink.session.counters.noteLayerForwarded(layer)
                case .skip: continue
                case .awaitKeyFrame:
                    requestKeyframe(inbound: inbound, layer: layer, now: now, out: &out)
                    continue
                }
            }
            if layer == nil, sink.session.slotVideo.indices.contains(sink.track), sink.session.slotVideo[sink.track]?.switchedOff == true {
                continue  // switched off by its subscriber's allocation
            }
            // A slot without RED gets what the publisher's redundancy recovered as packets of their own.
            if let red, !recoveredBlocks.isEmpty, sink.session.tracks.indices.contains(sink.track),
               sink.session.tracks[sink.track].redPayloadType == nil {
                queued += sendRecovered(red, ssrc: view.ssrc, to: sink.session, track: sink.track, now: now, batch: batch)
            }
            if let vp8, sink.session.slotVideo.indices.contains(sink.track), sink.session.slotVideo[sink.track]?.awaitingKeyFrame == true {
                guard vp8.startsKeyFrame else {
                    sink.session.counters.forwardDropped += 1
                    requestKeyframe(inbound: inbound, now: now, out: &out)  // ≤ 1 per 200 ms
                    continue
                }
                sink.session.slotVideo[sink.track]?.awaitingKeyFrame = false
            }
            if sink.session.sendForwarded(ssrc: view.ssrc, sequenceNumber: view.sequenceNumber, timestamp: view.timestamp,
                                          marker: view.marker, kind: format.kind, source: view, frame: frame,
                                          track: sink.track, vp8: vp8, now: now, batch: batch) { queued += 1 }
        }
        return queued
    }

    /// Our arrival times of what the peer sent since the last feedback, for its bandwidth
    /// estimation (every housekeeping tick, 100 ms).
    func sendTransportFeedback(out: inout [Datagram]) {
        guard let destination = selectedSocketAddress,
              let feedback = transportFeedback?.feedback(senderSSRC: rtp.receiverSSRC,
                                                         mediaSSRC: roomInbound.first?.ssrcs.first ?? 0) else { return }
        do {
            out.append(Datagram(address: destination, bytes: try rtp.transportFeedbackDatagram(feedback)))
            counters.rtcpSent += 1
            counters.transportFeedbackSent += 1
        } catch {
            count(error)
        }
    }

    /// Reports the peer's paths since the last sample (`.quality`): uplink loss from what we
    /// received, downlink loss and round trip from its reports on our slots.
    func reportQuality() {
        guard let events else { return }
        var expected: Int64 = 0, lost: Int64 = 0, jitter = 0.0
        for stream in rtp.receiveStreams {
            let s = stream.statistics
            lost += s.cumulativeLost
            expected += s.cumulativeLost + Int64(s.packetsReceived)
            jitter = max(jitter, Double(s.jitter) / Double(max(stream.clockRate, 1)))
        }
        let interval = (expected: expected - qualityBaseline.expected, lost: lost - qualityBaseline.lost)
        qualityBaseline = (expected, lost)
        var downlink = 0.0
        var rtt: Duration?
        for stream in rtp.sendStreams {
            if let report = stream.remoteReport { downlink = max(downlink, Double(report.fractionLost) / 256) }
            if let sample = stream.roundTripTime { rtt = max(rtt ?? sample, sample) }
        }
        let uplink = interval.expected > 0 ? min(max(Double(interval.lost) / Double(interval.expected), 0), 1) : 0
        events.send(.quality(sessionID: id, PeerSessionQuality(uplinkLoss: uplink, downlinkLoss: downlink,
                                                               roundTripTime: rtt, jitter: jitter,
                                                               downlinkBudget: self.downlink.budget.bitrate,
                                                               downlinkWanted: self.downlink.wanted)))
    }

    /// Keeps the loudest RFC 6464 level (§3) of a published audio section and reports it once per
    /// `audioLevelInterval`.
    func noteAudioLevel(_ view: RTPPacketView, id: UInt8, inbound: Int, now: Double) {
        guard let data = view.extensionElement(id: id), let level = try? AudioLevel(parsing: data) else { return }
        roomInbound[inbound].loudest = min(roomInbound[inbound].loudest, level.level)
        guard now >= roomInbound[inbound].nextLevelReport else { return }
        events?.send(.audioLevel(sessionID: self.id, mid: roomInbound[inbound].mid, level: roomInbound[inbound].loudest))
        roomInbound[inbound].loudest = 127
        roomInbound[inbound].nextLevelReport = now + Self.audioLevelInterval
    }

    /// The published section of a packet's SSRC. An unknown SSRC is bound by its mid and rid
    /// elements to a simulcast section's layer, or else taken by the first section of its kind
    /// that announced none.
    func inboundIndex(_ view: RTPPacketView, video: Bool) -> Int? {
        let ssrc = view.ssrc
        var index = 0
        while index < roomInbound.count {
            if roomInbound[index].ssrcs.contains(ssrc) { return index }
            index += 1
        }
        if video, let simulcast = bindSimulcastStream(view) { return simulcast }
        guard let learner = roomInbound.firstIndex(where: {
            $0.ssrcs.isEmpty && $0.simulcast == nil && ($0.codec.audio == nil) == video
        }) else {
            return nil
        }
        roomInbound[learner].ssrcs = [ssrc]
        return learner
    }

    /// Asks our peer for a key frame of its published section `inbound` (PLI, RFC 4585 §6.3.1) —
    /// of one `layer` of a simulcast section, whose own SSRC is asked — at most once per
    /// `keyframeRequestInterval` (per layer).
    func requestKeyframe(inbound: Int, layer: Int? = nil, now: Double, out: inout [Datagram]) {
        guard inbound < roomInbound.count, roomInbound[inbound].codec.audio == nil,
              let destination = selectedSocketAddress else { return }
        let ssrc: UInt32
        if let layers = roomInbound[inbound].layers {
            guard let layer, layers.layers.indices.contains(layer), let layerSSRC = layers.layers[layer].ssrc else { return }
            guard now - roomInbound[inbound].layerKeyframeRequests[layer] >= Self.keyframeRequestInterval else {
                counters.keyframeRequestsThrottled += 1
                return
            }
            roomInbound[inbound].layerKeyframeRequests[layer] = now
            ssrc = layerSSRC
        } else {
            guard let first = roomInbound[inbound].ssrcs.first else { return }
            guard now - roomInbound[inbound].lastKeyframeRequest >= Self.keyframeRequestInterval else {
                counters.keyframeRequestsThrottled += 1
                return
            }
            roomInbound[inbound].lastKeyframeRequest = now
            ssrc = first
        }
        do {
            out.append(Datagram(address: destination, bytes: try rtp.keyframeRequestDatagram(from: nil, to: ssrc)))
            counters.rtcpSent += 1
            counters.keyframeRequestsRelayed += 1
        } catch {
            count(error)
        }
    }

    /// Our peer asked a key frame of a slot's track: the request goes to the slot's source.
    func relayRoomKeyframeRequest(on ssrc: UInt32, now: Double, out: inout [Datagram]) {
        guard let track = tracks.firstIndex(where: { $0.ssrc == ssrc && $0.kind == .video }) else { return }
        requestSourceKeyframe(track: track, now: now, out: &out)
    }

    /// Asks the source of slot `track` for a key frame: of the layer the slot forwards or waits
    /// for, when the source is simulcast.
    func requestSourceKeyframe(track: Int, now: Double, out: inout [Datagram]) {
        guard let source = roomSources[track] else { return }
        let video = slotVideo.indices.contains(track) ? slotVideo[track] : nil
        source.session.requestKeyframe(inbound: source.inbound, layer: video?.targetLayer ?? video?.layer, now: now, out: &out)
    }

    /// Routes `source` (a session and one of its published sections) into our slot `track`, or
    /// empties the slot; the slot's next packet resynchronises its stream.
    func setRoomSource(_ source: RoomSource?, track: Int) {
        if let old = roomSources[track] {
            old.session.roomInbound[old.inbound].sinks.removeAll { $0.session === self && $0.track == track }
        }
        roomSources[track] = source
        if let source { source.session.roomInbound[source.inbound].sinks.append(RoomSink(session: self, track: track)) }
        tracks[track].sourceChanged()
        videoSourceChanged(track: track)
    }

    /// A VP8 slot's next source starts at its next key frame, numbered on from the last picture.
    func videoSourceChanged(track: Int) {
        guard slotVideo.indices.contains(track), slotVideo[track] != nil else { return }
        slotVideo[track]?.awaitingKeyFrame = true
        slotVideo[track]?.pictures.sourceChanged()
        slotVideo[track]?.layer = nil
        slotVideo[track]?.targetLayer = nil
        slotVideo[track]?.switchedOff = false
    }

    /// Ends the routes of a room session: its slots are emptied, and slots fed by it elsewhere too.
    func unlinkRoom() {
        for track in roomSources.indices where roomSources[track] != nil { setRoomSource(nil, track: track) }
        for inbound in roomInbound.indices {
            for sink in roomInbound[inbound].sinks {
                sink.session.roomSources[sink.track] = nil
                sink.session.tracks[sink.track].sourceChanged()
                sink.session.videoSourceChanged(track: sink.track)
            }
            roomInbound[inbound].sinks = []
        }
    }
}
