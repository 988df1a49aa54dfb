import Signaling

/// What a client knows of its room, kept from the server's `room.*` messages (docs/signaling.md
/// §12): the room, who is in it, what each publishes and what we receive. A value: `apply` takes
/// one message and returns what changed, in the order an app must hear it; `Room` turns those
/// changes into delegate calls and media work. Messages that do not fit what is known (a track of
/// an unknown participant, a second `room.joined`) change nothing.
struct RoomModel: Equatable {
    /// One remote participant and its published tracks, in publication order.
    struct Participant: Equatable {
        var sid: String
        var identity: String
        var state: RoomParticipantState
        var tracks: [RoomTrackInfo]
        var networkQualityLevel: Int?
    }

    private(set) var room: RoomInfo?
    private(set) var localSid: String?
    private(set) var localIdentity: String?
    /// Our tracks as the server published them (names and SIDs; data tracks have no mid).
    private(set) var localTracks: [RoomTrackInfo] = []
    /// Remote participants in the order they were learnt.
    private(set) var participants: [Participant] = []
    private(set) var dominantSpeaker: String?
    private(set) var isRecording = false
    /// Tracks we receive: track SID → the mid of our receive slot.
    private(set) var subscriptions: [String: String] = [:]
    /// Our published tracks: mid → the server's track SID.
    private(set) var published: [String: String] = [:]
    private(set) var localNetworkQualityLevel: Int?
    /// Whether the app hears the others' levels (`NetworkQualityConfiguration.remoteVerbosity`
    /// other than `.none`); when not, their levels are counted in `remoteLevelsIgnored` and dropped.
    var hearsRemoteNetworkQuality = true
    private(set) var remoteLevelsIgnored = 0
    private(set) var disconnected: RoomDisconnected?

    var isConnected: Bool { room != nil && disconnected == nil }

    func participant(_ sid: String) -> Participant? { participants.first { $0.sid == sid } }

    /// The remote participant publishing `trackSid`.
    func publisher(of trackSid: String) -> Participant? {
        participants.first { $0.tracks.contains { $0.sid == trackSid } }
    }

    mutating func apply(_ message: SignalingMessage) -> [RoomChange] {
        guard disconnected == nil else { return [] }
        switch message {
        case .roomJoined(let joined):
            guard room == nil else { return [] }
            room = joined.room
            localSid = joined.participant.sid
            localIdentity = joined.participant.identity
            localTracks = joined.participant.tracks
            isRecording = joined.room.isRecording
            participants = joined.participants.filter { $0.sid != joined.participant.sid }.map(Self.participant)
            for track in joined.published { published[track.mid] = track.trackSid }
            for subscription in joined.subscriptions { subscriptions[subscription.trackSid] = subscription.mid }
            return [.connected] + joined.subscriptions.map { .subscribed(participantSid: $0.participantSid, trackSid: $0.trackSid, mid: $0.mid) }
        case .roomAnswer(let answer):
            for track in answer.published { published[track.mid] = track.trackSid }
            var changes: [RoomChange] = []
            for subscription in answer.subscriptions where subscriptions[subscription.trackSid] != subscription.mid {
                subscriptions[subscription.trackSid] = subscription.mid
                changes.append(.subscribed(participantSid: subscription.participantSid, trackSid: subscription.trackSid,
                                           mid: subscription.mid))
            }
            return changes
        case .roomParticipantConnected(let connected):
            guard isConnected, connected.participant.sid != localSid, participant(connected.participant.sid) == nil else { return [] }
            participants.append(Self.participant(connected.participant))
            return [.participantConnected(sid: connected.participant.sid)]
        case .roomParticipantDisconnected(let reference):
            guard let index = participants.firstIndex(where: { $0.sid == reference.participantSid }) else { return [] }
            let gone = participants.remove(at: index)
            var changes: [RoomChange] = []
            for track in gone.tracks.reversed() {
                guard let sid = track.sid else { continue }
                if subscriptions.removeValue(forKey: sid) != nil {
                    changes.append(.unsubscribed(participantSid: gone.sid, trackSid: sid))
                }
            }
            if dominantSpeaker == gone.sid {
                dominantSpeaker = nil
                changes.append(.dominantSpeakerChanged(sid: nil))
            }
            return changes + [.participantDisconnected(sid: gone.sid)]
        case .roomParticipantReconnecting(let reference):
            return setState(.reconnecting, of: reference.participantSid)
        case .roomParticipantReconnected(let reference):
            return setState(.connected, of: reference.participantSid)
        case .roomTrackPublished(let published):
            guard let index = participants.firstIndex(where: { $0.sid == published.participantSid }),
                  let sid = published.track.sid, !participants[index].tracks.contains(where: { $0.sid == sid }) else { return [] }
            participants[index].tracks.append(published.track)
            return [.trackPublished(participantSid: published.participantSid, trackSid: sid)]
        case .roomTrackUnpublished(let unpublished):
            guard let index = participants.firstIndex(where: { $0.sid == unpublished.participantSid }),
                  let track = participants[index].tracks.firstIndex(where: { $0.sid == unpublished.trackSid }) else { return [] }
            var changes: [RoomChange] = []
            if subscriptions.removeValue(forKey: unpublished.trackSid) != nil {
                changes.append(.unsubscribed(participantSid: unpublished.participantSid, trackSid: unpublished.trackSid))
            }
            participants[index].tracks.remove(at: track)
            return changes + [.trackUnpublished(participantSid: unpublished.participantSid, trackSid: unpublished.trackSid)]
        case .roomTrackChanged(let changed):
            guard let index = participants.firstIndex(where: { $0.sid == changed.participantSid }),
                  let track = participants[index].tracks.firstIndex(where: { $0.sid == changed.trackSid }),
                  participants[index].tracks[track].enabled != changed.enabled else { return [] }
            participants[index].tracks[track].enabled = changed.enabled
            return [.trackEnabled(participantSid: changed.participantSid, trackSid: changed.trackSid, changed.enabled)]
        case .roomSubscribed(let subscribed):
            guard publisher(of: subscribed.trackSid) != nil, subscriptions[subscribed.trackSid] != subscribed.mid else { return [] }
            subscriptions[subscribed.trackSid] = subscribed.mid
            return [.subscribed(participantSid: subscribed.participantSid, trackSid: subscribed.trackSid, mid: subscribed.mid)]
        case .roomUnsubscribed(let reference):
            guard subscriptions.removeValue(forKey: reference.trackSid) != nil,
                  let publisher = publisher(of: reference.trackSid) else { return [] }
            return [.unsubscribed(participantSid: publisher.sid, trackSid: reference.trackSid)]
        case .roomSubscriptionFailed(let failure):
            guard let publisher = publisher(of: failure.trackSid) else { return [] }
            return [.subscriptionFailed(participantSid: publisher.sid, trackSid: failure.trackSid, code: failure.code,
                                        message: failure.message)]
        case .roomTrackSwitchedOff(let reference):
            guard let publisher = publisher(of: reference.trackSid) else { return [] }
            return [.trackSwitched(participantSid: publisher.sid, trackSid: reference.trackSid, off: true)]
        case .roomTrackSwitchedOn(let reference):
            guard let publisher = publisher(of: reference.trackSid) else { return [] }
            return [.trackSwitched(participantSid: publisher.sid, trackSid: reference.trackSid, off: false)]
        case .roomDominantSpeaker(let speaker):
            guard isConnected, speaker.participantSid != dominantSpeaker,
                  speaker.participantSid.map({ participant($0) != nil }) ?? true else { return [] }
            dominantSpeaker = speaker.participantSid
            return [.dominantSpeakerChanged(sid: speaker.participantSid)]
        case .roomNetworkQuality(let quality):
            return quality.levels.compactMap { level in networkQuality(level.level, of: level.participantSid) }
        case .roomRecording(let recording):
            guard isConnected, recording.isRecording != isRecording else { return [] }
            isRecording = recording.isRecording
            return [.recording(recording.isRecording)]
        case .roomRenegotiate(let request):
            return isConnected ? [.renegotiate(audio: request.audio, video: request.video)] : []
        case .roomDisconnected(let reason):
            disconnected = reason
            return [.disconnected(code: reason.code, message: reason.message)]
        default:
            return []
        }
    }

