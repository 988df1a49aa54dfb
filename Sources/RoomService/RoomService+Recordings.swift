import Foundation
import ParleyCore
import ParleyStore
import PlatformCore
import SFU
import ServerMedia
import Signaling
import Synchronization
import VideoREST

/// What the room service keeps about recordings: each room's rules, the recordings in progress,
/// and the rooms that ended while recordings were still being finished.
struct RoomRecordingState {
    /// Rules set by REST or at creation, by room SID (absent: `RecordParticipantsOnConnect` decides).
    var rules: [String: RecordingRules] = [:]
    /// Recordings in progress, by the recorded track's SID.
    var live: [String: LiveRecording] = [:]
    /// What each room's participants were last told (`room.recording`).
    var announced: [String: Bool] = [:]
    /// Recordings stopped and still being finished, per room SID.
    var finishing: [String: Int] = [:]
    /// Rooms that ended while recordings were finishing: their final record and next `SequenceNumber`.
    var ended: [String: (record: RoomRecord, sequence: Int)] = [:]
}

/// One track being recorded: where its packets come from and go.
struct LiveRecording {
    let sid: String
    let roomSid: String
    let track: PublishedTrackRecord
    let participant: ParticipantRecord
    let address: RoomTrackAddress
    let inlet: RecordingInlet
    /// Once the media plane said the track's codec and the file is open.
    var record: RoomRecordingRecord?
    var recorder: TrackRecorder?
}

/// Where a track's tapped packets go: held (up to 512) until the recorder exists, then passed on.
final class RecordingInlet: Sendable {
    private struct State {
        var recorder: TrackRecorder?
        var held: [TappedRTPPacket] = []
        var closed = false
    }

    private let state = Mutex(State())

    func receive(_ packet: TappedRTPPacket) {
        state.withLock { s in
            guard !s.closed else { return }
            guard let recorder = s.recorder else {
                if s.held.count < 512 { s.held.append(packet) }
                return
            }
            recorder.receive(packet)
        }
    }

    func install(_ recorder: TrackRecorder) {
        state.withLock { s in
            for packet in s.held { recorder.receive(packet) }
            s.held = []
            s.recorder = recorder
        }
    }

    func close() {
        state.withLock { s in
            s.closed = true
            s.held = []
        }
    }
}

/// Track recordings (Twilio's Recordings of a group room): a room records the published audio
/// and video tracks its recording rules include (`RecordParticipantsOnConnect`: all of them),
/// each from when the rules start recording it until they stop, the track goes or the room
/// ends; each such stretch is one recording `RT…`. The media plane taps the track's section
/// (`RoomMediaPlane.tap`); a `TrackRecorder` writes Ogg Opus or IVF as the packets come, off
/// the media loop; once stopped the file is remuxed into Matroska (`mka`, `mkv`) and the
/// recording completes. `recording-started`, `recording-completed` and `recording-failed` are
/// called back in the room's `SequenceNumber` order (after `room-ended` when the room ended
/// first), and participants hear `room.recording` when the room starts or stops recording.
extension RoomService {
    // MARK: - RoomControl

    public func recordingRules(roomSid: String) async -> RecordingRules? {
        guard let room = rooms[roomSid] else { return nil }
        return rules(of: room.record)
    }

    public func updateRecordingRules(roomSid: String, _ rules: RecordingRules) async -> RecordingRules? {
        guard rooms[roomSid] != nil else { return nil }
        setInitialRecordingRules(roomSid, rules)
        reconcileRecordings(roomSid: roomSid)
        return rules
    }

    /// Whether the room records any track now (`isRecording` of `room.joined`).
    func isRecording(roomSid: String) -> Bool {
        recording.live.values.contains { $0.roomSid == roomSid }
    }

    func setInitialRecordingRules(_ roomSid: String, _ rules: RecordingRules) {
        recording.rules[roomSid] = rules
        let time = now
        do {
            try store.setRecordingRules(StoredRecordingRules(roomSid: roomSid, rules: RecordingRulesJSON.text(rules),
                                                             createdAt: time, updatedAt: time))
        } catch {
            Log.warning(.platform, "room \(roomSid): cannot store its recording rules: \(error)")
        }
    }

    private func rules(of room: RoomRecord) -> RecordingRules {
        recording.rules[room.sid] ?? (room.recordParticipantsOnConnect ? .recordAll : .recordNone)
    }

    // MARK: - Starting and stopping

