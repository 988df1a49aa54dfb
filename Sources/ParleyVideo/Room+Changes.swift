import ParleyCore
import Signaling
import Synchronization
import Dispatch

extension Room {
    /// Takes one room message: the model changes, the SDK's objects follow, the delegates hear it.
    func apply(_ message: SignalingMessage) {
        let (changes, model) = inner.withLock { s -> ([RoomChange], RoomModel) in
            let changes = s.model.apply(message)
            return (changes, s.model)
        }
        for change in changes { handle(change, model: model) }
    }

    private func handle(_ change: RoomChange, model: RoomModel) {
        switch change {
        case .connected:
            connect(model)
        case .participantConnected(let sid):
            guard let participant = makeParticipant(sid, model: model) else { return }
            notify { $0.participantDidConnect(room: self, participant: participant) }
        case .participantDisconnected(let sid):
            peerLeft(sid)
            guard let participant = removeParticipant(sid) else { return }
            participant.setState(.disconnected)
            notify { $0.participantDidDisconnect(room: self, participant: participant) }
        case .participantReconnecting(let sid):
            guard let participant = remoteParticipant(sid: sid) else { return }
            participant.setState(.reconnecting)
            notify { $0.participantIsReconnecting(room: self, participant: participant) }
        case .participantReconnected(let sid):
            guard let participant = remoteParticipant(sid: sid) else { return }
            participant.setState(.connected)
            notify { $0.participantDidReconnect(room: self, participant: participant) }
        case .trackPublished(let participantSid, let trackSid):
            guard let participant = remoteParticipant(sid: participantSid),
                  let info = model.participant(participantSid)?.tracks.first(where: { $0.sid == trackSid }) else { return }
            let publication = Self.publication(info, sid: trackSid)
            participant.add(publication)
            tell(participant) { $0.remoteParticipant(participant, didPublish: publication) }
        case .trackUnpublished(let participantSid, let trackSid):
            guard let participant = remoteParticipant(sid: participantSid), let publication = participant.remove(trackSid) else { return }
            tell(participant) { $0.remoteParticipant(participant, didUnpublish: publication) }
        case .trackEnabled(let participantSid, let trackSid, let enabled):
            guard let (participant, publication) = find(participantSid, trackSid) else { return }
            publication.setEnabled(enabled)
            tell(participant) { enabled ? $0.remoteParticipant(participant, didEnable: publication)
                                        : $0.remoteParticipant(participant, didDisable: publication) }
        case .subscribed(let participantSid, let trackSid, let mid):
            guard let (participant, publication) = find(participantSid, trackSid) else { return }
            if publication.kind == .data {
                return dataSubscribed(participantSid: participantSid, trackSid: trackSid, mid: mid)
            }
            publication.setSubscribed(mid: mid)
            attachMedia(publication, mid: mid)
            tell(participant) { $0.remoteParticipant(participant, didSubscribeTo: publication) }
        case .unsubscribed(let participantSid, let trackSid):
            guard let (participant, publication) = find(participantSid, trackSid) else { return }
            if let mid = publication.mid { inner.withLock { $0.media }?.slot(mid)?.attach(nil) }
            publication.setSubscribed(mid: nil)
            publication.setDataTrack(nil)
            publication.setAudioTrack(nil)
            publication.setVideoTrack(nil)
            tell(participant) { $0.remoteParticipant(participant, didUnsubscribeFrom: publication) }
        case .subscriptionFailed(let participantSid, let trackSid, let code, let message):
            guard let (participant, publication) = find(participantSid, trackSid) else { return }
            let error = ParleyError(ParleyError.Code(rawValue: code), reason: message)
            tell(participant) { $0.remoteParticipant(participant, didFailToSubscribeTo: publication, error: error) }
        case .trackSwitched(let participantSid, let trackSid, let off):
            guard let (participant, publication) = find(participantSid, trackSid) else { return }
            publication.setSwitchedOff(off)
            tell(participant) { off ? $0.remoteParticipant(participant, didSwitchOff: publication)
                                    : $0.remoteParticipant(participant, didSwitchOn: publication) }
        case .dominantSpeakerChanged(let sid):
            let participant = sid.flatMap { remoteParticipant(sid: $0) }
            notify { $0.dominantSpeakerDidChange(room: self, participant: participant) }
        case .networkQualityLevel(let participantSid, let value):
            let level = NetworkQualityLevel(rawValue: value) ?? .unknown
            if participantSid == model.localSid, let local = localParticipant {
                local.setNetworkQualityLevel(level)
                tellLocal(local) { $0.localParticipant(local, networkQualityLevelDidChange: level) }
            } else if let participant = remoteParticipant(sid: participantSid) {
                participant.setNetworkQualityLevel(level)
                tell(participant) { $0.remoteParticipant(participant, networkQualityLevelDidChange: level) }
            }
        case .recording(let on):
            notify { on ? $0.roomDidStartRecording(room: self) : $0.roomDidStopRecording(room: self) }
        case .renegotiate(let audio, let video):
            renegotiate(audio: audio, video: video)
        case .disconnected(let code, let message):
            lost(ParleyError(ParleyError.Code(rawValue: code), reason: message))
        }
    }