    private static func participant(_ info: RoomParticipantInfo) -> Participant {
        Participant(sid: info.sid, identity: info.identity, state: info.state, tracks: info.tracks.filter { $0.sid != nil })
    }

    private mutating func setState(_ state: RoomParticipantState, of sid: String) -> [RoomChange] {
        guard let index = participants.firstIndex(where: { $0.sid == sid }), participants[index].state != state else { return [] }
        participants[index].state = state
        return [state == .reconnecting ? .participantReconnecting(sid: sid) : .participantReconnected(sid: sid)]
    }

    /// A level (0–5, Twilio's NetworkQualityLevel) of ours or of a remote participant.
    private mutating func networkQuality(_ level: Int, of sid: String) -> RoomChange? {
        let level = min(max(level, 0), 5)
        if sid == localSid {
            guard localNetworkQualityLevel != level else { return nil }
            localNetworkQualityLevel = level
            return .networkQualityLevel(participantSid: sid, level)
        }
        guard hearsRemoteNetworkQuality else {
            remoteLevelsIgnored += 1
            return nil
        }
        guard let index = participants.firstIndex(where: { $0.sid == sid }),
              participants[index].networkQualityLevel != level else { return nil }
        participants[index].networkQualityLevel = level
        return .networkQualityLevel(participantSid: sid, level)
    }
}

/// One change of a `RoomModel`, in the order the app hears it.
enum RoomChange: Equatable {
    case connected
    case participantConnected(sid: String)
    /// Its subscriptions ended first (`unsubscribed`), then it left.
    case participantDisconnected(sid: String)
    case participantReconnecting(sid: String)
    case participantReconnected(sid: String)
    case trackPublished(participantSid: String, trackSid: String)
    case trackUnpublished(participantSid: String, trackSid: String)
    case trackEnabled(participantSid: String, trackSid: String, Bool)
    /// We receive the track in our receive slot `mid`.
    case subscribed(participantSid: String, trackSid: String, mid: String)
    case unsubscribed(participantSid: String, trackSid: String)
    case subscriptionFailed(participantSid: String, trackSid: String, code: Int, message: String)
    case trackSwitched(participantSid: String, trackSid: String, off: Bool)
    case dominantSpeakerChanged(sid: String?)
    case networkQualityLevel(participantSid: String, Int)
    case recording(Bool)
    /// The server wants more receive slots: re-offer with this many more.
    case renegotiate(audio: Int, video: Int)
    case disconnected(code: Int, message: String)
}