    /// Starts recording the room's tracks its rules include and stops those they no longer do.
    func reconcileRecordings(roomSid: String) {
        guard let room = rooms[roomSid], configuration.recordingsDirectory != nil, media != nil else { return }
        let rules = rules(of: room.record)
        for track in tracks.values.filter({ $0.record.roomSid == roomSid }).sorted(by: { $0.order < $1.order }) {
            guard track.record.kind != .data, let mid = track.mid, let publisher = participants[track.record.participantSid],
                  let session = publisher.session else { continue }
            let wanted = rules.records(.init(sid: track.record.sid, name: track.record.name, kind: track.record.kind.rawValue,
                                             priority: track.priority, publisherIdentity: publisher.record.identity))
            let live = recording.live[track.record.sid] != nil
            if wanted, !live {
                startRecording(track.record, of: publisher.record, at: RoomTrackAddress(session: session.id, mid: mid))
            } else if !wanted, live {
                stopRecording(trackSid: track.record.sid)
            }
        }
        announceRecording(roomSid: roomSid)
    }

    private func startRecording(_ track: PublishedTrackRecord, of participant: ParticipantRecord, at address: RoomTrackAddress) {
        guard media != nil else { return }
        let sid = SID.make("RT")
        let inlet = RecordingInlet()
        recording.live[track.sid] = LiveRecording(sid: sid, roomSid: track.roomSid, track: track, participant: participant,
                                                  address: address, inlet: inlet)
        attachTap(address, .recording, { inlet.receive($0) }) { [weak self] codec in
            await self?.recordingTapped(trackSid: track.sid, sid: sid, codec: codec)
        }
    }

    /// The media plane taps the track: its file is opened and `recording-started` goes out.
    private func recordingTapped(trackSid: String, sid: String, codec: String?) {
        guard var live = recording.live[trackSid], live.sid == sid, let directory = configuration.recordingsDirectory else {
            return  // stopped meanwhile
        }
        let time = now
        let kind: TrackRecorder.Codec? = switch codec?.lowercased() { case "opus": .opus; case "vp8": .vp8; default: nil }
        let audio = live.track.kind == .audio
        var record = RoomRecordingRecord(
            sid: sid, accountSid: live.participant.accountSid, roomSid: live.roomSid, participantSid: live.participant.sid,
            sourceSid: trackSid, trackName: live.track.name, kind: live.track.kind, codec: (codec ?? "").uppercased(),
            container: audio ? "mka" : "mkv", offset: time * 1000,
            filePath: directory + "/" + sid + (kind == .vp8 ? ".ivf" : ".ogg"), createdAt: time, updatedAt: time)
        var failure: String?
        if let kind {
            let media = self.media, address = live.address
            do {
                let recorder = try TrackRecorder(path: record.filePath, codec: kind) { [media] in
                    Task { await media?.requestKeyframe(address, ssrc: nil) }
                }
                live.recorder = recorder
                live.inlet.install(recorder)
            } catch {
                failure = error.message
            }
        } else {
            failure = "the \(codec ?? "unknown") codec is not recorded"
        }
        if failure != nil { record.status = .failed }
        do { try store.insertRoomRecording(record) } catch {
            Log.warning(.platform, "recording \(sid): cannot store it: \(error)")
        }
        let participant = live.participant, track = live.track
        emit(live.roomSid) { room, sequence, now in
            RoomCallbacks.recording(record, track: track, participant: participant, room: room, event: "recording-started",
                                    sequence: sequence, now: now)
        }
        guard let failure else {
            live.record = record
            recording.live[trackSid] = live
            Log.info(.platform, "room \(live.roomSid): recording \(sid) of track \(trackSid) (\(codec ?? "-")) started")
            return
        }
        Log.warning(.platform, "room \(live.roomSid): recording \(sid) of track \(trackSid) failed: \(failure)")
        recording.live[trackSid] = nil
        live.inlet.close()
        detachTap(live.address, .recording)
        emit(live.roomSid) { room, sequence, now in
            RoomCallbacks.recording(record, track: track, participant: participant, room: room, event: "recording-failed",
                                    sequence: sequence, now: now)
        }
        announceRecording(roomSid: live.roomSid)
    }

    /// Stops a track's recording: its tap is removed, then the file is finished off the actor.
    func stopRecording(trackSid: String) {
        guard let live = recording.live.removeValue(forKey: trackSid), media != nil else { return }
        let (address, inlet) = (live.address, live.inlet)
        guard let record = live.record, let recorder = live.recorder else {
            detachTap(address, .recording) { inlet.close() }
            return
        }
        recording.finishing[live.roomSid, default: 0] += 1
        let (track, participant) = (live.track, live.participant)
        detachTap(address, .recording) { [weak self] in
            inlet.close()
            Task { await self?.finishRecording(record, recorder: recorder, track: track, participant: participant) }
        }
    }