    /// `room.joined`: this client and the participants already in, then `roomDidConnect`.
    private func connect(_ model: RoomModel) {
        guard let localSid = model.localSid else { return }
        let local = LocalParticipant(identity: model.localIdentity ?? "", options: options)
        local.setSid(localSid)
        local.attach(self)
        for track in options.audioTracks { local.bind(track) }
        for track in options.videoTracks { local.bind(track) }
        let published = model.localTracks.compactMap { track in track.sid.map { (name: track.name, sid: $0) } }
        for track in published { local.published(track.name, sid: track.sid) }
        let connected = inner.withLock { s -> Bool in
            guard s.state == .connecting else { return false }
            s.state = .connected
            s.localParticipant = local
            return true
        }
        guard connected else { return }
        for participant in model.participants { _ = makeParticipant(participant.sid, model: model) }
        finishWaiters(failure: nil)
        publishInsight("connected")
        notify { $0.roomDidConnect(room: self) }
        // Data tracks listed as subscribed in room.joined count once their channels open.
        for participant in model.participants {
            for track in participant.tracks where track.kind == .data {
                guard let trackSid = track.sid, let mid = model.subscriptions[trackSid] else { continue }
                dataSubscribed(participantSid: participant.sid, trackSid: trackSid, mid: mid)
            }
        }
        // After roomDidConnect, where the app sets the local participant's delegate.
        for track in published {
            tellLocal(local) { $0.localParticipant(local, didPublishTrackNamed: track.name, trackSid: track.sid) }
        }
    }

    private func makeParticipant(_ sid: String, model: RoomModel) -> RemoteParticipant? {
        guard let known = model.participant(sid) else { return nil }
        let participant = RemoteParticipant(sid: sid, identity: known.identity)
        for track in known.tracks {
            if let trackSid = track.sid { participant.add(Self.publication(track, sid: trackSid)) }
        }
        for track in known.tracks {
            guard let trackSid = track.sid, let mid = model.subscriptions[trackSid],
                  let publication = participant.publication(trackSid), publication.kind != .data else { continue }
            publication.setSubscribed(mid: mid)
            attachMedia(publication, mid: mid)
        }
        let added = inner.withLock { s -> Bool in
            guard !s.remote.contains(where: { $0.sid == sid }) else { return false }
            s.remote.append(participant)
            return true
        }
        return added ? participant : nil
    }

    private func removeParticipant(_ sid: String) -> RemoteParticipant? {
        inner.withLock { s in
            guard let index = s.remote.firstIndex(where: { $0.sid == sid }) else { return nil }
            return s.remote.remove(at: index)
        }
    }

    private func find(_ participantSid: String, _ trackSid: String) -> (RemoteParticipant, RemoteTrackPublication)? {
        guard let participant = remoteParticipant(sid: participantSid), let publication = participant.publication(trackSid) else {
            return nil
        }
        return (participant, publication)
    }

    static func publication(_ info: RoomTrackInfo, sid: String) -> RemoteTrackPublication {
        RemoteTrackPublication(sid: sid, name: info.name, kind: TrackKind(rawValue: info.kind.rawValue) ?? .data,
                               priority: TrackPriority(rawValue: info.priority.rawValue) ?? .standard, enabled: info.enabled)
    }

    /// Runs `body` with the participant's delegate on the room's delegate queue.
    private func tell(_ participant: RemoteParticipant, _ body: @escaping @Sendable (any RemoteParticipantDelegate) -> Void) {
        delegateQueue.async {
            guard let delegate = participant.delegate else { return }
            body(delegate)
        }
    }

    func tellLocal(_ participant: LocalParticipant, _ body: @escaping @Sendable (any LocalParticipantDelegate) -> Void) {
        delegateQueue.async {
            guard let delegate = participant.delegate else { return }
            body(delegate)
        }
    }
}
