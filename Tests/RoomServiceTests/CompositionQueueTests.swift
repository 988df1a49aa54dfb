import Foundation
import ParleyCore
import ParleyNet
import ParleyStore
import ParleyTestSupport
import PlatformCore
import RoomService
import Testing
import VideoREST

/// The composition queue without ffmpeg: a composition is stored `enqueued`, waits for its
/// room's recordings, then fails with `composition-failed`, its callbacks signed and in order; a
/// full queue refuses with 31429; after shutdown nothing is taken; unfinished compositions are
/// taken up again by `resume()`. (Rendering with ffmpeg: `RoomRecordingInteropTests`.)
@Suite struct CompositionQueueTests {
    struct Fixture: Sendable {
        let store = InMemoryAccountStore()
        let http: HTTPClient
        let app: TwiMLTestApp
        let accountSid: String
        let room: RoomRecord

        init() throws {
            let credentials = try store.ensureDefaultAccount()
            accountSid = credentials.account.sid
            app = try TwiMLTestApp(authToken: credentials.account.authToken)
            app.serve("/c", contentType: "text/plain", body: [])
            http = try HTTPClient()
            room = RoomRecord(sid: SID.make("RM"), accountSid: accountSid, uniqueName: "done", type: .group, status: .completed,
                              createdAt: 1, updatedAt: 2)
            try store.insertRoom(room)
        }

        func queue(maxQueued: Int = 100) -> CompositionQueue {
            var configuration = CompositionQueue.Configuration(directory: NSTemporaryDirectory())
            configuration.maxQueued = maxQueued
            return CompositionQueue(store: store, webhooks: WebhookClient(http: http), ffmpeg: nil, configuration: configuration)
        }

        func request() -> CompositionCreateRequest {
            CompositionCreateRequest(accountSid: accountSid, roomSid: room.sid, audioSources: ["*"], statusCallback: app.baseURL + "/c")
        }

        func close() async {
            http.shutdown()
            await app.shutdown()
        }
    }

    @Test func withoutFFmpegACompositionFailsAndSaysSo() async throws {
        let f = try Fixture()
        let queue = f.queue()
        let created = try await queue.createComposition(f.request())
        #expect(created.status == .enqueued && SID.isValid(created.sid, prefix: "CJ"))
        await queue.settle()
        let failed = try #require(try f.store.composition(sid: created.sid))
        #expect(failed.status == .failed && failed.errorMessage?.contains("ffmpeg") == true)
        for _ in 0..<5_000 where f.app.requests("/c").count < 3 { try await Task.sleep(for: .milliseconds(1)) }
        let callbacks = f.app.requests("/c")
        #expect(callbacks.map { $0.parameters["StatusCallbackEvent"] } == ["composition-enqueued", "composition-started", "composition-failed"])
        #expect(callbacks.allSatisfy { $0.parameters["CompositionSid"] == created.sid && $0.parameters["RoomSid"] == f.room.sid })
        #expect(callbacks.last?.parameters["ErrorMessage"]?.contains("ffmpeg") == true)
        await f.close()
    }

    @Test func aFullQueueRefusesAndShutdownStopsTakingWork() async throws {
        let f = try Fixture()
        // The room's recording is still processing: the first composition waits for it.
        try f.store.insertRoomRecording(RoomRecordingRecord(
            sid: SID.make("RT"), accountSid: f.accountSid, roomSid: f.room.sid, participantSid: "PA1", sourceSid: "MT1",
            trackName: "mic", kind: .audio, codec: "OPUS", container: "mka", offset: 1, filePath: "/nowhere", createdAt: 1,
            updatedAt: 1))
        let queue = f.queue(maxQueued: 1)
        let first = try await queue.createComposition(f.request())
        for _ in 0..<5_000 where await queue.queued > 0 { try await Task.sleep(for: .milliseconds(1)) }
        _ = try await queue.createComposition(f.request())  // waits in the queue while the first waits
        await #expect(throws: ParleyError.self) { try await queue.createComposition(f.request()) }
        await queue.shutdown()
        await #expect(throws: ParleyError.self) { try await queue.createComposition(f.request()) }
        #expect(try f.store.composition(sid: first.sid)?.status == .enqueued, "left for the next start")
        // The next process takes both up again.
        let next = f.queue()
        await next.resume()
        #expect(try f.store.unfinishedCompositions().count == 2)
        await next.shutdown()
        await f.close()
    }
}
