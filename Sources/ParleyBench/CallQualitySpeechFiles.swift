import ParleyTestSupport

extension CallQualitySpeech {
    /// Speaks Harvard list 2 (`SpeechMaterial.heldOutSentences`, male then female voice) with
    /// espeak-ng and writes, in `directory`, alice's microphone (`alice-microphone.wav`, 48 kHz:
    /// silence, the speech, a second of silence) and the reference (`reference.wav`, 16 kHz).
    static func make(in directory: String, leadSeconds: Double = 3) throws -> CallQualitySpeech {
        let spoken = directory + "/speech-espeak.wav"
        try SpeechMaterial.speak(SpeechMaterial.heldOutSentences, to: spoken)
        let speech = try SpeechMaterial.load(spoken, rate: 48_000)
        let reference = try SpeechMaterial.resample(speech, from: 48_000, to: 16_000)
        let microphonePath = directory + "/alice-microphone.wav"
        let lead = [Int16](repeating: 0, count: Int(leadSeconds * 48_000)), tail = [Int16](repeating: 0, count: 48_000)
        try SpeechMaterial.save(lead + speech + tail, rate: 48_000, to: microphonePath)
        try SpeechMaterial.save(reference, rate: 16_000, to: directory + "/reference.wav")
        return CallQualitySpeech(reference: reference, microphonePath: microphonePath, leadSeconds: leadSeconds)
    }
}

/// A coarse alignment of a recording to its reference, by where speech begins, so that
/// `scripts/pesq-score` (which searches lags up to 1 s) finds the exact one.
enum SpeechOnset {
    /// The start of the first 10 ms window (16 kHz) louder than a tenth of the loudest one's RMS.
    static func onset(_ samples: [Int16]) -> Int? {
        let window = 160
        guard samples.count >= window else { return nil }
        let energies = stride(from: 0, to: samples.count - window + 1, by: window).map { start in
            samples[start..<start + window].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(window)
        }
        guard let loudest = energies.max(), loudest > 0 else { return nil }
        return energies.firstIndex { $0 > loudest / 100 }.map { $0 * window }
    }

    /// `recording` from 0.3 s before its speech begins, relative to where the reference's does.
    static func cut(_ recording: [Int16], toMatch reference: [Int16]) -> [Int16] {
        guard let heard = onset(recording), let spoken = onset(reference) else { return recording }
        let start = max(0, heard - spoken - 4_800)
        return Array(recording[start...])
    }
}
