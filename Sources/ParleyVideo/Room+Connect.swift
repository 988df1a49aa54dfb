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
            media = try RoomMediaConnection(audioCodecs: options.preferredAudioCodecs, ice: options.iceOptions ?? ICEOptions())
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
            let described = try await media.prepare(options)
            let tracks = described.map(Self.trackInfo)
            inner.withLock { $0.described = tracks }
            let offer = try await media.offer()
            channel.send(.roomJoin(RoomJoin(room: options.roomName, offer: offer, tracks: tracks,
                                            automaticSubscription: options.isAutomaticSubscriptionEnabled,
                                            dominantSpeaker: options.isDominantSpeakerEnabled,
                                            networkQuality: options.isNetworkQualityEnabled,
                                            bandwidthProfile: options.bandwidthProfileOptions?.wire)),
                         id: Self.joinID)
        } catch {
            return failToConnect(error)
        }
        for await event in events {
            switch event {
            case .message(.error(let body)):
                let error = ParleyError(ParleyError.Code(rawValue: body.code), reason: body.message)
                if state == .connecting { return failToConnect(error) }
                inner.withLock { $0.publishFailure = error }
                Log.warning(.platform, "room \(sid ?? "-"): \(body.code) \(body.message)")
            case .message(.roomJoined(let joined)):
                if let answer = joined.answer {
                    do throws(ParleyError) { try await media.apply(answer: answer) } catch { return failToConnect(error) }
                }
                apply(.roomJoined(joined))
                if joined.room.type == .peerToPeer || joined.room.type == .go {
                    startPeerToPeer(joined, groupMedia: media)
                } else {
                    startMedia(media)
                }
            case .message(.roomPeerOffer(let description)):
                await peerDescription(description, isOffer: true)
            case .message(.roomPeerAnswer(let description)):
                await peerDescription(description, isOffer: false)
            case .message(.roomAnswer(let answer)):
                do throws(ParleyError) { try await media.apply(answer: answer.answer) } catch {
                    Log.warning(.platform, "room \(sid ?? "-"): the answer to our re-offer failed: \(error)")
                }
                apply(.roomAnswer(answer))
                inner.withLock { s in
                    s.answers += 1
                    s.answeredMids = Set(answer.published.map(\.mid))
                }
                let names = inner.withLock { s in Dictionary(s.described.compactMap { t in t.mid.map { ($0, t.name) } },
                                                             uniquingKeysWith: { first, _ in first }) }
                notePublished(answer.published.compactMap { track in names[track.mid].map { ($0, track.trackSid) } })
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

    static func trackInfo(_ track: RoomTrackDescription) -> RoomTrackInfo {
        RoomTrackInfo(mid: track.mid, name: track.name, kind: RoomTrackKind(rawValue: track.kind.rawValue) ?? .data,
                      enabled: track.enabled)
    }

    /// `room.renegotiate`: the server has tracks for us and no free slots; we add them and re-offer
    /// (`room.offer`), and `room.answer` comes back through the same loop.
    func renegotiate(audio: Int, video: Int) {
        guard let (media, channel) = inner.withLock({ s in s.media.flatMap { m in s.channel.map { (m, $0) } } }) else { return }
        Task {
            do throws(ParleyError) {
                try await media.addSlots(audio: audio, video: video)
                try await reoffer(media, channel: channel, id: "room-offer")
            } catch {
                Log.warning(.platform, "room \(self.sid ?? "-"): cannot add receive slots: \(error)")
            }
        }
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
        publishInsight("connect-failed", error: error)
        notify { $0.roomDidFailToConnect(room: self, error: error) }
    }

    private func reconnecting(_ error: ParleyError) {
        let changed = inner.withLock { s -> Bool in
            guard s.state == .connected else { return false }
            s.state = .reconnecting
            return true
        }
        guard changed else { return }
        publishInsight("reconnecting", level: .warning)
        notify { $0.roomIsReconnecting(room: self, error: error) }
    }

    private func reconnected() {
        let changed = inner.withLock { s -> Bool in
            guard s.state == .reconnecting else { return false }
            s.state = .connected
            return true
        }
        guard changed else { return }
        publishInsight("reconnected")
        notify { $0.roomDidReconnect(room: self) }
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
        stopMedia()
        Task {
            await media?.close()
            await channel?.close()
        }
        publishInsight("disconnected", error: error)
        notify { $0.roomDidDisconnect(room: self, error: error) }
    }
}
