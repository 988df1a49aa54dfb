import DataChannel
import Dispatch
import ParleyCore
import Synchronization
import WebRTC

/// Data tracks over the room connection's data channels (docs/signaling.md §12, Data tracks):
/// each local data track opens a channel labelled with its name; each subscribed remote data
/// track arrives on a channel the server opens, labelled with the track's SID.
extension Room {
    /// Once joined: opens our data tracks' channels and reads what arrives on the server's.
    func startData(_ media: RoomMediaConnection) {
        openDataChannels(for: options.dataTracks, media: media)
        readDataChannels(media)
    }

    /// Opens each local data track's channel (labelled with its name) once the connection is up.
    func openDataChannels(for tracks: [LocalDataTrack], media: RoomMediaConnection) {
        let peer = media.peer
        Task { [weak self] in
            guard await media.connected() else { return }
            for track in tracks {
                guard let stream = await peer.openDataChannel(label: track.name, isOrdered: track.isOrdered,
                                                              reliability: track.reliability) else {
                    Log.warning(.platform, "room \(self?.sid ?? "-"): data track \(track.name) has no channel")
                    continue
                }
                let outbox = DataTrackOutbox(peer: peer, stream: stream)
                // Unpublished while its channel opened: the channel goes at once.
                guard self?.localParticipant?.publishes(track) != false else {
                    outbox.close()
                    continue
                }
                track.bind(outbox)
            }
        }
    }

    /// Reads what arrives on the server's data channels (one per subscribed data track).
    private func readDataChannels(_ media: RoomMediaConnection) {
        let peer = media.peer
        Task { [weak self] in
            var labels: [UInt16: String] = [:]
            for await event in peer.dataEvents {
                guard let self else { return }
                switch event {
                case .opened(let channel, byPeer: true):
                    labels[channel.stream] = channel.label
                    self.dataChannelOpened(trackSid: channel.label)
                case .message(let stream, let data, let isBinary):
                    guard let trackSid = labels[stream] else { continue }
                    self.received(DataTrackMessage(bytes: data, isBinary: isBinary), trackSid: trackSid)
                case .closed(let stream):
                    if let label = labels.removeValue(forKey: stream) {
                        _ = self.inner.withLock { $0.openDataChannels.remove(label) }
                    } else {
                        self.inner.withLock { s in if s.closingDataStreams[stream] != nil { s.closingDataStreams[stream] = true } }
                    }
                case .opened, .associationClosed:
                    break
                }
            }
        }
    }

    /// `room.subscribed` for a data track: it counts once the server's channel for it is open too.
    func dataSubscribed(participantSid: String, trackSid: String, mid: String) {
        let open = inner.withLock { s -> Bool in
            guard s.openDataChannels.contains(trackSid) else {
                s.waitingDataSubscriptions[trackSid] = (participantSid, mid)
                return false
            }
            return true
        }
        if open { completeDataSubscription(participantSid: participantSid, trackSid: trackSid, mid: mid) }
    }

    /// The server opened the channel of data track `trackSid` toward us.
    private func dataChannelOpened(trackSid: String) {
        let waiting = inner.withLock { s -> (participantSid: String, mid: String)? in
            s.openDataChannels.insert(trackSid)
            return s.waitingDataSubscriptions.removeValue(forKey: trackSid)
        }
        if let waiting { completeDataSubscription(participantSid: waiting.participantSid, trackSid: trackSid, mid: waiting.mid) }
    }

    private func completeDataSubscription(participantSid: String, trackSid: String, mid: String) {
        guard let participant = remoteParticipant(sid: participantSid), let publication = participant.publication(trackSid),
              !publication.isTrackSubscribed else { return }
        let track = RemoteDataTrack(sid: trackSid, name: publication.trackName, queue: delegateQueue)
        publication.setSubscribed(mid: mid)
        publication.setDataTrack(track)
        deliverEarlyData(to: track)
        delegateQueue.async {
            participant.delegate?.remoteParticipant(participant, didSubscribeTo: publication)
        }
    }

    /// Messages that arrive before `room.subscribed` made their track wait for it (the server's
    /// channel may open first), up to this many per track.
    static let maximumEarlyDataMessages = 256

    private func received(_ message: DataTrackMessage, trackSid: String) {
        if let track = remoteDataTrack(trackSid) { return track.deliver(message) }
        inner.withLock { s in
            if s.earlyData[trackSid, default: []].count < Self.maximumEarlyDataMessages { s.earlyData[trackSid, default: []].append(message) }
        }
        // The subscription may have landed meanwhile.
        if let track = remoteDataTrack(trackSid) { deliverEarlyData(to: track) }
    }

    /// Hands a newly subscribed data track what arrived for it first.
    func deliverEarlyData(to track: RemoteDataTrack) {
        let early = inner.withLock { $0.earlyData.removeValue(forKey: track.sid) } ?? []
        for message in early { track.deliver(message) }
    }

    /// The subscribed data track with SID `trackSid`.
    func remoteDataTrack(_ trackSid: String) -> RemoteDataTrack? {
        for participant in remoteParticipants {
            if let track = participant.publication(trackSid)?.remoteDataTrack { return track }
        }
        return nil
    }
}
