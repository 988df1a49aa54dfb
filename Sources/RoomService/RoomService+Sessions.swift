import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import Signaling

/// Participants with media: `connect` (room signaling's `room.join`) opens a participant's
/// WebRTC session from its offer, publishes the tracks its sending sections carry and routes its
/// subscriptions into its receive slots; `renegotiate` (`room.offer`) applies a re-offer. The
/// others hear of it in order: `room.participantConnected`, a `room.trackPublished` per track,
/// then `room.subscribed` (or `room.renegotiate` when they lack slots).
extension RoomService {
    /// Joins a room with media: what `room.joined` carries is posted on `link` (with `ref`)
    /// before any other message for this participant, and returned.
    /// - Parameters:
    ///   - tracks: what the offer's sending sections carry, each naming its section by `mid`.
    ///   - automaticSubscription: receive every track the subscribe rules allow (else only those
    ///     `subscribe` names).
    ///   - dominantSpeaker: send it `room.dominantSpeaker` when the room's dominant speaker changes.
    ///   - networkQuality: send it `room.networkQuality` when its or another's level changes.
    ///   - peerToPeer: the client speaks the `room.peer*` relay, so it may join a `peer-to-peer`
    ///     or `go` room (`connectPeer`: no media session, `offer` ignored).
    /// - Throws: 53000 (no media plane), 53403 (no offer for a group room), 53114 (a peer-to-peer
    ///   room and not `peerToPeer`), 53125 (a video track in an `AudioOnly` room), 53300 (a track
    ///   names no sending section of its kind, or two name one), the media plane's 534xx,
    ///   `join`'s and `publish`'s errors.
    public func connect(accountSid: String, identity: String, room: String, offer: String?, tracks: [RoomTrackInfo],
                        automaticSubscription: Bool = true, dominantSpeaker: Bool = false, networkQuality: Bool = false,
                        bandwidthProfile: RoomBandwidthProfile? = nil, peerToPeer: Bool = false,
                        permissions: RoomPermissions = .all, reconnect: String? = nil, ref: String? = nil,
                        link: any RoomParticipantLink) async throws(ParleyError) -> RoomJoined {
        guard tracks.count <= Self.maxTracksPerParticipant else {
            throw ParleyError(.participantMaxTracksExceeded, reason: "at most \(Self.maxTracksPerParticipant) tracks")
        }
        let existing = liveRoom(accountSid: accountSid, name: room)
        if let type = existing?.type, Self.isPeerToPeer(type) {
            guard peerToPeer else {
                throw ParleyError(.roomInvalidParameters, reason: "room \(room) is \(type.rawValue): its media does not go through the server")
            }
            return try connectPeer(accountSid: accountSid, identity: identity, room: room, tracks: tracks,
                                   permissions: permissions, ref: ref, link: link)
        }
        guard let media else { throw ParleyError(.signalingConnection, reason: "this server has no room media plane") }
        guard let offer else { throw ParleyError(.mediaServerRemoteDescFailed, reason: "room.join needs an offer in a group room") }
        try Self.check(tracks, in: existing)
        let sink = mediaEventSink
        let description = try await media.open(offer: offer, videoCodecs: Self.videoCodecs(of: existing)) { sink.yield(.event($0)) }
        let record: ParticipantRecord
        let roomRecord: RoomRecord
        do throws(ParleyError) {
            try Self.check(tracks, against: description.sending, published: [:])
            try Self.checkData(tracks, application: description.application)
            try Self.check(tracks, allowedBy: permissions)
            if let sid = reconnectable(reconnect, accountSid: accountSid, identity: identity, room: room) {
                return try rejoin(sid, description: description, tracks: tracks, automaticSubscription: automaticSubscription,
                                  dominantSpeaker: dominantSpeaker, networkQuality: networkQuality,
                                  bandwidthProfile: bandwidthProfile, ref: ref, link: link)
            }
            (roomRecord, record) = try admit(accountSid: accountSid, identity: identity, room: room,
                                             permissions: permissions, link: link)
        } catch {
            mediaWork.post { await media.close(session: description.session) }
            throw error
        }
        participants[record.sid]?.session = RoomSession(description, automaticSubscription: automaticSubscription)
        participants[record.sid]?.wantsDominantSpeaker = dominantSpeaker
        participants[record.sid]?.qualityReports.wanted = networkQuality
        if let bandwidthProfile {
            participants[record.sid]?.bandwidthProfile = BandwidthProfile(bandwidthProfile)
            applyBandwidthProfile(of: record.sid)
        }
        sessionOwners[description.session] = record.sid
        do throws(ParleyError) {
            try publish(tracks, of: record.sid)
        } catch {
            leave(participantSid: record.sid)
            throw error
        }
        let joined = sendJoined(record.sid, room: roomRecord, answer: description.answer, ref: ref)
        announceArrival(of: record)
        return joined
    }

