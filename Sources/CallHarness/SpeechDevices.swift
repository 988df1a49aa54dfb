import AudioCore
import AudioDevices

/// The audio devices of a call whose far end is scored with PESQ-WB.
public enum SpeechDevices {
    /// A listener's device: a silent microphone (one second of zeros at 48 kHz, looping) and a
    /// speaker written to `path` as 16 kHz mono WAV, the rate PESQ-WB compares.
    public static func recorder(to path: String) throws(AudioDeviceError) -> FileAudioDevice {
        try FileAudioDevice(input: WAVFile(sampleRate: 48_000, channels: 1, samples: [Int16](repeating: 0, count: 48_000)),
                            outputPath: path, renderFormat: AudioFormat(sampleRate: 16_000, channels: 1), looping: true)
    }
}
