import Foundation
import ParleyCore
import ParleyStore
import ServerMedia
import TwiML

/// A `<Dial record=…>` recording in progress: both legs, mixed (mono) or one per channel (dual).
final class DialRecording {
    let sid: String
    let recorder: CallRecorder
    let sessions: [MediaLegID]

    init(sid: String, recorder: CallRecorder, sessions: [MediaLegID]) {
        self.sid = sid
        self.recorder = recorder
        self.sessions = sessions
    }
}

extension VoiceService {
    /// Starts recording a bridged `<Dial>` (record-from-answer[-dual]; the ringing variants start
    /// at answer too: nothing is heard before it but ringback).
    func startDialRecording(_ call: VoiceCall, dial: DialOperation, caller: MediaLegID, callee: MediaLegID) {
        guard dial.request.record != .doNotRecord, dial.recording == nil else { return }
        let dual = dial.request.record == .recordFromAnswerDual || dial.request.record == .recordFromRingingDual
        let sid = SID.make("RE")
        let directory = configuration.recordingsDirectory
        let path = directory + "/" + sid + ".wav"
        let recorder: CallRecorder
        do {
            var config = CallRecorder.Configuration()
            config.layout = dual ? .dual : .mono
            config.maximumSeconds = Double(max(1, dial.request.timeLimit))
            recorder = try CallRecorder(path: path, configuration: config, legs: 2)
        } catch {
            // The dial goes on unrecorded; the call's record and a failed Recording say so.
            return recordingFailed(call, sid: sid, path: path, source: Self.dialVerbSource, channels: dual ? 2 : 1,
                                   error: error)
        }
        dial.recording = DialRecording(sid: sid, recorder: recorder, sessions: [caller, callee])
        let media = self.media
        let epoch = mediaEpoch
        for (leg, session) in [caller, callee].enumerated() {
            enqueueMediaOperation(call) {
                _ = await media.setAudioTap(session) { packet in
                    recorder.receive(packet, leg: leg, arrivalMicroseconds: Self.microseconds(since: epoch))
                }
            }
        }
    }

    /// Ends the dial's recording, stores it, and returns what the `<Dial action>` reports.
    func finishDialRecording(_ call: VoiceCall, dial: DialOperation) -> (url: String, sid: String, duration: Int)? {
        guard let recording = dial.recording else { return nil }
        dial.recording = nil
        let media = self.media
        for session in recording.sessions {
            enqueueMediaOperation(call) { _ = await media.setAudioTap(session, nil) }
        }
        guard let row = finishAndStore(call, sid: recording.sid, recorder: recording.recorder, source: Self.dialVerbSource) else {
            return nil
        }
        let url = publicBaseURL() + "/2010-04-01/Accounts/\(row.accountSid)/Recordings/\(row.sid)"
        return (url, row.sid, Int(row.duration))
    }
}
