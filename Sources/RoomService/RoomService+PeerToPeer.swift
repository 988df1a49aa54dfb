import ParleyCore
import ParleyStore
import PlatformCore
import Signaling

/// Peer-to-peer rooms (`peer-to-peer`, up to 10, and `go`, 2): the media flows in a mesh between
/// the clients, so the server opens no media session. It keeps the room's participants and their
/// published tracks (REST, status callbacks, `room.participantConnected`, `room.trackPublished`…
/// as in group rooms) and relays `room.peerOffer`, `room.peerAnswer` and `room.peerCandidate`
/// between two participants of one room, each direction within its own budget
/// (docs/signaling.md §12, "Peer-to-peer rooms").
extension RoomService {
    /// Whether rooms of `type` carry their media peer to peer.
    static func isPeerToPeer(_ type: ParleyStore.RoomType) -> Bool { type == .peerToPeer || type == .go }

    /// The type of the account's in-progress room `name` (a unique name or `RM…` SID); nil when
    /// none is (a join then makes an ad hoc `group` room).
    func liveRoomType(accountSid: String, name: String) -> ParleyStore.RoomType? {
        liveRoom(accountSid: accountSid, name: name)?.type
    }

    /// Joins a peer-to-peer room: no media session; the described tracks are published (their
    /// `mid`s mean nothing to the server). Posts `room.joined` (no `answer`; `iceServers` when the
    /// server has them), then tells the others `room.participantConnected` and a
    /// `room.trackPublished` per track. The client then offers to each participant `room.joined`
    /// listed (the newer participant of a pair offers).
    func connectPeer(accountSid: String, identity: String, room: String, tracks: [RoomTrackInfo], permissions: RoomPermissions,
                     ref: String?, link: any RoomParticipantLink) throws(ParleyError) -> RoomJoined {
        try Self.check(tracks, allowedBy: permissions)
        let (roomRecord, record) = try admit(accountSid: accountSid, identity: identity, room: room,
                                             permissions: permissions, link: link)
        do throws(ParleyError) {
            try publish(tracks, of: record.sid)
        } catch {
            leave(participantSid: record.sid)
            throw error
        }
        let joined = RoomJoined(room: RoomInfo(sid: roomRecord.sid, name: roomRecord.uniqueName,
                                               type: Signaling.RoomType(rawValue: roomRecord.type.rawValue) ?? .peerToPeer),
                                participant: info(of: record.sid, local: true),
                                participants: Array(announcedOthers(of: record.sid).prefix(RoomProtocol.maxParticipants)
                                    .map { info(of: $0.record.sid, local: false) }),
                                answer: nil, iceServers: configuration.iceServers(identity))
        guard let live = participants[record.sid] else { return joined }
        live.post(.roomJoined(joined), ref: ref)
        announceArrival(of: record)  // the others have no slots to reconcile
        Log.info(.platform, "room \(roomRecord.sid): participant \(record.sid) joined peer to peer")
        return joined
    }