    /// Fills a joined participant's slots and posts its `room.joined` (with `ref`), who speaks
    /// and the levels known so far, then `room.renegotiate` if it lacks slots.
    func sendJoined(_ sid: String, room: RoomRecord, answer: String, ref: String?) -> RoomJoined {
        let plan = reconcile(sid, tell: false)
        let joined = RoomJoined(room: RoomInfo(sid: room.sid, name: room.uniqueName,
                                               type: Signaling.RoomType(rawValue: room.type.rawValue) ?? .group,
                                               isRecording: isRecording(roomSid: room.sid)),
                                participant: info(of: sid, local: true),
                                participants: Array(announcedOthers(of: sid).prefix(RoomProtocol.maxParticipants)
                                    .map { info(of: $0.record.sid, local: false) }),
                                answer: answer, published: published(of: sid), subscriptions: subscriptionMap(of: sid),
                                iceServers: configuration.iceServers(participants[sid]?.record.identity ?? ""))
        guard let live = participants[sid] else { return joined }
        live.post(.roomJoined(joined), ref: ref)
        joinedActivity(sid)
        if let request = plan.renegotiate { live.post(.roomRenegotiate(request)) }
        return joined
    }

    /// A participant's `room.joined` went out: every other participant gets
    /// `room.participantConnected`, a `room.trackPublished` per track, then what its slots take.
    func announceArrival(of record: ParticipantRecord) {
        announced.insert(record.sid)
        tellOthers(of: record, .roomParticipantConnected(RoomParticipantConnected(
            participant: RoomParticipantInfo(sid: record.sid, identity: record.identity))))
        let published = publishedTracks(participantSid: record.sid).compactMap { trackInfo($0.sid, local: false) }
        for other in announcedOthers(of: record.sid) {
            for track in published {
                other.post(.roomTrackPublished(RoomTrackPublished(participantSid: record.sid, track: track)))
            }
            reconcile(other.record.sid)
        }
    }

    /// Applies a participant's re-offer (`room.offer`): new sending sections with a described
    /// track are published, sending sections gone unpublish their track, new receive slots take
    /// the subscriptions waiting for one, slots gone give theirs back. Posts `room.answer` (with
    /// `ref`), then `room.subscribed` for each slot this filled, then `room.renegotiate` if slots
    /// are still missing.
    /// - Throws: 53204 (no such participant with media), 53125, 53300, the media plane's 534xx.
    @discardableResult
    public func renegotiate(participantSid: String, offer: String, tracks: [RoomTrackInfo],
                            ref: String? = nil) async throws(ParleyError) -> RoomAnswer {
        guard let media, let sessionID = participants[participantSid]?.session?.id else {
            throw ParleyError(.participantNotFound, reason: "participant \(participantSid) has no media session")
        }
        let room = participants[participantSid].flatMap { rooms[$0.record.roomSid]?.record }
        try Self.check(tracks, in: room)
        let description = try await media.renegotiate(session: sessionID, offer: offer, videoCodecs: Self.videoCodecs(of: room))
        guard var session = participants[participantSid]?.session, session.id == description.session else {
            throw ParleyError(.participantNotFound, reason: "participant \(participantSid) left meanwhile")
        }
        let mine = publishedTracks(participantSid: participantSid)
        let publishedMids = Dictionary(mine.compactMap { track in self.tracks[track.sid]?.mid.map { ($0, track.sid) } },
                                       uniquingKeysWith: { (first: String, _: String) in first })
        try Self.check(tracks, against: description.sending, published: publishedMids)
        try Self.checkData(tracks, application: description.application)
        let gone = session.apply(description)
        participants[participantSid]?.session = session
        for mid in gone.sending { if let sid = publishedMids[mid] { unpublish(trackSid: sid) } }
        // Data tracks have no section: one already published under its name stays as it is.
        try publish(tracks.filter { $0.kind == .data ? publishedData(named: $0.name, by: participantSid) == nil
                                        : publishedMids[$0.mid ?? ""] == nil }, of: participantSid)
        let plan = reconcile(participantSid, tell: false)
        let answer = RoomAnswer(answer: description.answer, published: published(of: participantSid),
                                subscriptions: subscriptionMap(of: participantSid))
        guard let live = participants[participantSid] else { return answer }
        live.post(.roomAnswer(answer), ref: ref)
        deliver(plan, to: participantSid)
        return answer
    }

