import AccessToken
import ParleyCore
import PlatformCore
import RoomService
import Signaling
import Synchronization
import VoiceEngine

/// Room signaling over the room service: the engine hands each client `room.*` request here
/// (docs/signaling.md §12). One room per signaling session, on the service the router names for
/// it at join; its participant leaves on `room.leave` or when the session ends, and a
/// participant the service removes is forgotten.
actor RoomSignalingAdapter: RoomSignalingHandler {
    /// A session's participant and the service that holds its room.
    struct Membership {
        let participantSid: String
        let rooms: RoomService
    }

    let router: any RoomRouter
    /// Each participant takes a unit of its identity's media-session quota while it is in.
    let quotas: QuotaLedger?
    /// Signaling sessions → the participant each is in a room as.
    private var participants: [String: Membership] = [:]
    /// Sessions whose `room.join` is under way, and those of them that ended meanwhile.
    private var joining: Set<String> = []
    private var endedWhileJoining: Set<String> = []

    init(router: any RoomRouter, quotas: QuotaLedger? = nil) {
        self.router = router
        self.quotas = quotas
    }

    func handle(_ message: SignalingMessage, ref: String?, from connection: RoomSignalingConnection) async {
        let reply = connection.send
        switch message {
        case .roomJoin(let join):
            await self.join(join, ref: ref, connection: connection)
        case .roomOffer(let offer):
            guard let (sid, rooms) = await participant(of: connection, ref: ref) else { return }
            do {
                try await rooms.renegotiate(participantSid: sid, offer: offer.offer, tracks: offer.tracks, ref: ref)
            } catch {
                await reply(Self.error(error), ref)
            }
        case .roomTrackEnabled(let change):
            guard let (sid, rooms) = await participant(of: connection, ref: ref) else { return }
            await rooms.setTrackEnabled(participantSid: sid, trackSid: change.trackSid, change.enabled)
        case .roomSubscribe(let track):
            guard let (sid, rooms) = await participant(of: connection, ref: ref) else { return }
            await rooms.subscribe(participantSid: sid, trackSid: track.trackSid, ref: ref)
        case .roomUnsubscribe(let track):
            guard let (sid, rooms) = await participant(of: connection, ref: ref) else { return }
            await rooms.unsubscribe(participantSid: sid, trackSid: track.trackSid, ref: ref)
        case .roomPeerOffer, .roomPeerAnswer, .roomPeerCandidate:
            guard let (sid, rooms) = await participant(of: connection, ref: ref) else { return }
            do {
                try await rooms.relay(message, from: sid)
            } catch {
                await reply(Self.error(error), ref)
            }
        case .roomLeave:
            guard let member = participants.removeValue(forKey: connection.id) else { return }
            await member.rooms.leave(participantSid: member.participantSid)
        default:
            await reply(.error(SignalingErrorBody(code: .malformedRequest, message: "\(message.type.rawValue) is not a room request")), ref)
        }
    }

    func ended(connection id: String) async {
        if joining.contains(id) { endedWhileJoining.insert(id) }
        guard let member = participants.removeValue(forKey: id) else { return }
        await member.rooms.leave(participantSid: member.participantSid)
    }

    /// The service removed the participant (its `room.disconnected` was sent).
    func connection(_ id: String, reachable: Bool) async {
        guard let member = participants[id] else { return }
        await member.rooms.participant(member.participantSid, path: .signaling, reachable: reachable)
    }

    func forget(connection id: String, participantSid: String) {
        if participants[id]?.participantSid == participantSid { participants[id] = nil }
    }

    private func join(_ join: RoomJoin, ref: String?, connection: RoomSignalingConnection) async {
        guard participants[connection.id] == nil, !joining.contains(connection.id) else {
            return await connection.send(Self.error(ParleyError(.conflict, reason: "this connection is in a room already")), ref)
        }
        let name = join.room ?? connection.video.room ?? ""
        let rooms: RoomService
        do { rooms = try await router.service(accountSid: connection.accountSid, room: name) } catch {
            return await connection.send(Self.error(error), ref)
        }
        // A grant that names a room (by name or SID) admits to that room only.
        if let granted = connection.video.room, let asked = join.room,
           await !rooms.sameRoom(accountSid: connection.accountSid, granted, asked) {
            return await connection.send(Self.error(ParleyError(
                .accessTokenGrantsInvalid, reason: "the access token's video grant is for another room")), ref)
        }
        joining.insert(connection.id)
        defer { joining.remove(connection.id) }
        let link = Link(connection: connection, adapter: self)
        var lease: QuotaLease?
        do {
            lease = try quotas?.acquire(.mediaSession, for: connection.quotaOwner)
            let joined = try await rooms.connect(accountSid: connection.accountSid, identity: connection.identity,
                                                 room: name, offer: join.offer,
                                                 tracks: join.tracks, automaticSubscription: join.automaticSubscription,
                                                 dominantSpeaker: join.dominantSpeaker ?? false,
                                                 networkQuality: join.networkQuality ?? false,
                                                 bandwidthProfile: join.bandwidthProfile, peerToPeer: true,
                                                 permissions: RoomPermissions(connection.video),
                                                 reconnect: join.reconnectParticipantSid, ref: ref, link: link)
            let sid = joined.participant.sid
            if let lease { await rooms.hold(lease, for: sid) }
            link.participantSid.withLock { $0 = sid }
            // A rejoined participant's old session no longer speaks for it.
            for (old, other) in participants where other.participantSid == sid { participants[old] = nil }
            if endedWhileJoining.remove(connection.id) != nil {
                await rooms.leave(participantSid: sid)
            } else {
                participants[connection.id] = Membership(participantSid: sid, rooms: rooms)
            }
        } catch {
            lease?.release()
            endedWhileJoining.remove(connection.id)
            await connection.send(Self.error(error), ref)
        }
    }

    /// The session's participant and its room's service, or an `error` (53204) when it is in no room.
    private func participant(of connection: RoomSignalingConnection, ref: String?) async -> (String, RoomService)? {
        if let member = participants[connection.id] { return (member.participantSid, member.rooms) }
        await connection.send(Self.error(ParleyError(.participantNotFound, reason: "this connection is in no room")), ref)
        return nil
    }

    static func error(_ error: ParleyError) -> SignalingMessage {
        .error(SignalingErrorBody(code: error.code.rawValue, message: error.failureReason ?? error.code.text))
    }

    /// A participant's link: its messages go out on its signaling session.
    final class Link: RoomParticipantLink {
        let connection: RoomSignalingConnection
        let adapter: RoomSignalingAdapter
        /// Set once `connect` returned.
        let participantSid = Mutex<String?>(nil)

        init(connection: RoomSignalingConnection, adapter: RoomSignalingAdapter) {
            self.connection = connection
            self.adapter = adapter
        }

        func send(_ message: SignalingMessage, ref: String?) async {
            await connection.send(message, ref)
        }

        func removed(_ reason: ParleyError) async {
            guard let sid = participantSid.withLock({ $0 }) else { return }
            await adapter.forget(connection: connection.id, participantSid: sid)
        }
    }
}

extension RoomPermissions {
    /// What a token's video grant allows: Parley's finer grants, each allowed when absent.
    init(_ grant: VideoGrant) {
        self.init(canPublish: grant.canPublish ?? true, canSubscribe: grant.canSubscribe ?? true,
                  canPublishData: grant.canPublishData ?? true)
    }
}
