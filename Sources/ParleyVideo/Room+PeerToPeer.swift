import Dispatch
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization
import WebRTC

/// Peer-to-peer and go rooms: no media through the server. The newer participant of each pair
/// offers (`room.peerOffer`) to everyone `room.joined` listed; the older answers
/// (`room.peerAnswer`); the server relays both with `published` (the sender's sending sections →
/// its track SIDs). Our first audio and first video track go to every connected peer; each peer's
/// tracks count as subscribed once its connection is up. Candidates travel in the SDP.
extension Room {
    /// `room.joined` said peer-to-peer or go: the group media connection goes, the senders feed
    /// the mesh, and we offer to everyone already in.
    func startPeerToPeer(_ joined: RoomJoined, groupMedia: RoomMediaConnection) {
        let tracks = joined.participant.tracks
        let published = Self.peerPublished(tracks)
        // The STUN and TURN servers the server handed out (TURN credentials minted for this join).
        let servers = joined.iceServers.flatMap { server in
            server.urls.compactMap { url in try? PeerConnection.ICEServer(url: url, username: server.username, password: server.credential) }
        }
        inner.withLock { s in
            s.isPeerToPeer = true
            s.peerPublished = published
            s.peerICEServers = servers
        }
        Task { await groupMedia.close() }
        startPeerSenders()
        for participant in joined.participants where participant.sid != joined.participant.sid {
            Task { await self.offer(to: participant.sid) }
        }
    }

    /// Our tracks by the call-style section each is sent in: the first audio and the first video.
    static func peerPublished(_ tracks: [RoomTrackInfo]) -> [RoomPublishedTrack] {
        var published: [RoomPublishedTrack] = []
        if let audio = tracks.first(where: { $0.kind == .audio })?.sid { published.append(RoomPublishedTrack(mid: PeerLink.audioMid, trackSid: audio)) }
        if let video = tracks.first(where: { $0.kind == .video })?.sid { published.append(RoomPublishedTrack(mid: PeerLink.videoMid, trackSid: video)) }
        return published
    }

    private func startPeerSenders() {
        let links: @Sendable () -> [PeerLink] = { [weak self] in self?.inner.withLock { Array($0.links.values) } ?? [] }
        if let track = options.audioTracks.first, let device = track.device {
            do throws(ParleyError) {
                let sender = try LocalAudioSender(track: track, device: device) { payload, _, _, _ in
                    for link in links() { link.sendAudio(payload) }
                }
                try sender.start()
                adopt(audio: [sender], video: [])
            } catch {
                Log.warning(.platform, "room \(sid ?? "-"): audio track \(track.name): \(error)")
            }
        }
        if let track = options.videoTracks.first, let source = track.source {
            // No PLI between peers here: a key frame every 2 s lets a peer start or recover.
            let sender = LocalVideoSender(track: track, source: source, keyFrameInterval: .seconds(2)) { packets, _, timestamp in
                for link in links() { link.sendVideo(packets, timestamp: timestamp) }
            }
            do throws(ParleyError) {
                try sender.start()
                adopt(audio: [], video: [sender])
            } catch {
                Log.warning(.platform, "room \(sid ?? "-"): video track \(track.name): \(error)")
            }
        }
    }

    private func link(to participantSid: String) throws(ParleyError) -> PeerLink {
        if let link = inner.withLock({ $0.links[participantSid] }) { return link }
        let ice = options.iceOptions ?? ICEOptions()
        let link = try PeerLink(participantSid: participantSid, iceServers: inner.withLock { $0.peerICEServers } + ice.peerServers(),
                                transportPolicy: ice.transportPolicy)
        inner.withLock { $0.links[participantSid] = link }
        link.watch { [weak self] in self?.peerConnected(link) }
        return link
    }

    private func offer(to participantSid: String) async {
        guard let channel = inner.withLock({ $0.channel }) else { return }
        do throws(ParleyError) {
            let link = try link(to: participantSid)
            let sdp = try await link.peer.createOffer()
            let published = inner.withLock { $0.peerPublished }
            channel.send(.roomPeerOffer(RoomPeerDescription(participantSid: participantSid, sdp: sdp, published: published)),
                         id: "room-peer")
        } catch {
            Log.warning(.platform, "room \(sid ?? "-"): no offer to \(participantSid): \(error)")
        }
    }

    /// A peer's `room.peerOffer` (we are the older of the pair) or `room.peerAnswer`.
    func peerDescription(_ description: RoomPeerDescription, isOffer: Bool) async {
        guard inner.withLock({ $0.isPeerToPeer }), let channel = inner.withLock({ $0.channel }) else { return }
        do throws(ParleyError) {
            let link = try link(to: description.participantSid)
            link.learn(Dictionary(description.published.map { ($0.mid, $0.trackSid) }, uniquingKeysWith: { _, new in new }))
            if isOffer {
                let answer = try await link.peer.createAnswer(toOffer: description.sdp)
                let published = inner.withLock { $0.peerPublished }
                channel.send(.roomPeerAnswer(RoomPeerDescription(participantSid: description.participantSid, sdp: answer,
                                                                 published: published)), id: "room-peer")
            } else {
                try await link.peer.setRemoteAnswer(description.sdp)
            }
        } catch {
            Log.warning(.platform, "room \(sid ?? "-"): peer \(description.participantSid): \(error)")
        }
    }

    /// A peer's connection is up: its tracks are received (subscribed) and it gets a key frame.
    private func peerConnected(_ link: PeerLink) {
        guard let participant = remoteParticipant(sid: link.participantSid) else { return }
        inner.withLock { $0.videoSenders }.forEach { $0.requestKeyFrame(rid: nil) }
        for (mid, trackSid) in link.remotePublished {
            guard let publication = participant.publication(trackSid), !publication.isTrackSubscribed else { continue }
            publication.setSubscribed(mid: "peer-\(mid)")
            switch publication.kind {
            case .audio:
                let track = RemoteAudioTrack(sid: trackSid, name: publication.trackName)
                publication.setAudioTrack(track)
                Task { for await packet in link.peer.audio { track.receive(packet) } }
            case .video:
                let track = RemoteVideoTrack(sid: trackSid, name: publication.trackName) {}
                publication.setVideoTrack(track)
                Task { for await packet in link.peer.video { track.receive(packet) } }
            case .data:
                continue
            }
            delegateQueue.async { participant.delegate?.remoteParticipant(participant, didSubscribeTo: publication) }
        }
    }

    /// A peer left: its connection closes.
    func peerLeft(_ participantSid: String) {
        guard let link = inner.withLock({ $0.links.removeValue(forKey: participantSid) }) else { return }
        Task { await link.close() }
    }

    /// Every peer connection closes (the room ended for us).
    func closePeers() {
        let links = inner.withLock { s -> [PeerLink] in
            defer { s.links = [:] }
            return Array(s.links.values)
        }
        Task { for link in links { await link.close() } }
    }
}