    /// Enables or disables one of the participant's own tracks (`room.trackEnabled`); the others
    /// get `room.trackChanged`. False if it publishes no such track or it is already so.
    @discardableResult
    public func setTrackEnabled(participantSid: String, trackSid: String, _ enabled: Bool) -> Bool {
        guard tracks[trackSid]?.record.participantSid == participantSid else { return false }
        return setEnabled(trackSid: trackSid, enabled)
    }

    /// Returns once the media events reported so far are handled and the routes and messages
    /// decided so far have reached the media plane and the links (tests and orderly shutdown).
    public func settle() async {
        let sink = mediaEventSink
        await withCheckedContinuation { (passed: CheckedContinuation<Void, Never>) in
            if case .terminated = sink.yield(.barrier { passed.resume() }) { passed.resume() }
        }
        await mediaWork.drain()
        for live in participants.values { await live.outbox.drain() }
    }

    // MARK: - Hooks of publish, unpublish and leave

    /// A track of an announced participant was published: the others hear of it and may receive it.
    func trackPublished(_ trackSid: String) {
        guard let track = tracks[trackSid], announced.contains(track.record.participantSid) else { return }
        announce(track.record)
    }

    /// A track was unpublished: its subscribers' slots are emptied, then everyone is told, then
    /// the freed slots take tracks waiting for one.
    func trackUnpublished(_ track: PublishedTrackRecord) {
        guard announced.contains(track.participantSid) else { return }
        for other in announcedOthers(of: track.participantSid, roomSid: track.roomSid) {
            let sid = other.record.sid
            if let slot = participants[sid]?.session?.empty(carrying: track.sid), let session = other.session {
                route(slot, carrying: nil, session: session.id)
                other.post(.roomUnsubscribed(RoomTrackReference(trackSid: track.sid)))
            }
            other.post(.roomTrackUnpublished(RoomTrackUnpublished(participantSid: track.participantSid, trackSid: track.sid)))
            reconcile(sid)
        }
    }

    /// A participant with media left (its tracks already unpublished): its session is closed and
    /// the others told.
    func sessionGone(_ session: RoomSession, of record: ParticipantRecord) {
        sessionOwners[session.id] = nil
        if let media { mediaWork.post { await media.close(session: session.id) } }
        tellOthers(of: record, .roomParticipantDisconnected(RoomParticipantReference(participantSid: record.sid)))
        announced.remove(record.sid)
    }

    /// Posts `message` about an announced participant to every other announced one of its room.
    func tellOthers(of record: ParticipantRecord, _ message: SignalingMessage) {
        guard announced.contains(record.sid) else { return }
        for other in announcedOthers(of: record.sid, roomSid: record.roomSid) { other.post(message) }
    }

    // MARK: - Media events

