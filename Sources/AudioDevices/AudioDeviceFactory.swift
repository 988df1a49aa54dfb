import AudioCore

/// Builds a device from a short name, for command lines and configuration files:
///
///     null                          NullAudioDevice
///     tone[:FREQ[,DBFS]]            ToneAudioDevice (440 Hz, −12 dBFS by default)
///     file:IN.wav[,OUT.wav][,loop]  FileAudioDevice (either path may be empty: file:,out.wav)
///     pulse[:SERVER]                PulseAudioDevice (SERVER as PULSE_SERVER takes it)
public enum AudioDeviceFactory {
    /// One line per form `make(named:)` accepts, for usage text.
    public static let usage = """
        null                          no audio
        tone[:FREQ[,DBFS]]            a sine as the microphone (default 440 Hz, -12 dBFS)
        file:IN.wav[,OUT.wav][,loop]  a WAV file as the microphone, another as the speaker
        pulse[:SERVER]                the sound card through PulseAudio (PULSE_SERVER by default)
        """

    /// The device `name` describes. `pacing` applies to the file and tone devices. Throws
    /// `.invalidConfiguration` for a name it does not know, or what the device's initializer throws
    /// (a missing or unreadable input file).
    public static func make(named name: String, pacing: AudioPacing = .realTime) throws(AudioDeviceError) -> any AudioDevice {
        let (kind, argument) = split(name)
        let fields = argument.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        switch kind {
        case "null" where argument == nil:
            return NullAudioDevice()
        case "tone":
            let frequency = try fields.count > 0 ? number(fields[0], "tone frequency") : 440
            let level = try fields.count > 1 ? number(fields[1], "tone level") : -12
            guard fields.count <= 2 else { throw invalid(name) }
            return try ToneAudioDevice(frequency: frequency, levelDBFS: level, pacing: pacing)
        case "file":
            var paths = fields
            let looping = paths.last == "loop"
            if looping { paths.removeLast() }
            guard (1...2).contains(paths.count) else { throw invalid(name) }
            let input = paths[0].isEmpty ? nil : paths[0]
            let output = paths.count > 1 && !paths[1].isEmpty ? paths[1] : nil
            guard input != nil || output != nil else { throw invalid(name) }
            return try FileAudioDevice(inputPath: input, outputPath: output, looping: looping, pacing: pacing)
        case "pulse":
            let server = argument.flatMap { $0.isEmpty ? nil : $0 }
            return try PulseAudioDevice(PulseAudioDevice.Configuration(server: server))
        default:
            throw invalid(name)
        }
    }

    private static func split(_ name: String) -> (String, String?) {
        guard let colon = name.firstIndex(of: ":") else { return (name, nil) }
        return (String(name[..<colon]), String(name[name.index(after: colon)...]))
    }

    private static func number(_ text: String, _ what: String) throws(AudioDeviceError) -> Double {
        guard let value = Double(text), value.isFinite else {
            throw AudioDeviceError(.invalidConfiguration, "\(what) \"\(text)\" is not a number")
        }
        return value
    }

    private static func invalid(_ name: String) -> AudioDeviceError {
        AudioDeviceError(.invalidConfiguration, "unknown audio device \"\(name)\"; use one of:\n\(usage)")
    }
}
