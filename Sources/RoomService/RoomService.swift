import Foundation
import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import ServerMedia
import Signaling
import TwiML
import VideoREST

/// The rooms of one node: their lifecycle (created by REST or on first join; ended by REST, by
/// `UnusedRoomTimeout` when nobody joined, by `EmptyRoomTimeout` when the last one left), their
/// record in the `RoomStore`, and their status callbacks, in `SequenceNumber` order per room,
/// signed with the account's auth token and retried (`StatusCallbackQueue`).
///
/// An actor whose methods never suspend in the middle of a state change; timers run on the
/// injected clock and re-check that the room is still the one they were armed for.
public actor RoomService: RoomControl {
    public struct Configuration: Sendable {
        public var clock: any MonotonicClock = SystemClock()
        /// Seconds since the epoch, for records and callback timestamps.
        public var wallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
        /// The STUN and TURN servers `room.joined` gives an identity (TURN credentials minted
        /// per join); none by default.
        public var iceServers: @Sendable (_ identity: String) -> [RoomICEServer] = { _ in [] }
        /// Where track recordings are written (files mode 0600); nil: rooms record nothing.
        public var recordingsDirectory: String?
        /// Makes a finished track file (Ogg Opus, IVF) Matroska and returns its size; by
        /// default `ffmpeg -c copy` (`RoomService+Recordings`).
        public var remux: (@Sendable (_ input: String, _ output: String) async throws(MediaError) -> Int64)?
        /// The 20 ms clock that ticks rooms' audio mixes (`RoomService+Mix`); nil: no room mixes
        /// audio (WHEP viewers get a published track instead).
        public var mixClock: MediaClock?
        /// The most tracks published in one room at once (53203 beyond).
        public var maxTracksPerRoom = 200
        /// The most tracks one participant receives at once; more wait for one of these to end
        /// (`room.subscribe` beyond it: `room.subscriptionFailed` 53305).
        public var maxSubscriptionsPerParticipant = 100
        public init() {}
    }

    /// A room this node holds.
    struct LiveRoom {
        var record: RoomRecord
        /// The next callback's `SequenceNumber` (Twilio's start at 0).
        var sequence = 0
        /// Bumped whenever a timer is armed or the room changes, so a stale timer does nothing.
        var timerGeneration = 0
        /// Who speaks, from its participants' audio levels.
        var speakers = DominantSpeakerDetector()
    }

    let store: any PlatformStore
    let configuration: Configuration
    let callbacks: StatusCallbackQueue
    var rooms: [String: LiveRoom] = [:]
    /// Connected participants by SID.
    var participants: [String: LiveParticipant] = [:]
    /// Orders participants by join and tracks by publication (record times are whole seconds).
    var ordinal = 0
    /// Published tracks of connected participants, by `MT…` SID.
    var tracks: [String: LiveTrack] = [:]
    /// Subscribe rules set by REST, by participant SID (absent: subscribe to everything), while
    /// it is connected; the store keeps them (`RoomStore.setSubscribeRules`).
    var rules: [String: SubscribeRules] = [:]
    /// The participants' WebRTC sessions and the forwarding between them; nil: no room can be
    /// joined with media (`connect` refuses with 53000).
    let media: (any RoomMediaPlane)?
    /// Routes and closes, sent to the media plane in the order the service decided them.
    let mediaWork = SerialWork()
    /// Participants with media whose `room.participantConnected` went out (until they leave).
    var announced: Set<String> = []
    /// Media sessions → their participant's SID.
    var sessionOwners: [String: String] = [:]
    /// Recording rules, recordings in progress and rooms whose recordings still finish.
    var recording = RoomRecordingState()
    /// The media plane's taps on published sections, shared by recordings and mixes.
    var sectionTaps: [RoomTrackAddress: SectionTap] = [:]
    /// Rooms' mixed audio, by room SID, while someone hears it.
    var mixes: [String: RoomAudioMix] = [:]
    /// Every session's media events, handled in order by one task.
    nonisolated let mediaEventSink: AsyncStream<MediaInput>.Continuation

    /// What the media event task handles: an event, or a barrier `settle` waits on.
    enum MediaInput: Sendable {
        case event(RoomMediaEvent)
        /// Called once every event yielded before it was handled.
        case barrier(@Sendable () -> Void)
    }

    package init(store: any PlatformStore, webhooks: WebhookClient, media: (any RoomMediaPlane)? = nil,
                 configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
        self.media = media
        callbacks = StatusCallbackQueue(webhooks: webhooks, clock: configuration.clock)
        let (inputs, sink) = AsyncStream<MediaInput>.makeStream()
        mediaEventSink = sink
        Task { [weak self] in
            for await input in inputs {
                switch input {
                case .event(let event):
                    guard let self else { return }
                    await self.mediaEvent(event)
                case .barrier(let passed):
                    passed()
                }
            }
        }
    }

    deinit { mediaEventSink.finish() }

    var now: Int64 { configuration.wallClock() }

    func nextOrdinal() -> Int {
        ordinal += 1
        return ordinal
    }

    // MARK: - RoomControl

    public func createRoom(_ request: RoomCreateRequest) async throws(ParleyError) -> RoomRecord {
        let sid = SID.make("RM")
        let time = now
        let record = RoomRecord(
            sid: sid, accountSid: request.accountSid, uniqueName: request.uniqueName ?? sid, type: request.type,
            statusCallback: request.statusCallback, statusCallbackMethod: request.statusCallbackMethod,
            maxParticipants: min(request.maxParticipants, request.type.maxParticipants), maxParticipantDuration: request.maxParticipantDuration,
            recordParticipantsOnConnect: request.recordParticipantsOnConnect, emptyRoomTimeout: request.emptyRoomTimeout,
            unusedRoomTimeout: request.unusedRoomTimeout, audioOnly: request.audioOnly, videoCodecs: request.videoCodecs,
            createdAt: time, updatedAt: time)
        do {
            try store.insertRoom(record)
        } catch .conflict {
            throw ParleyError(.roomExists, reason: "an in-progress room is named \(record.uniqueName)")
        } catch {
            throw ParleyError(.restInternalServer, reason: "cannot store the room: \(error)")
        }
        rooms[sid] = LiveRoom(record: record)
        Log.info(.platform, "room \(sid) created (\(record.type.rawValue))")
        callBack(sid, event: "room-created")
        if let rules = request.recordingRules { setInitialRecordingRules(sid, rules) }
        armTimeout(sid, minutes: record.unusedRoomTimeout, reason: "unused")
        return record
    }

    public func completeRoom(sid: String) async -> RoomRecord? {
        guard rooms[sid] != nil else { return nil }
        for participant in connectedParticipants(roomSid: sid) {
            remove(participant.sid, reason: ParleyError(.roomCompleted, reason: "the room was completed"))
        }
        return end(sid)
    }

    public func disconnectParticipant(roomSid: String, participantSid: String) async -> ParticipantRecord? {
        guard participants[participantSid]?.record.roomSid == roomSid else { return nil }
        return remove(participantSid, reason: ParleyError(.participantNotFound, reason: "disconnected by the REST API"))
    }

    public func subscribedTracks(roomSid: String, participantSid: String) async -> [SubscribedTrack]? {
        guard participants[participantSid]?.record.roomSid == roomSid else { return nil }
        return subscriptions(of: participantSid)
    }

    public func subscribeRules(roomSid: String, participantSid: String) async -> SubscribeRules? {
        guard participants[participantSid]?.record.roomSid == roomSid else { return nil }
        return rules[participantSid] ?? .subscribeAll
    }

    public func updateSubscribeRules(roomSid: String, participantSid: String, _ rules: SubscribeRules) async -> SubscribeRules? {
        guard participants[participantSid]?.record.roomSid == roomSid else { return nil }
        self.rules[participantSid] = rules
        do {
            try store.setSubscribeRules(StoredSubscribeRules(participantSid: participantSid, roomSid: roomSid,
                                                             rules: SubscribeRulesJSON.text(rules), updatedAt: now))
        } catch { Log.warning(.platform, "participant \(participantSid): cannot store its subscribe rules: \(error)") }
        reconcile(participantSid)
        return rules
    }

    // MARK: - Lifecycle

    /// Ends a live room: its record completed with end time and duration, then `room-ended`.
    @discardableResult
    func end(_ sid: String) -> RoomRecord? {
        guard var room = rooms.removeValue(forKey: sid) else { return nil }
        let time = now
        room.record.status = .completed
        room.record.endTime = time
        room.record.duration = time - room.record.createdAt
        room.record.updatedAt = time
        do { try store.updateRoom(room.record) } catch { Log.warning(.platform, "room \(sid): cannot store its end: \(error)") }
        Log.info(.platform, "room \(sid) ended after \(room.record.duration ?? 0) s")
        recordingRoomEnded(room)
        sendCallback(RoomCallbacks.room(room.record, event: "room-ended", sequence: room.sequence, now: time), for: room.record)
        return room.record
    }

    /// Disarms the room's pending timeout (someone joined).
    func bumpTimer(_ sid: String) {
        rooms[sid]?.timerGeneration += 1
    }

    /// Ends the room after `minutes` unless something bumps its timer generation first.
    func armTimeout(_ sid: String, minutes: Int, reason: String) {
        bumpTimer(sid)
        guard let generation = rooms[sid]?.timerGeneration else { return }
        let clock = configuration.clock
        Task { [weak self] in
            try? await clock.sleep(for: .seconds(minutes * 60))
            await self?.timeoutFired(sid, generation: generation, reason: reason)
        }
    }

    func timeoutFired(_ sid: String, generation: Int, reason: String) {
        guard let room = rooms[sid], room.timerGeneration == generation else { return }
        Log.info(.platform, "room \(sid): \(reason) room timeout")
        end(sid)
    }

    // MARK: - Callbacks

    /// A room event with the room's next sequence number.
    func callBack(_ sid: String, event: String) {
        emit(sid) { room, sequence, now in RoomCallbacks.room(room, event: event, sequence: sequence, now: now) }
    }

    /// A participant event with the room's next sequence number.
    func callBack(_ sid: String, participant: ParticipantRecord, event: String) {
        emit(sid) { room, sequence, now in
            RoomCallbacks.participant(participant, room: room, event: event, sequence: sequence, now: now)
        }
    }

    /// Builds a live room's next callback with its next `SequenceNumber` and sends it.
    func emit(_ sid: String, _ parameters: (RoomRecord, Int, Int64) -> [(String, String)]) {
        guard var room = rooms[sid] else { return emitAfterEnd(sid, parameters) }
        let built = parameters(room.record, room.sequence, now)
        room.sequence += 1
        rooms[sid] = room
        sendCallback(built, for: room.record)
    }

    nonisolated func sendCallback(_ parameters: [(String, String)], for room: RoomRecord) {
        guard let url = room.statusCallback, !url.isEmpty,
              let account = try? store.account(sid: room.accountSid) else { return }
        let method = TwiMLMethod(rawValue: room.statusCallbackMethod.uppercased()) ?? .post
        callbacks.enqueue(.init(url: url, method: method, parameters: parameters, authToken: account.authToken), key: room.sid)
    }
}
