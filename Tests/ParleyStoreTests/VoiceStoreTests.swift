import Foundation
import ParleyStore
import Synchronization
import Testing

/// Behaviour every `VoiceStore` shares: run against SQLite and the in-memory twin.
@Suite struct VoiceStoreTests {
    @Test(arguments: StoreKind.allCases)
    func applicationsLifecycle(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let clock = TestClock(1_800_000_000)
        let store = try kind.make(in: dir, now: clock.read)
        let account = try store.createAccount(friendlyName: "Acme")
        let other = try store.createAccount(friendlyName: "Globex")

        let a = try store.createApplication(ApplicationDraft(friendlyName: "main", voiceURL: "https://example.com/voice",
                                                             voiceMethod: "GET", statusCallback: "https://example.com/status"),
                                            accountSid: account.sid)
        clock.advance(5)
        let b = try store.createApplication(ApplicationDraft(friendlyName: "spare"), accountSid: account.sid)
        let c = try store.createApplication(ApplicationDraft(friendlyName: "main"), accountSid: other.sid)
        #expect(SID.isValid(a.sid, prefix: "AP") && a.sid != b.sid)
        #expect(a.accountSid == account.sid && a.friendlyName == "main" && a.voiceURL == "https://example.com/voice")
        #expect(a.voiceMethod == "GET" && a.statusCallback == "https://example.com/status" && a.statusCallbackMethod == "POST")
        #expect(a.createdAt == 1_800_000_000 && a.updatedAt == a.createdAt)
        #expect(b.voiceURL == nil && b.voiceMethod == "POST" && b.statusCallback == nil)
        #expect(try store.application(sid: a.sid) == a)
        #expect(try store.application(sid: "AP" + String(repeating: "0", count: 32)) == nil)
        #expect(try store.applications(accountSid: account.sid, friendlyName: nil) == [a, b])
        #expect(try store.applications(accountSid: account.sid, friendlyName: "main") == [a])
        #expect(try store.applications(accountSid: other.sid, friendlyName: nil) == [c])
        #expect(try store.applications(accountSid: account.sid, friendlyName: "none").isEmpty)

        clock.advance(10)
        var edited = a
        edited.friendlyName = "renamed"
        edited.voiceURL = nil
        edited.statusCallbackMethod = "GET"
        let updated = try store.updateApplication(edited)
        #expect(updated.sid == a.sid && updated.accountSid == account.sid && updated.createdAt == a.createdAt)
        #expect(updated.friendlyName == "renamed" && updated.voiceURL == nil && updated.statusCallbackMethod == "GET")
        #expect(updated.updatedAt == 1_800_000_015)
        #expect(try store.application(sid: a.sid) == updated)

        #expect(try store.deleteApplication(sid: a.sid))
        #expect(try !store.deleteApplication(sid: a.sid))
        #expect(try store.application(sid: a.sid) == nil)
        #expect(throws: StoreError.notFound("application \(a.sid)")) { try store.updateApplication(updated) }
        #expect(throws: StoreError.notFound("account ACnope")) {
            try store.createApplication(ApplicationDraft(friendlyName: "x"), accountSid: "ACnope")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func callsInsertUpdateAndConflict(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        var call = CallRecord.sample(account: account.sid, start: 100)
        try store.insertCall(call)
        #expect(try store.call(sid: call.sid) == call)
        #expect(throws: StoreError.conflict("call \(call.sid)")) { try store.insertCall(call) }

        call.status = .completed
        call.answerTime = 105
        call.endTime = 130
        call.duration = 25
        call.errorCode = 31486
        call.errorMessage = "busy"
        call.statusCallback = "https://example.com/cb"
        call.statusCallbackMethod = "GET"
        call.applicationSid = "AP" + String(repeating: "1", count: 32)
        call.updatedAt = 130
        try store.updateCall(call)
        #expect(try store.call(sid: call.sid) == call)

        let ghost = CallRecord.sample(account: account.sid, start: 1)
        #expect(throws: StoreError.notFound("call \(ghost.sid)")) { try store.updateCall(ghost) }
        #expect(try store.call(sid: ghost.sid) == nil)
        #expect(throws: StoreError.notFound("account ACnope")) { try store.insertCall(CallRecord.sample(account: "ACnope", start: 1)) }

        // Deleting removes the row and only it; a second delete finds nothing.
        let kept = CallRecord.sample(account: account.sid, start: 200)
        try store.insertCall(kept)
        #expect(try store.deleteCall(sid: call.sid))
        #expect(try !store.deleteCall(sid: call.sid))
        #expect(try store.call(sid: call.sid) == nil)
        #expect(try store.calls(CallQuery(accountSid: account.sid, limit: 10)) == [kept])
        #expect(throws: StoreError.notFound("call \(call.sid)")) { try store.updateCall(call) }
    }

    @Test(arguments: StoreKind.allCases)
    func callListFiltersAndPages(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        let other = try store.createAccount(friendlyName: "Globex")
        var inserted: [CallRecord] = []
        for i in 0..<12 {
            var call = CallRecord.sample(account: account.sid, start: Int64(1000 + (i / 2) * 10))  // pairs share a start time
            call.from = i % 3 == 0 ? "client:alice" : "client:bob"
            call.to = i % 2 == 0 ? "client:carol" : "+15551234567"
            call.status = i < 4 ? .inProgress : .completed
            if i >= 4 { call.endTime = call.startTime + 5 }
            if i == 7 { call.parentCallSid = inserted[6].sid }
            try store.insertCall(call)
            inserted.append(call)
        }
        try store.insertCall(CallRecord.sample(account: other.sid, start: 5000))

        // Newest first; same start time → the later insertion first.
        let expectedOrder = inserted.enumerated().sorted { ($0.element.startTime, $0.offset) > ($1.element.startTime, $1.offset) }
            .map(\.element.sid)
        let all = try store.calls(CallQuery(accountSid: account.sid, limit: 100))
        #expect(all.map(\.sid) == expectedOrder)

        // Pages of 5 concatenate to the whole list.
        var paged: [String] = []
        for page in 0..<3 { paged += try store.calls(CallQuery(accountSid: account.sid, offset: page * 5, limit: 5)).map(\.sid) }
        #expect(paged == expectedOrder)
        #expect(try store.calls(CallQuery(accountSid: account.sid, offset: 12, limit: 5)).isEmpty)
        #expect(try store.calls(CallQuery(accountSid: account.sid, limit: 0)).isEmpty)

        func sids(_ q: CallQuery) throws -> Set<String> { Set(try store.calls(q).map(\.sid)) }
        func expected(_ keep: (CallRecord) -> Bool) -> Set<String> { Set(inserted.filter(keep).map(\.sid)) }
        #expect(try sids(CallQuery(accountSid: account.sid, status: .inProgress, limit: 100)) == expected { $0.status == .inProgress })
        #expect(try sids(CallQuery(accountSid: account.sid, to: "client:carol", limit: 100)) == expected { $0.to == "client:carol" })
        #expect(try sids(CallQuery(accountSid: account.sid, from: "client:alice", limit: 100)) == expected { $0.from == "client:alice" })
        #expect(try sids(CallQuery(accountSid: account.sid, parentCallSid: inserted[6].sid, limit: 100)) == [inserted[7].sid])
        #expect(try sids(CallQuery(accountSid: account.sid, startedOnOrAfter: 1020, startedOnOrBefore: 1030, limit: 100))
                == expected { (1020...1030).contains($0.startTime) })
        var ended = CallQuery(accountSid: account.sid, limit: 100)
        ended.endedOnOrAfter = 1030
        #expect(try sids(ended) == expected { ($0.endTime ?? 0) >= 1030 })
        ended.endedOnOrAfter = nil
        ended.endedOnOrBefore = 1025
        #expect(try sids(ended) == expected { $0.endTime.map { $0 <= 1025 } ?? false })
        #expect(try sids(CallQuery(accountSid: account.sid, status: .completed, from: "client:bob", limit: 100))
                == expected { $0.status == .completed && $0.from == "client:bob" })
        #expect(try store.calls(CallQuery(accountSid: other.sid, limit: 100)).count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func pushBindingsUpsertRenewExpireDelete(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        let first = PushBinding(sid: SID.make("BS"), accountSid: account.sid, identity: "alice", provider: "apns",
                                deviceToken: "aabb", createdAt: 100, expiresAt: 100 + PushBinding.timeToLive)
        #expect(try store.upsertBinding(first) == first)
        let web = PushBinding(sid: SID.make("BS"), accountSid: account.sid, identity: "alice", provider: "webhook",
                              deviceToken: "https://hooks.example/alice", createdAt: 110, expiresAt: 500)
        _ = try store.upsertBinding(web)
        let bob = PushBinding(sid: SID.make("BS"), accountSid: account.sid, identity: "bob", provider: "apns",
                              deviceToken: "aabb", createdAt: 120, expiresAt: 10_000)
        _ = try store.upsertBinding(bob)
        #expect(try store.bindings(accountSid: account.sid, identity: "alice", now: 200) == [first, web])
        #expect(try store.bindings(accountSid: account.sid, identity: "alice", now: 500) == [first])  // expiry is exclusive

        // Registering the same device again renews it and keeps its SID and creation time.
        let again = PushBinding(sid: SID.make("BS"), accountSid: account.sid, identity: "alice", provider: "apns",
                                deviceToken: "aabb", createdAt: 900, expiresAt: 900 + PushBinding.timeToLive)
        let renewed = try store.upsertBinding(again)
        #expect(renewed.sid == first.sid && renewed.createdAt == 100 && renewed.expiresAt == 900 + PushBinding.timeToLive)
        #expect(try store.bindings(accountSid: account.sid, identity: "alice", now: 200).count == 2)

        try store.renewBinding(sid: web.sid, expiresAt: 5000)
        #expect(try store.bindings(accountSid: account.sid, identity: "alice", now: 600).map(\.sid) == [first.sid, web.sid])
        #expect(throws: StoreError.notFound("push binding BSnope")) { try store.renewBinding(sid: "BSnope", expiresAt: 1) }

        #expect(try store.deleteBinding(accountSid: account.sid, identity: "alice", deviceToken: "aabb"))
        #expect(try !store.deleteBinding(accountSid: account.sid, identity: "alice", deviceToken: "aabb"))
        #expect(try store.bindings(accountSid: account.sid, identity: "alice", now: 600) == [
            PushBinding(sid: web.sid, accountSid: account.sid, identity: "alice", provider: "webhook",
                        deviceToken: "https://hooks.example/alice", createdAt: 110, expiresAt: 5000)])
        #expect(try store.bindings(accountSid: account.sid, identity: "bob", now: 600) == [bob])
        let stolen = PushBinding(sid: bob.sid, accountSid: account.sid, identity: "carol", provider: "apns", deviceToken: "cc",
                             createdAt: 1, expiresAt: 2)
        #expect(throws: StoreError.conflict("push binding \(bob.sid)")) { try store.upsertBinding(stolen) }
    }

    @Test(arguments: StoreKind.allCases)
    func recordingsByAccountAndCall(kind: StoreKind) throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let store = try kind.make(in: dir)
        let account = try store.createAccount(friendlyName: "Acme")
        let other = try store.createAccount(friendlyName: "Globex")
        let callA = SID.make("CA"), callB = SID.make("CA")
        let r1 = RecordingRecord.sample(account: account.sid, call: callA, created: 100)
        let r2 = RecordingRecord.sample(account: account.sid, call: callB, created: 200)
        let r3 = RecordingRecord.sample(account: account.sid, call: callA, created: 300)
        let r4 = RecordingRecord.sample(account: other.sid, call: SID.make("CA"), created: 400)
        for r in [r1, r2, r3, r4] { try store.insertRecording(r) }
        #expect(try store.recording(sid: r2.sid) == r2)
        #expect(try store.recording(sid: "REnope") == nil)
        #expect(try store.recordings(accountSid: account.sid, callSid: nil) == [r3, r2, r1])
        #expect(try store.recordings(accountSid: account.sid, callSid: callA) == [r3, r1])
        #expect(try store.recordings(accountSid: other.sid, callSid: callA).isEmpty)
        #expect(throws: StoreError.conflict("recording \(r1.sid)")) { try store.insertRecording(r1) }

        #expect(try store.deleteRecording(sid: r3.sid))
        #expect(try !store.deleteRecording(sid: r3.sid))
        #expect(try store.recording(sid: r3.sid) == nil)
        #expect(try store.recordings(accountSid: account.sid, callSid: callA) == [r1])
        #expect(try store.recordings(accountSid: account.sid, callSid: nil) == [r2, r1])
    }
}

/// A settable clock for `now:` closures.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var read: @Sendable () -> Int64 { { [self] in value.withLock { $0 } } }
    func advance(_ seconds: Int64) { value.withLock { $0 += seconds } }
}

extension CallRecord {
    static func sample(account: String, start: Int64) -> CallRecord {
        CallRecord(sid: SID.make("CA"), accountSid: account, from: "client:alice", to: "client:bob", direction: "inbound",
                   status: .ringing, startTime: start, createdAt: start, updatedAt: start)
    }
}

extension RecordingRecord {
    static func sample(account: String, call: String, created: Int64) -> RecordingRecord {
        RecordingRecord(sid: SID.make("RE"), accountSid: account, callSid: call, duration: 7, channels: 1, sampleRate: 8000,
                        status: "completed", filePath: "/var/lib/parley/recordings/\(call).wav", source: "RecordVerb",
                        createdAt: created)
    }
}
