import Foundation
import ParleyCore
import ParleyStore
import ServerMedia
import TwiML
import VoiceREST

/// A `<Record>` in progress.
final class ActiveRecording {
    let request: RecordRequest
    let sid: String
    let recorder: CallRecorder
    let mediaID: MediaLegID
    var watchTask: Task<Void, Never>?

    init(request: RecordRequest, sid: String, recorder: CallRecorder, mediaID: MediaLegID) {
        self.request = request
        self.sid = sid
        self.recorder = recorder
        self.mediaID = mediaID
    }
}

extension VoiceService {
    /// `<Record>`: the caller's audio into an 8 kHz mono WAV until maxLength, `timeout` seconds of
    /// silence, a finishOnKey digit, or hangup.
    func startRecording(_ call: VoiceCall, request: RecordRequest) {
        // The caller's media may still be connecting (the document can arrive first): record from
        // the moment it is there.
        guard call.mediaConnected, let mediaID = call.parent.mediaID else {
            call.pendingRecord = request
            return
        }
        let sid = SID.make("RE")
        let directory = configuration.recordingsDirectory
        let path = directory + "/" + sid + ".wav"
        let callSid = call.sid
        let recorder: CallRecorder
        do {
            // The directory was made ready at start; one gone since is an error, not recreated
            // (it may be an unmounted volume).
            var config = CallRecorder.Configuration()
            config.maximumSeconds = Double(max(1, request.maxLength))
            recorder = try CallRecorder(path: path, configuration: config, onLimit: { [weak self] in
                Task { await self?.finishRecording(callSid: callSid, recordingSid: sid, digits: "") }
            })
        } catch {
            recordingFailed(call, sid: sid, path: path, source: Self.recordVerbSource, channels: 1, error: error)
            return deliver(.recordingFinished(url: "", duration: 0, digits: "", sid: sid,
                                              errorCode: RecordingFailure.code.rawValue), to: call)
        }
        let active = ActiveRecording(request: request, sid: sid, recorder: recorder, mediaID: mediaID)
        call.recording = active
        if request.playBeep { playTone(ToneSource.beep(), to: call.parent) }
        let media = self.media
        let epoch = mediaEpoch
        enqueueMediaOperation(call) {
            _ = await media.setAudioTap(mediaID) { packet in
                recorder.receive(packet, arrivalMicroseconds: Self.microseconds(since: epoch))
            }
        }
        let silence = Double(max(1, request.timeout))
        active.watchTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                let status = recorder.status(nowMicroseconds: Self.microseconds(since: epoch))
                if status.reachedMaximumLength || (status.duration > 0.5 && status.trailingSilence >= silence) {
                    await self?.finishRecording(callSid: callSid, recordingSid: sid, digits: "")
                    return
                }
            }
        }
    }

    /// Microseconds of real time since `epoch`: the recorder's arrival and status time base.
    nonisolated static func microseconds(since epoch: MonotonicInstant) -> Int64 {
        epoch.duration(to: SystemClock.now).wholeNanoseconds / 1_000
    }

    /// True when `digit` ended the recording in progress.
    func recordingDigit(_ digit: Character, call: VoiceCall) -> Bool {
        guard let active = call.recording else { return false }
        guard active.request.finishOnKey.contains(digit) else { return true }
        finishRecording(callSid: call.sid, recordingSid: active.sid, digits: String(digit))
        return true
    }

    func finishRecording(callSid: String, recordingSid: String, digits: String) {
        guard let call = calls[callSid], let active = call.recording, active.sid == recordingSid else { return }
        guard let result = closeRecording(call, active) else {
            return deliver(.recordingFinished(url: "", duration: 0, digits: digits, sid: recordingSid,
                                              errorCode: RecordingFailure.code.rawValue), to: call)
        }
        let url = publicBaseURL() + "/2010-04-01/Accounts/\(call.parent.record.accountSid)/Recordings/\(recordingSid)"
        deliver(.recordingFinished(url: url, duration: Int(result.duration), digits: digits,
                                   sid: recordingSid), to: call)
    }

    /// `.stopRecording` or the call ending: keep what was recorded, report nothing (a failure goes
    /// on the call's record).
    func stopRecording(_ call: VoiceCall, deliverResult: Bool) {
        call.pendingRecord = nil
        guard let active = call.recording else { return }
        _ = closeRecording(call, active)
    }

    private func closeRecording(_ call: VoiceCall, _ active: ActiveRecording) -> RecordingRecord? {
        call.recording = nil
        active.watchTask?.cancel()
        let media = self.media
        let mediaID = active.mediaID
        enqueueMediaOperation(call) { _ = await media.setAudioTap(mediaID, nil) }
        return finishAndStore(call, sid: active.sid, recorder: active.recorder, source: Self.recordVerbSource)
    }
}
