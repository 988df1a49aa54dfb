import ParleyCore
import ParleyNet
import ParleyRTP
import SDP
import SFU

/// Room sessions on the loop: creation helpers, re-offers and routes.
extension MediaTransportCore {
    /// A track of ours for every section of `offer` where we send and `existing` has none: a
    /// fresh SSRC (distinct from the others, RFC 3550 §8.1) and an msid naming the slot
    /// (`parley-slot` / the mid), since what a slot carries changes with its routes.
    static func sectionTracks(for offer: MediaOffer, adding existing: [String: AnswerParameters.SectionTrack],
                              using random: inout SystemRandomNumberGenerator) -> [String: AnswerParameters.SectionTrack] {
        var tracks = existing
        var used = Set(existing.values.flatMap { [$0.ssrc] + ($0.rtxSSRC.map { [$0] } ?? []) })
        for section in offer.accepted where section.answerDirection.sends {
            guard let mid = section.mid, tracks[mid] == nil else { continue }
            func fresh() -> UInt32 {
                var ssrc = UInt32.random(in: 1...UInt32.max, using: &random)
                while used.contains(ssrc) { ssrc = UInt32.random(in: 1...UInt32.max, using: &random) }
                used.insert(ssrc)
                return ssrc
            }
            let ssrc = fresh()
            tracks[mid] = .init(msid: SDPMSID(streamID: "parley-slot-\(mid)", trackID: "slot-\(mid)"), ssrc: ssrc,
                                rtxSSRC: section.rtxPayloadType == nil ? nil : fresh())
        }
        return tracks
    }

    /// The sections of a room session's current offer, for the room service.
    static func roomSections(_ session: PeerSession) -> RoomSessionAnswer {
        let accepted = session.offer.accepted
        func sections(_ keep: (OfferedMediaSection) -> Bool) -> [RoomSessionAnswer.Section] {
            accepted.filter(keep).compactMap { section in
                guard let mid = section.mid, let codec = section.codec else { return nil }
                return .init(mid: mid, codec: codec)
            }
        }
        return RoomSessionAnswer(id: session.id, sdp: session.answer, sending: sections { $0.direction.sends },
                                 receiving: sections { $0.answerDirection.sends },
                                 application: session.offer.application.map { $0.mid ?? "" })
    }

    /// A re-offer of a room session: new sections add tracks and published sections; sections
    /// that stay keep their codec, SSRC and routes; sections no longer used lose their routes.
    /// New ICE credentials restart ICE as for a call session.
    func renegotiateRoom(id: String, offer description: SessionDescription,
                         videoCodecs: [VideoCodec] = MediaTransportServer.roomVideoCodecs) -> Result<RoomSessionAnswer, ParleyError> {
        guard let session = sessions[id], session.kind == .room, !session.state.isTerminal else {
            return .failure(ParleyError(.mediaServerRemoteDescFailed, reason: "no live room session \(id)"))
        }
        let offer: MediaOffer
        do { offer = try MediaOffer(roomOffer: description, videoCodecs: videoCodecs) } catch {
            return .failure(error)
        }
        // RFC 8829 §5.2.2: a subsequent offer keeps every m-section (rejected ones included).
        guard offer.sections.count >= session.offer.sections.count else {
            return .failure(ParleyError(.mediaServerRemoteDescFailed, reason: "the re-offer drops m-sections"))
        }
        for old in session.offer.accepted {
            let new = offer.sections[old.index]
            if new.isAccepted, new.codec != old.codec {
                return .failure(ParleyError(.mediaNoSupportedCodec,
                                            reason: "the re-offer changes section \(old.mid ?? "-")'s codec"))
            }
        }
        var random = SystemRandomNumberGenerator()
        var parameters = session.answerParameters
        parameters.sectionTracks = Self.sectionTracks(for: offer, adding: parameters.sectionTracks, using: &random)
        session.answerParameters = parameters
        switch restart(session, offer: offer) {
        case .failure(let error): return .failure(error)
        case .success: break
        }
        session.offer = offer  // `restart` set the payload formats (`PeerSession.renegotiate`)
        session.addRoomSections(of: offer)
        if session.prepareData(now: now, out: &outbox) { noteData(session) }
        // What this offer no longer sends or receives in loses its routes.
        for (track, stream) in session.rtp.sendStreams.enumerated()
        where !offer.sections[stream.section].answerDirection.sends || !offer.sections[stream.section].isAccepted {
            session.setRoomSource(nil, track: track)
        }
        for inbound in session.roomInbound.indices {
            let section = offer.sections[session.roomInbound[inbound].section]
            guard !section.isAccepted || !section.direction.sends else { continue }
            for sink in session.roomInbound[inbound].sinks { sink.session.setRoomSource(nil, track: sink.track) }
        }
        return .success(Self.roomSections(session))
    }

    /// Routes a published section into a slot (nil empties it); see `MediaTransportServer.route`.
    func play(_ frame: EncodedAudioFrame, to slot: MediaSectionAddress) {
        guard let session = sessions[slot.session], session.kind == .room, let batch = socket?.sendBatch,
              let section = session.offer.sections.first(where: { $0.mid == slot.mid && $0.isAccepted }),
              let track = session.trackIndex(section: section.index) else { return }
        if session.play(frame, track: track, now: now, batch: batch) {
            stats.datagramsSent += 1
            stats.framesPlayed += 1
        }
        flush()
    }

    func route(_ source: MediaSectionAddress?, to slot: MediaSectionAddress, priority: TrackPriority = .standard) -> Bool {
        guard let sink = sessions[slot.session], sink.kind == .room, !sink.state.isTerminal,
              let section = sink.offer.sections.first(where: { $0.mid == slot.mid && $0.isAccepted }),
              let track = sink.trackIndex(section: section.index) else { return false }
        guard let source else {
            sink.setRoomSource(nil, track: track)
            return true
        }
        guard source.session != slot.session, let publisher = sessions[source.session], publisher.kind == .room,
              !publisher.state.isTerminal,
              let inbound = publisher.roomInbound.firstIndex(where: { $0.mid == source.mid }),
              publisher.offer.sections[publisher.roomInbound[inbound].section].direction.sends else { return false }
        guard publisher.roomInbound[inbound].codec == section.codec else {
            Log.info(.webrtc, "cannot route \(source.session)/\(source.mid) → \(slot.session)/\(slot.mid): "
                     + "\(publisher.roomInbound[inbound].codec.encodingName) vs \(section.codec?.encodingName ?? "-")")
            return false
        }
        if sink.slotVideo.indices.contains(track) { sink.slotVideo[track]?.priority = priority }
        if let current = sink.roomSources[track], current.session === publisher, current.inbound == inbound { return true }
        sink.setRoomSource(RoomSource(session: publisher, inbound: inbound), track: track)
        // A slot not connected yet asks once it is (`updateConnected`): frames before are dropped.
        if sink.state == .connected {
            publisher.requestKeyframe(inbound: inbound, now: now, out: &outbox)
            flush()
        }
        Log.debug(.webrtc, "route \(source.session)/\(source.mid) → \(slot.session)/\(slot.mid)")
        return true
    }
}