    func mediaEvent(_ event: RoomMediaEvent) {
        switch event {
        case .closed(let session, let error):
            guard let sid = sessionOwners[session] else { return }
            // The peer closed it (DTLS close_notify): it is leaving, as with `room.leave`, which
            // may still be on its way. A failure removes it with the media error (53405, 53407).
            guard let error else { return leave(participantSid: sid) }
            remove(sid, reason: error)
        case .disconnected(let session), .reconnected(let session):
            guard let sid = sessionOwners[session] else { return }
            if case .disconnected = event { participant(sid, path: .media, reachable: false) } else {
                participant(sid, path: .media, reachable: true)
            }
        case .audioLevel(let session, let mid, let level):
            audioLevel(level, session: session, mid: mid)
        case .quality(let session, let quality):
            networkQuality(quality, session: session)
        case .trackSwitched(let session, let mid, let off):
            trackSwitched(session: session, mid: mid, off: off)
        case .dataChannelOpened(let session, let label):
            dataChannel(label, opened: true, session: session)
        case .dataChannelClosed(let session, let label):
            dataChannel(label, opened: false, session: session)
        case .connected:
            break
        }
    }

    // MARK: - Helpers

    /// Every described track must name, by `mid`, a sending section of its kind that no other
    /// described or published track names (data tracks have no section).
    static func check(_ described: [RoomTrackInfo], against sending: [RoomMediaDescription.Section],
                      published: [String: String]) throws(ParleyError) {
        var named: Set<String> = []
        for track in described where track.kind != .data {
            guard let mid = track.mid, let section = sending.first(where: { $0.mid == mid }),
                  section.kind.rawValue == track.kind.rawValue else {
                throw ParleyError(.trackInvalid, reason: "track \(track.name) names no sending \(track.kind.rawValue) section")
            }
            guard named.insert(mid).inserted else { throw ParleyError(.trackInvalid, reason: "two tracks name section \(mid)") }
        }
    }

    func publish(_ described: [RoomTrackInfo], of participantSid: String) throws(ParleyError) {
        for track in described {
            let kind = TrackKind(rawValue: track.kind.rawValue) ?? .data
            let record = try publish(participantSid: participantSid, name: track.name, kind: kind,
                                     priority: track.priority.rawValue, mid: track.kind == .data ? nil : track.mid)
            if !track.enabled { setEnabled(trackSid: record.sid, false) }
        }
    }

    /// Tells the others of a published track, then lets their subscriptions take it.
    private func announce(_ track: PublishedTrackRecord) {
        guard let publisher = participants[track.participantSid]?.record else { return }
        let info = trackInfo(track.sid, local: false)
        for other in announcedOthers(of: publisher.sid) {
            if let info { other.post(.roomTrackPublished(RoomTrackPublished(participantSid: publisher.sid, track: info))) }
            reconcile(other.record.sid)
        }
    }

    /// The other participants of a room whose `room.participantConnected` went out, by join order.
    func announcedOthers(of participantSid: String, roomSid: String? = nil) -> [LiveParticipant] {
        guard let roomSid = roomSid ?? participants[participantSid]?.record.roomSid else { return [] }
        return participants.values.filter {
            $0.record.roomSid == roomSid && $0.record.sid != participantSid && announced.contains($0.record.sid)
        }.sorted { $0.order < $1.order }
    }

    func trackInfo(_ sid: String, local: Bool) -> RoomTrackInfo? {
        guard let track = tracks[sid], let kind = RoomTrackKind(rawValue: track.record.kind.rawValue) else { return nil }
        return RoomTrackInfo(sid: sid, mid: local ? track.mid : nil, name: track.record.name, kind: kind,
                             priority: RoomTrackPriority(rawValue: track.priority) ?? .standard, enabled: track.record.enabled)
    }

    func info(of participantSid: String, local: Bool) -> RoomParticipantInfo {
        let record = participants[participantSid]?.record
        return RoomParticipantInfo(sid: participantSid, identity: record?.identity ?? "",
                                   tracks: publishedTracks(participantSid: participantSid).compactMap { trackInfo($0.sid, local: local) })
    }

    func published(of participantSid: String) -> [RoomPublishedTrack] {
        publishedTracks(participantSid: participantSid).compactMap { track in
            tracks[track.sid]?.mid.map { RoomPublishedTrack(mid: $0, trackSid: track.sid) }
        }
    }
}
