import Foundation
import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import SFU
import VideoREST

/// An in-memory `RoomControl` that writes the store, as the room service will.
final class RoomControlTwin: RoomControl, @unchecked Sendable {
    let store: InMemoryAccountStore
    private let lock = NSLock()
    private var rules: [String: SubscribeRules] = [:]
    private var recordingRules: [String: RecordingRules] = [:]
    private var counter = 0

    init(store: InMemoryAccountStore) { self.store = store }

    func sid(_ prefix: String) -> String {
        let n = lock.withLock { counter += 1; return counter }
        return prefix + String(repeating: "0", count: 32 - String(n).count) + String(n)
    }

    func createRoom(_ request: RoomCreateRequest) async throws(ParleyError) -> RoomRecord {
        if let name = request.uniqueName, (try? store.inProgressRoom(accountSid: request.accountSid, uniqueName: name)) != nil {
            throw ParleyError(.roomExists, reason: "Room exists")
        }
        let sid = sid("RM")
        let room = RoomRecord(sid: sid, accountSid: request.accountSid, uniqueName: request.uniqueName ?? sid, type: request.type,
                              statusCallback: request.statusCallback, statusCallbackMethod: request.statusCallbackMethod,
                              maxParticipants: request.maxParticipants, maxParticipantDuration: request.maxParticipantDuration,
                              recordParticipantsOnConnect: request.recordParticipantsOnConnect,
                              emptyRoomTimeout: request.emptyRoomTimeout, unusedRoomTimeout: request.unusedRoomTimeout,
                              audioOnly: request.audioOnly, videoCodecs: request.videoCodecs, createdAt: 1_700_000_000,
                              updatedAt: 1_700_000_000)
        try? store.insertRoom(room)
        return room
    }

    func completeRoom(sid: String) async -> RoomRecord? {
        guard var room = try? store.room(sid: sid), room.status == .inProgress else { return nil }
        for p in (try? store.participants(roomSid: sid, status: .connected)) ?? [] {
            _ = await disconnectParticipant(roomSid: sid, participantSid: p.sid)
        }
        room.status = .completed
        room.endTime = room.createdAt + 60
        room.duration = 60
        try? store.updateRoom(room)
        return room
    }

    func disconnectParticipant(roomSid: String, participantSid: String) async -> ParticipantRecord? {
        guard var p = try? store.participant(sid: participantSid), p.roomSid == roomSid, p.status == .connected else { return nil }
        p.status = .disconnected
        p.endTime = p.startTime + 30
        p.duration = 30
        try? store.updateParticipant(p)
        return p
    }

    /// Every track of the room's other connected participants.
    func subscribedTracks(roomSid: String, participantSid: String) async -> [SubscribedTrack]? {
        guard let others = try? store.participants(roomSid: roomSid, status: .connected),
              others.contains(where: { $0.sid == participantSid }) else { return nil }
        return others.filter { $0.sid != participantSid }.flatMap { p in
            ((try? store.publishedTracks(participantSid: p.sid)) ?? []).map {
                SubscribedTrack(trackSid: $0.sid, name: $0.name, kind: $0.kind, enabled: $0.enabled, publisherSid: p.sid,
                                createdAt: $0.createdAt, updatedAt: $0.updatedAt)
            }
        }
    }

    func subscribeRules(roomSid: String, participantSid: String) async -> SubscribeRules? {
        guard (try? store.participant(sid: participantSid)) != nil else { return nil }
        return lock.withLock { rules[participantSid] } ?? SubscribeRules(rules: [.init(action: .include, all: true)])
    }

    func updateSubscribeRules(roomSid: String, participantSid: String, _ new: SubscribeRules) async -> SubscribeRules? {
        guard (try? store.participant(sid: participantSid)) != nil else { return nil }
        lock.withLock { rules[participantSid] = new }
        return new
    }

    func recordingRules(roomSid: String) async -> RecordingRules? {
        guard let room = try? store.room(sid: roomSid), room.status == .inProgress else { return nil }
        return lock.withLock { recordingRules[roomSid] } ?? (room.recordParticipantsOnConnect ? .recordAll : .recordNone)
    }

    func updateRecordingRules(roomSid: String, _ new: RecordingRules) async -> RecordingRules? {
        guard let room = try? store.room(sid: roomSid), room.status == .inProgress else { return nil }
        lock.withLock { recordingRules[roomSid] = new }
        return new
    }
}

/// A router over a fresh store and twin, with the default account's credentials.
struct VideoFixture {
    let store = InMemoryAccountStore(now: { 1_700_000_000 })
    let twin: RoomControlTwin
    let router: VideoRESTRouter
    let account: Account

    init(base: @escaping @Sendable () -> String = { "https://video.example" }) throws {
        twin = RoomControlTwin(store: store)
        router = VideoRESTRouter(store: store, control: twin, publicBaseURL: base)
        account = try store.createAccount(friendlyName: "test")
    }

    func request(_ method: String, _ target: String, form: [(String, String)] = [], auth: String? = nil) async -> (Int, JSONValue) {
        var headers = HTTPHeaders()
        let credentials = auth ?? "\(account.sid):\(account.authToken)"
        headers.set("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())
        var body: [UInt8] = []
        if !form.isEmpty {
            headers.set("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormURLEncoding.encode(form).utf8)
        }
        let response = await router.handle(HTTPRequest(method: method, target: target, headers: headers, body: body))
        return (response.status, (try? JSONValue.parse(response.body)) ?? .null)
    }

    /// A connected participant with one audio track.
    func join(_ room: String, _ identity: String) throws -> ParticipantRecord {
        let p = ParticipantRecord(sid: twin.sid("PA"), roomSid: room, accountSid: account.sid, identity: identity,
                                  startTime: 1_700_000_010, updatedAt: 1_700_000_010)
        try store.insertParticipant(p)
        try store.upsertPublishedTrack(PublishedTrackRecord(sid: twin.sid("MT"), participantSid: p.sid, roomSid: room,
                                                            name: "mic", kind: .audio, createdAt: 1_700_000_010,
                                                            updatedAt: 1_700_000_010))
        return p
    }
}

extension JSONValue {
    subscript(_ key: String) -> JSONValue? {
        guard case .object(let o) = self else { return nil }
        return o[key]
    }
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var int: Int64? { if case .integer(let n) = self { n } else { nil } }
    var array: [JSONValue] { if case .array(let a) = self { a } else { [] } }
}
