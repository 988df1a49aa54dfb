import ParleyCore
import ParleyStore
import ServerMedia
import VoiceREST

extension VoiceService {
    /// The Recording resource's `source` for `<Record>` and for `<Dial record>`.
    static let recordVerbSource = "RecordVerb"
    static let dialVerbSource = "DialVerb"

    /// Finishes `recorder` and stores its `completed` row; a recording that could not be written
    /// goes through `recordingFailed`. Nil when there is no stored recording.
    func finishAndStore(_ call: VoiceCall, sid: String, recorder: CallRecorder, source: String) -> RecordingRecord? {
        let result: CallRecorder.Recording
        do { result = try recorder.finish() } catch {
            recordingFailed(call, sid: sid, path: recorder.path, source: source,
                            channels: recorder.configuration.layout == .dual ? 2 : 1, error: error)
            return nil
        }
        let row = RecordingRecord(sid: sid, accountSid: call.parent.record.accountSid, callSid: call.sid,
                                  duration: Int64(result.duration.rounded()), channels: result.channels,
                                  sampleRate: result.sampleRate, status: "completed", filePath: result.path,
                                  source: source, createdAt: wallClock)
        do { try store.insertRecording(row) } catch {
            Log.error(.platform, "call \(call.sid): cannot store recording \(sid): \(error)")
            return nil
        }
        return row
    }

    /// A recording could not be created or written: the call's record gets error 31500 (its
    /// status callbacks carry `ErrorCode`), a `failed` Recording row shows it over REST, and the
    /// log has the cause. Messages sent to the application name no server path.
    func recordingFailed(_ call: VoiceCall, sid: String, path: String, source: String, channels: Int,
                         error: MediaError) {
        Log.error(.platform, "call \(call.sid): recording \(sid) failed: \(error)")
        let leg = call.parent
        leg.record.errorCode = RecordingFailure.code.rawValue
        leg.record.errorMessage = "recording \(sid) could not be written on the server"
        leg.record.updatedAt = wallClock
        let row = RecordingRecord(sid: sid, accountSid: leg.record.accountSid, callSid: call.sid, duration: 0,
                                  channels: channels, sampleRate: CallRecorder.Configuration().sampleRate,
                                  status: RecordingFailure.status, filePath: path, source: source, createdAt: wallClock)
        do {
            try store.updateCall(leg.record)
            try store.insertRecording(row)
        } catch {
            Log.error(.platform, "call \(call.sid): cannot store the failed recording \(sid): \(error)")
        }
    }
}
