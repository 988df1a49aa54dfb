import Foundation
import Testing
import AudioCore
import AudioDevices

@Suite struct MixingAudioDeviceTests {
    /// A voice-like 300 Hz microphone at −20 dBFS and 1 kHz music at −6 dBFS, both 16 kHz mono.
    static let voice = AudioTestSupport.sine(frequency: 300, levelDBFS: -20, sampleRate: 16_000, frames: 16_000)
    static let music = AudioTestSupport.sine(frequency: 1_000, levelDBFS: -6, sampleRate: 16_000, frames: 8_000)

    static func makeMixer(music: WAVFile = music, gain: Double = 0.5, voice: WAVFile = voice,
                          output: String? = nil) throws -> (MixingAudioDevice, FileAudioDevice) {
        let microphone = try FileAudioDevice(input: voice, outputPath: output, looping: true, pacing: .manual)
        return (MixingAudioDevice(wrapping: microphone, music: music, musicGain: gain), microphone)
    }

    @Test func mixesMusicInOnlyAfterPlayMusicAndUntilStopMusic() throws {
        let (mixer, microphone) = try Self.makeMixer()
        #expect(mixer.captureFormat() == microphone.captureFormat())
        let context = RecordingCaptureContext()
        try mixer.initializeCapturer()
        try mixer.startCapturing(context: context)
        for _ in 0..<10 { microphone.tick() }
        #expect(!mixer.isPlayingMusic)
        mixer.playMusic()
        #expect(mixer.isPlayingMusic)
        for _ in 0..<10 { microphone.tick() }
        mixer.stopMusic()
        for _ in 0..<10 { microphone.tick() }
        mixer.stopCapturing()

        let got = context.samples
        let voice = Array(Self.voice.samples.prefix(4_800))
        #expect(got.count == 4_800)
        #expect(Array(got[0..<1_600]) == Array(voice[0..<1_600]), "microphone alone before playMusic")
        #expect(Array(got[3_200..<4_800]) == Array(voice[3_200..<4_800]), "microphone alone after stopMusic")
        // While playing: exactly voice + round(0.5 × music), from the music's start.
        let expected = (0..<1_600).map { i in
            Int16(clamping: Int32(voice[1_600 + i]) + Int32((Float(Self.music.samples[i]) * 0.5).rounded()))
        }
        #expect(Array(got[1_600..<3_200]) == expected)
        let quiet = AudioTestSupport.rms(voice[1_600..<3_200]), loud = AudioTestSupport.rms(got[1_600..<3_200])
        #expect(loud > quiet * 2.5, "level rises with music: \(quiet) → \(loud)")
    }

    @Test func mixingSaturatesInsteadOfWrapping() throws {
        let fullScale = WAVFile(sampleRate: 8_000, channels: 1, samples: [Int16](repeating: 32_000, count: 800))
        let loudMusic = WAVFile(sampleRate: 8_000, channels: 1, samples: [Int16](repeating: 30_000, count: 800))
        let (mixer, microphone) = try Self.makeMixer(music: loudMusic, gain: 1, voice: fullScale)
        let context = RecordingCaptureContext()
        try mixer.initializeCapturer()
        try mixer.startCapturing(context: context)
        mixer.playMusic()
        microphone.tick()
        #expect(context.samples == [Int16](repeating: .max, count: 80))
    }

    @Test func nonLoopingMusicEndsByItself() throws {
        let (mixer, microphone) = try Self.makeMixer()
        let context = RecordingCaptureContext()
        try mixer.initializeCapturer()
        try mixer.startCapturing(context: context)
        mixer.playMusic(looping: false)
        for _ in 0..<50 { microphone.tick() }             // the music lasts 50 buffers
        #expect(!mixer.isPlayingMusic)
        microphone.tick()
        #expect(context.buffers.last == Array(Self.voice.samples[8_000..<8_160]))
    }

    @Test func convertsMusicToTheMicrophonesRateAndChannels() throws {
        let stereoMusic = AudioTestSupport.sine(frequency: 1_000, levelDBFS: -6, sampleRate: 44_100, channels: 2, frames: 44_100)
        let silence = WAVFile(sampleRate: 48_000, channels: 1, samples: [Int16](repeating: 0, count: 48_000))
        let (mixer, microphone) = try Self.makeMixer(music: stereoMusic, gain: 1, voice: silence)
        let context = RecordingCaptureContext()
        try mixer.initializeCapturer()
        try mixer.startCapturing(context: context)
        mixer.playMusic()
        for _ in 0..<50 { microphone.tick() }
        let frequency = AudioTestSupport.zeroCrossingFrequency(context.samples, sampleRate: 48_000)
        #expect(abs(frequency - 1_000) < 5, "\(frequency) Hz")
        #expect(abs((context.samples.map { abs(Int($0)) }.max() ?? 0) - 16_422) < 100)
    }

    @Test func disabledDeliversNothingAndRendersSilence() throws {
        let path = AudioTestSupport.temporaryPath("mixed-out.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (mixer, microphone) = try Self.makeMixer(output: path)
        let capture = RecordingCaptureContext()
        let render = CountingRenderContext(constant: 500)
        try mixer.initializeCapturer()
        try mixer.initializeRenderer()
        try mixer.startCapturing(context: capture)
        try mixer.startRendering(context: render)
        mixer.playMusic()
        for _ in 0..<3 { microphone.tick() }
        mixer.isEnabled = false
        for _ in 0..<4 { microphone.tick() }
        #expect(capture.count == 3 && render.pulls == 3)
        mixer.isEnabled = true
        microphone.tick()
        #expect(capture.count == 4 && render.pulls == 4)
        mixer.stopCapturing()
        mixer.stopRendering()
        mixer.stopRendering()

        // The wrapped device rendered 3 buffers of the engine's audio, 4 of silence, then 1 more.
        let rendered = try WAVFile(contentsOfFile: path).samples
        #expect(rendered.count == 8 * 480)
        #expect(rendered[0..<1_440].allSatisfy { $0 == 500 } && rendered[1_440..<3_360].allSatisfy { $0 == 0 })
        #expect(rendered[3_360...].allSatisfy { $0 == 500 })
    }

    @Test func passesThroughLifecycleErrorsAndStopsCleanly() throws {
        let (mixer, _) = try Self.makeMixer()
        #expect { try mixer.startCapturing(context: RecordingCaptureContext()) } throws: {
            ($0 as? AudioDeviceError)?.kind == .invalidState
        }
        mixer.stopCapturing()
        mixer.stopRendering()
        let renderOnly = MixingAudioDevice(wrapping: try FileAudioDevice(input: nil, outputPath: nil), music: Self.music)
        #expect { try renderOnly.initializeCapturer() } throws: { ($0 as? AudioDeviceError)?.kind == .invalidState }
    }

    @Test func musicGainIsAdjustableAndClamped() throws {
        let (mixer, _) = try Self.makeMixer()
        #expect(mixer.musicGain == 0.5)
        mixer.musicGain = 2
        #expect(mixer.musicGain == 2)
        mixer.musicGain = -1
        #expect(mixer.musicGain == 0)
    }
}