    /// Relays a participant's `room.peerOffer`, `room.peerAnswer` or `room.peerCandidate` to the
    /// participant it names, which gets it naming the sender instead.
    /// - Throws: 53204 (the sender, or the participant it names, is not in the sender's room, or
    ///   names itself), 31400 (not a peer-to-peer room, or not a relayed message), 31429 (over the
    ///   pair's budget: the message is dropped).
    public func relay(_ message: SignalingMessage, from participantSid: String) throws(ParleyError) {
        guard let sender = participants[participantSid], announced.contains(participantSid) else {
            throw ParleyError(.participantNotFound, reason: "participant \(participantSid) is not in a room")
        }
        guard let room = rooms[sender.record.roomSid], Self.isPeerToPeer(room.record.type) else {
            throw ParleyError(.badRequest, reason: "\(message.type.rawValue) is for peer-to-peer rooms")
        }
        let target: String, kind: PeerRelayLimits.Kind, relayed: SignalingMessage
        switch message {
        case .roomPeerOffer(var description):
            (target, kind) = (description.participantSid, .description)
            description.participantSid = participantSid
            relayed = .roomPeerOffer(description)
        case .roomPeerAnswer(var description):
            (target, kind) = (description.participantSid, .description)
            description.participantSid = participantSid
            relayed = .roomPeerAnswer(description)
        case .roomPeerCandidate(var candidate):
            (target, kind) = (candidate.participantSid, .candidate)
            candidate.participantSid = participantSid
            relayed = .roomPeerCandidate(candidate)
        default:
            throw ParleyError(.badRequest, reason: "\(message.type.rawValue) is not relayed")
        }
        guard target != participantSid, let receiver = participants[target], announced.contains(target),
              receiver.record.roomSid == sender.record.roomSid else {
            throw ParleyError(.participantNotFound, reason: "participant \(target) is not in this room")
        }
        let now = configuration.clock.now.nanoseconds / 1000
        guard participants[participantSid]?.relayLimits.allow(kind, to: target, now: now) == true else {
            throw ParleyError(.tooManyRequests, reason: "too many \(message.type.rawValue) to \(target)")
        }
        receiver.post(relayed)
    }

    /// In a peer-to-peer room subscribing is between the peers: `room.subscribe` and
    /// `room.unsubscribe` get `room.subscriptionFailed` with 53117 (Twilio's "not supported for
    /// the Room type"). True when it was refused so.
    func refusedPeerSubscription(_ participantSid: String, trackSid: String, ref: String?) -> Bool {
        guard let live = participants[participantSid], live.session == nil, let room = rooms[live.record.roomSid],
              Self.isPeerToPeer(room.record.type) else { return false }
        live.post(.roomSubscriptionFailed(RoomSubscriptionFailed(
            trackSid: trackSid, code: ParleyError.Code.roomSubscriptionOperationNotSupported.rawValue,
            message: "subscriptions in a \(room.record.type.rawValue) room are between the peers")), ref: ref)
        return true
    }

    /// A participant without a media session left (its tracks already unpublished): the others
    /// are told, and forget their budgets toward it.
    func peerGone(_ record: ParticipantRecord) {
        tellOthers(of: record, .roomParticipantDisconnected(RoomParticipantReference(participantSid: record.sid)))
        announced.remove(record.sid)
        for other in connectedParticipants(roomSid: record.roomSid) { participants[other.sid]?.relayLimits.forget(record.sid) }
    }
}

/// What one participant may relay to each other participant: at most `descriptions` offers and
/// answers per minute, and `candidates` candidates per 10 s (rolling windows, `MessageRateLimiter`),
/// so no participant can flood another through the server. Memory is bounded by the room's size.
struct PeerRelayLimits: Sendable {
    enum Kind: Sendable { case description, candidate }

    /// Offers and answers per minute to one participant: initial negotiation, renegotiations,
    /// ICE restarts and glare rollbacks fit easily.
    static let descriptions = 20
    /// Candidates per 10 s to one participant: every interface, server-reflexive and relayed
    /// candidate of several ICE restarts.
    static let candidates = 200

    private var descriptionLimiter = MessageRateLimiter(limit: Self.descriptions, window: 60_000_000, maxCalls: 16)
    private var candidateLimiter = MessageRateLimiter(limit: Self.candidates, window: 10_000_000, maxCalls: 16)

    /// Whether a message of `kind` to `target` may go at `now` (microseconds); an allowed one is counted.
    mutating func allow(_ kind: Kind, to target: String, now: Int64) -> Bool {
        switch kind {
        case .description: descriptionLimiter.allow(callSid: target, now: now)
        case .candidate: candidateLimiter.allow(callSid: target, now: now)
        }
    }

    mutating func forget(_ target: String) {
        descriptionLimiter.remove(callSid: target)
        candidateLimiter.remove(callSid: target)
    }
}
