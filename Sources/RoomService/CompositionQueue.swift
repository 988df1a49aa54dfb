import Foundation
import ParleyCore
import ParleyStore
import PlatformCore
import ServerMedia
import Synchronization
import TwiML
import VideoREST

/// Makes compositions (Twilio's `/v1/Compositions`) one at a time with the `ffmpeg` program:
/// a bounded queue (`maxQueued`), each composition waiting first for its room's recordings to
/// finish, then planned (`CompositionPlan`), rendered into WebM (VP8, Opus) or MP4 (H.264, AAC)
/// within a timeout that grows with its length, and stored. Statuses go enqueued → processing →
/// completed (or failed), each called back to the composition's `StatusCallback`, signed with
/// the account's auth token (`composition-enqueued`, `composition-started`, `composition-progress`
/// every 10 % of the render with `PercentageDone` and `SecondsRemaining` (`CompositionProgress`,
/// from ffmpeg's `-progress`), `composition-available`, `composition-failed`). `shutdown()` kills a running ffmpeg; what was
/// queued is `enqueued` in the store and `resume()` takes it up after a restart.
public actor CompositionQueue: CompositionControl {
    public struct Configuration: Sendable {
        /// Where composition files go (mode 0600), beside the recordings.
        public var directory: String
        public var maxQueued = 100
        /// The render's time limit: this, plus `timeoutPerMediaSecond` for each second composed.
        public var baseTimeout: Duration = .seconds(60)
        public var timeoutPerMediaSecond: Duration = .seconds(4)
        /// How long a composition waits for its room's recordings to finish.
        public var recordingWait: Duration = .seconds(300)
        public var clock: any MonotonicClock = SystemClock()
        public var wallClock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

        public init(directory: String) { self.directory = directory }
    }

    let store: any PlatformStore
    let configuration: Configuration
    let ffmpeg: FFmpeg?
    let callbacks: StatusCallbackQueue
    private var queue: [String] = []
    private var worker: Task<Void, Never>?
    private var closed = false

    /// - Parameter ffmpeg: nil when the program is missing: every composition fails.
    package init(store: any PlatformStore, webhooks: WebhookClient, ffmpeg: FFmpeg?, configuration: Configuration) {
        self.store = store
        self.ffmpeg = ffmpeg
        self.configuration = configuration
        callbacks = StatusCallbackQueue(webhooks: webhooks, clock: configuration.clock)
    }

    var now: Int64 { configuration.wallClock() }

    public func createComposition(_ request: CompositionCreateRequest) async throws(ParleyError) -> CompositionRecord {
        guard !closed else { throw ParleyError(.temporarilyUnavailable, reason: "the server is shutting down") }
        guard queue.count < configuration.maxQueued else {
            throw ParleyError(.tooManyRequests, reason: "\(queue.count) compositions are waiting; try again later")
        }
        let time = now
        let composition = CompositionRecord(
            sid: SID.make("CJ"), accountSid: request.accountSid, roomSid: request.roomSid, audioSources: request.audioSources,
            audioSourcesExcluded: request.audioSourcesExcluded, videoLayout: request.videoLayout, resolution: request.resolution,
            format: request.format, trim: request.trim, statusCallback: request.statusCallback,
            statusCallbackMethod: request.statusCallbackMethod, createdAt: time, updatedAt: time)
        do { try store.insertComposition(composition) } catch {
            throw ParleyError(.restInternalServer, reason: "cannot store the composition: \(error)")
        }
        callBack(composition, event: "composition-enqueued")
        enqueue(composition.sid)
        return composition
    }

    /// Takes up the compositions a previous process left enqueued or processing (at start).
    public func resume() {
        let unfinished = (try? store.unfinishedCompositions()) ?? []
        for composition in unfinished { enqueue(composition.sid) }
        if !unfinished.isEmpty { Log.info(.platform, "resuming \(unfinished.count) composition(s)") }
    }

    /// Stops taking work and kills a running ffmpeg; waits for the worker to end.
    public func shutdown() async {
        closed = true
        queue = []
        ffmpeg?.group.shutdown()
        await worker?.value
    }

    /// Compositions waiting for their turn (not the one being made).
    public var queued: Int { queue.count }

    /// Returns once the queue is empty and nothing runs (tests).
    public func settle() async {
        while let worker { await worker.value }
    }

    private func enqueue(_ sid: String) {
        guard !closed else { return }
        queue.append(sid)
        guard worker == nil else { return }
        worker = Task { [weak self] in await self?.work() }
    }

    private func work() async {
        while !closed, !queue.isEmpty {
            let sid = queue.removeFirst()
            await make(sid)
        }
        worker = nil
    }

    /// Makes one composition: waits for the room's recordings, renders, stores and calls back.
    private func make(_ sid: String) async {
        guard var composition = try? store.composition(sid: sid),
              composition.status == .enqueued || composition.status == .processing else { return }
        await waitForRecordings(of: composition.roomSid)
        guard !closed else { return }
        composition.status = .processing
        composition.updatedAt = now
        save(composition)
        callBack(composition, event: "composition-started")
        let started = ContinuousClock.now
        let outcome = await render(composition, progress: progressCallback(composition))
        guard !closed else { return }  // killed at shutdown: taken up again after the restart
        switch outcome {
        case .success(let (path, size, seconds)):
            composition.status = .completed
            composition.filePath = path
            composition.size = size
            composition.duration = max(1, Int64(seconds.rounded()))
            composition.bitrate = seconds > 0 ? Int64(Double(size * 8) / seconds) : 0
            composition.completedAt = now
            Log.info(.platform, "composition \(sid): \(seconds) s of media, \(size) bytes, made in \(ContinuousClock.now - started)")
        case .failure(let error):
            composition.status = .failed
            composition.errorCode = ParleyError.Code.restInternalServer.rawValue
            composition.errorMessage = error.message
            Log.warning(.platform, "composition \(sid) failed: \(error)")
        }
        composition.updatedAt = now
        save(composition)
        callBack(composition, event: composition.status == .completed ? "composition-available" : "composition-failed")
    }

    private func render(_ composition: CompositionRecord,
                        progress: (@Sendable (Int, Int) -> Void)?) async -> Result<(String, Int64, Double), MediaError> {
        guard let ffmpeg else { return .failure(MediaError(.internalFailure, "ffmpeg is not installed (scripts/install-deps)")) }
        guard let room = try? store.room(sid: composition.roomSid) else {
            return .failure(MediaError(.invalidInput, "room \(composition.roomSid) is gone"))
        }
        let recordings = (try? store.roomRecordings(RoomRecordingQuery(accountSid: composition.accountSid,
                                                                      roomSid: composition.roomSid))) ?? []
        let plan: MediaComposition
        do { plan = try CompositionPlan.make(composition, room: room, recordings: recordings) } catch {
            return .failure(MediaError(.invalidInput, error == .invalidLayout ? "the VideoLayout cannot be composed"
                                       : "no completed recording matches the composition's sources"))
        }
        let output = configuration.directory + "/" + composition.sid + "." + composition.format
        let timeout = configuration.baseTimeout + configuration.timeoutPerMediaSecond * plan.duration
        let clock = configuration.clock
        let start = clock.now
        let tracker = Mutex(CompositionProgress(duration: plan.duration, startedAt: 0))
        let report = progress.map { call in
            { @Sendable (block: FFmpegProgressReader.Progress) in
                let elapsed = clock.now.seconds(since: start)
                if let step = tracker.withLock({ $0.update(mediaSeconds: block.seconds, now: elapsed) }) {
                    call(step.percentage, step.secondsRemaining)
                }
            }
        }
        do {
            let size = try await ffmpeg.render(plan, output: output, timeout: timeout, progress: report)
            return .success((output, size, plan.duration))
        } catch {
            return .failure(error)
        }
    }

    /// Waits (polling the store) while the room has recordings still processing, up to `recordingWait`.
    private func waitForRecordings(of roomSid: String) async {
        let clock = configuration.clock
        let deadline = clock.now.advanced(by: configuration.recordingWait)
        while !closed, clock.now < deadline {
            let pending = (try? store.unfinishedRoomRecordings())?.contains { $0.roomSid == roomSid } ?? false
            guard pending else { return }
            try? await clock.sleep(for: .milliseconds(200))
        }
    }

    private func save(_ composition: CompositionRecord) {
        do { try store.updateComposition(composition) } catch {
            Log.warning(.platform, "composition \(composition.sid): cannot store it: \(error)")
        }
    }

    /// Calls back `composition-progress` for `c` (from ffmpeg's reading thread; the callback
    /// queue keeps the composition's callbacks in order); nil without a callback URL.
    private func progressCallback(_ c: CompositionRecord) -> (@Sendable (Int, Int) -> Void)? {
        guard let url = c.statusCallback, !url.isEmpty, let account = try? store.account(sid: c.accountSid) else { return nil }
        let (callbacks, wallClock) = (callbacks, configuration.wallClock)
        let method = TwiMLMethod(rawValue: c.statusCallbackMethod.uppercased()) ?? .post
        return { percentage, remaining in
            let parameters = Self.parameters(c, event: "composition-progress", time: wallClock())
                + [("PercentageDone", String(percentage)), ("SecondsRemaining", String(remaining))]
            callbacks.enqueue(.init(url: url, method: method, parameters: parameters, authToken: account.authToken), key: c.sid)
        }
    }

    /// The parameters every composition callback has.
    private static func parameters(_ c: CompositionRecord, event: String, time: Int64) -> [(String, String)] {
        [("AccountSid", c.accountSid), ("CompositionSid", c.sid), ("CompositionUri", "/v1/Compositions/\(c.sid)"),
         ("RoomSid", c.roomSid), ("StatusCallbackEvent", event), ("Timestamp", RESTTime.iso8601(time))]
    }

    private func callBack(_ c: CompositionRecord, event: String) {
        guard let url = c.statusCallback, !url.isEmpty, let account = try? store.account(sid: c.accountSid) else { return }
        var parameters = Self.parameters(c, event: event, time: now)
        if event == "composition-available" {
            parameters += [("MediaUri", "/v1/Compositions/\(c.sid)/Media"), ("Duration", String(c.duration ?? 0)),
                           ("Size", String(c.size ?? 0))]
        }
        if event == "composition-failed" {
            parameters += [("FailedOperation", "media-composition"), ("ErrorCode", String(c.errorCode ?? 0)),
                           ("ErrorMessage", c.errorMessage ?? "")]
        }
        let method = TwiMLMethod(rawValue: c.statusCallbackMethod.uppercased()) ?? .post
        callbacks.enqueue(.init(url: url, method: method, parameters: parameters, authToken: account.authToken), key: c.sid)
    }
}