    /// Closes the file, remuxes it into Matroska and removes the live file.
    private nonisolated func finishRecording(_ record: RoomRecordingRecord, recorder: TrackRecorder,
                                             track: PublishedTrackRecord, participant: ParticipantRecord) async {
        var done = record
        do throws(MediaError) {
            let written = try recorder.finish()
            guard written.frames > 0 else { throw MediaError(.invalidInput, "no media was recorded") }
            let output = Self.matroskaPath(record.filePath, container: record.container)
            let size = try await remux(record.filePath, output)
            unlink(record.filePath)
            done.status = .completed
            done.duration = max(1, Int64(written.duration.rounded()))
            done.size = size
            done.filePath = output
            done.offset = written.firstPacketMilliseconds ?? record.offset
        } catch {
            Log.warning(.platform, "recording \(record.sid): \(error)")
            done.status = .failed
        }
        await recordingFinished(done, track: track, participant: participant)
    }

    private func recordingFinished(_ record: RoomRecordingRecord, track: PublishedTrackRecord, participant: ParticipantRecord) {
        var final = record
        final.updatedAt = now
        do { try store.updateRoomRecording(final) } catch {
            Log.warning(.platform, "recording \(record.sid): cannot store its end: \(error)")
        }
        Log.info(.platform, "room \(record.roomSid): recording \(record.sid) \(final.status.rawValue) "
                 + "(\(final.duration ?? 0) s, \(final.size ?? 0) bytes)")
        let event = final.status == .completed ? "recording-completed" : "recording-failed"
        emit(record.roomSid) { room, sequence, now in
            RoomCallbacks.recording(final, track: track, participant: participant, room: room, event: event,
                                    sequence: sequence, now: now)
        }
        let left = (recording.finishing[record.roomSid] ?? 1) - 1
        recording.finishing[record.roomSid] = left > 0 ? left : nil
        if left <= 0 { recording.ended[record.roomSid] = nil }
    }

    /// Tells the room's participants when it starts or stops recording (`room.recording`).
    func announceRecording(roomSid: String) {
        let recording = isRecording(roomSid: roomSid)
        guard (self.recording.announced[roomSid] ?? false) != recording else { return }
        self.recording.announced[roomSid] = recording
        for live in participants.values where live.record.roomSid == roomSid && announced.contains(live.record.sid) {
            live.post(.roomRecording(RoomRecording(isRecording: recording)))
        }
    }

    /// At shutdown: every recording's buffered media reaches its file, which is closed. The
    /// recordings stay `processing`; the next start remuxes and completes them
    /// (`settleUnfinishedRecordings`), as after a crash, but with nothing lost.
    public func flushRecordings() {
        for live in recording.live.values { _ = try? live.recorder?.finish() }
    }

    // MARK: - The room's end

    /// A room ended: recordings still running stop, and those still finishing keep the room's
    /// callbacks numbered after `room-ended`.
    func recordingRoomEnded(_ room: LiveRoom) {
        for (trackSid, live) in recording.live where live.roomSid == room.record.sid { stopRecording(trackSid: trackSid) }
        recording.rules[room.record.sid] = nil
        recording.announced[room.record.sid] = nil
        if (recording.finishing[room.record.sid] ?? 0) > 0 {
            recording.ended[room.record.sid] = (room.record, room.sequence + 1)
        }
    }

    /// A callback of a room that ended while its recordings finished, numbered on.
    func emitAfterEnd(_ sid: String, _ parameters: (RoomRecord, Int, Int64) -> [(String, String)]) {
        guard let ended = recording.ended[sid] else { return }
        let built = parameters(ended.record, ended.sequence, now)
        recording.ended[sid]?.sequence += 1
        sendCallback(built, for: ended.record)
    }

    // MARK: - Files

    /// `…/RT….ogg` → `…/RT….mka`.
    static func matroskaPath(_ path: String, container: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return path + "." + container }
        return String(path[..<dot]) + "." + container
    }

    /// The configured remux, else `ffmpeg -c copy`.
    nonisolated func remux(_ input: String, _ output: String) async throws(MediaError) -> Int64 {
        if let remux = configuration.remux { return try await remux(input, output) }
        guard let ffmpeg = FFmpeg() else { throw MediaError(.internalFailure, "ffmpeg is not installed (scripts/install-deps)") }
        return try await ffmpeg.remuxToMatroska(input, output: output)
    }
}
