import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization
import Dispatch

extension Room {
    /// The id of our `room.join`: the server's error for it comes back with it as `ref`.
    static let joinID = "room-join"

    /// Room messages, and errors answering our room requests, go to the room.
    static func route(_ envelope: SignalingEnvelope) -> SignalingRoute? {
        if envelope.message.type.rawValue.hasPrefix("room.") { return SignalingRoute(key: "room") }
        if case .error = envelope.message, envelope.ref?.hasPrefix("room-") == true { return SignalingRoute(key: "room") }
        return nil
    }

    func start() {
        let task = Task { await self.run() }
        inner.withLock { $0.task = task }
    }

    /// Connects (signaling, `room.join` with our offer, the answer applied), then handles the
    /// room's messages until the room ends for us.
    private func run() async {
        let channel: SignalingChannel, media: RoomMediaConnection
        do throws(ParleyError) {
            let server = try Video.settings.server(for: options.edge)
            channel = try await SignalingChannel.open(baseURL: server, token: options.token,
                                                      client: "parley-swift-video/\(Video.sdkVersion)", router: Self.route)
            media = try RoomMediaConnection(video: !options.videoTracks.isEmpty)
        } catch {
            return failToConnect(error)
        }
        let events = channel.subscribe("room")
        let proceed = inner.withLock { s -> Bool in
            guard s.state != .disconnected else { return false }
            s.channel = channel
            s.media = media
            return true
        }
        guard proceed else {
            await media.close()
            return await channel.close()
        }
        do throws(ParleyError) {
            let (offer, mids) = try await media.offer()
            let tracks = describedTracks(mids)
            channel.send(.roomJoin(RoomJoin(room: options.roomName, offer: offer, tracks: tracks,
                                            automaticSubscription: options.isAutomaticSubscriptionEnabled,
                                            dominantSpeaker: options.isDominantSpeakerEnabled,
                                            networkQuality: options.isNetworkQualityEnabled)),
                         id: Self.joinID)
        } catch {
            return failToConnect(error)
        }
        for await event in events {
            switch event {
            case .message(.error(let body)):
                let error = ParleyError(ParleyError.Code(rawValue: body.code), reason: body.message)
                if state == .connecting { return failToConnect(error) }
                Log.warning(.platform, "room \(sid ?? "-"): \(body.code) \(body.message)")
            case .message(.roomJoined(let joined)):
                if let answer = joined.answer {
                    do throws(ParleyError) { try await media.apply(answer: answer) } catch { return failToConnect(error) }
                }
                apply(.roomJoined(joined))
                startData(media)
            case .message(.roomAnswer(let answer)):
                do throws(ParleyError) { try await media.apply(answer: answer.answer) } catch {
                    Log.warning(.platform, "room \(sid ?? "-"): the answer to our re-offer failed: \(error)")
                }
                apply(.roomAnswer(answer))
            case .message(let message):
                apply(message)
            case .interrupted:
                reconnecting(ParleyError(.signalingConnectionDisconnected, reason: "the signaling connection dropped"))
            case .resumed:
                reconnected()
            }
            if state == .disconnected { break }
        }
        lost(ParleyError(.signalingConnectionDisconnected, reason: "the signaling connection closed"))
    }

    /// The tracks our offer publishes: each local track named on its kind's section (this step
    /// has one section per kind, so one track each; the others wait for the next step).
    private func describedTracks(_ mids: [TrackKind: String]) -> [RoomTrackInfo] {
        var tracks: [RoomTrackInfo] = []
        if let track = options.audioTracks.first, let mid = mids[.audio] {
            tracks.append(RoomTrackInfo(mid: mid, name: track.name, kind: .audio, enabled: track.isEnabled))
        }
        if let track = options.videoTracks.first, let mid = mids[.video] {
            tracks.append(RoomTrackInfo(mid: mid, name: track.name, kind: .video, enabled: track.isEnabled))
        }
        // Data tracks name no section: each is a data channel labelled with its name.
        for track in options.dataTracks { tracks.append(RoomTrackInfo(name: track.name, kind: .data)) }
        return tracks
    }

    private func failToConnect(_ error: ParleyError) {
        let (channel, media, report) = inner.withLock { s -> (SignalingChannel?, RoomMediaConnection?, Bool) in
            let report = s.state == .connecting
            s.state = .disconnected
            return (s.channel, s.media, report)
        }
        Task {
            await media?.close()
            await channel?.close()
        }
        guard report else { return }
        Log.info(.platform, "room \(options.roomName ?? "-"): cannot connect: \(error)")
        finishWaiters(failure: error)
        notify { $0.roomDidFailToConnect(room: self, error: error) }
    }

    private func reconnecting(_ error: ParleyError) {
        let changed = inner.withLock { s -> Bool in
            guard s.state == .connected else { return false }
            s.state = .reconnecting
            return true
        }
        if changed { notify { $0.roomIsReconnecting(room: self, error: error) } }
    }

    private func reconnected() {
        let changed = inner.withLock { s -> Bool in
            guard s.state == .reconnecting else { return false }
            s.state = .connected
            return true
        }
        if changed { notify { $0.roomDidReconnect(room: self) } }
    }

    /// The signaling connection is gone for good (or the server ended us): the room is over.
    func lost(_ error: ParleyError) {
        if state == .connecting { return failToConnect(error) }
        let (media, channel, previous) = inner.withLock { s -> (RoomMediaConnection?, SignalingChannel?, State) in
            let previous = s.state
            s.state = .disconnected
            return (s.media, s.channel, previous)
        }
        guard previous != .disconnected else { return }
        Task {
            await media?.close()
            await channel?.close()
        }
        notify { $0.roomDidDisconnect(room: self, error: error) }
    }
}
