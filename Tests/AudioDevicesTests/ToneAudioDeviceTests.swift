import Testing
import AudioCore
import AudioDevices

@Suite struct ToneAudioDeviceTests {
    @Test func capturesASineOfTheRequestedFrequencyAndLevel() throws {
        let device = try ToneAudioDevice(frequency: 1_000, levelDBFS: -6, pacing: .manual)
        let context = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.startCapturing(context: context)
        for _ in 0..<50 { device.tick() }                 // 0.5 s
        device.stopCapturing()
        let samples = context.samples
        #expect(samples.count == 24_000 && context.buffers.allSatisfy { $0.count == 480 })
        let frequency = AudioTestSupport.zeroCrossingFrequency(samples, sampleRate: 48_000)
        #expect(abs(frequency - 1_000) < 4, "\(frequency) Hz")
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        #expect(abs(peak - 16_422) <= 2, "−6 dBFS peak: \(peak)")
    }

    @Test func changesToneWithoutRestarting() throws {
        let format = AudioFormat(sampleRate: 16_000, channels: 2)
        let device = try ToneAudioDevice(frequency: 400, levelDBFS: -12, captureFormat: format, pacing: .manual)
        let context = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.startCapturing(context: context)
        for _ in 0..<20 { device.tick() }
        device.setTone(frequency: 2_000, levelDBFS: -12)
        #expect(device.tone.frequency == 2_000)
        for _ in 0..<20 { device.tick() }
        let buffers = context.buffers
        let before = buffers.prefix(20).flatMap { $0 }, after = buffers.suffix(20).flatMap { $0 }
        #expect(abs(AudioTestSupport.zeroCrossingFrequency(before, sampleRate: 16_000, channels: 2) - 400) < 10)
        #expect(abs(AudioTestSupport.zeroCrossingFrequency(after, sampleRate: 16_000, channels: 2) - 2_000) < 10)
        #expect(stride(from: 0, to: after.count, by: 2).allSatisfy { after[$0] == after[$0 + 1] }, "both channels equal")
    }

    @Test func measuresWhatWasRendered() throws {
        let device = try ToneAudioDevice(pacing: .manual)
        try device.initializeRenderer()
        try device.startRendering(context: CountingRenderContext(constant: 0))
        for _ in 0..<5 { device.tick() }
        #expect(device.renderedAudio.buffers == 5 && device.renderedAudio.frames == 2_400)
        #expect(device.renderedAudio.peak == 0 && device.renderedAudio.audibleBuffers == 0)
        #expect(device.renderedAudio.lastBufferLevelDBFS == -.infinity)
        device.stopRendering()

        try device.initializeRenderer()                   // statistics start over
        try device.startRendering(context: ToneRenderContext(sampleRate: 48_000, frequency: 600, levelDBFS: -20))
        for _ in 0..<10 { device.tick() }
        device.stopRendering()
        let rendered = device.renderedAudio
        #expect(rendered.buffers == 10 && rendered.audibleBuffers == 10)
        #expect(abs(rendered.peak - 3_277) <= 2)
        // A sine's RMS is its peak − 3.01 dB.
        #expect(abs(rendered.lastBufferLevelDBFS - (-23.01)) < 0.1, "\(rendered.lastBufferLevelDBFS)")
    }

    @Test func startBeforeInitializeIsAnInvalidState() throws {
        let device = try ToneAudioDevice(pacing: .manual)
        #expect { try device.startCapturing(context: RecordingCaptureContext()) } throws: {
            ($0 as? AudioDeviceError)?.kind == .invalidState
        }
        #expect { try device.startRendering(context: CountingRenderContext()) } throws: {
            ($0 as? AudioDeviceError)?.kind == .invalidState
        }
        device.stopCapturing()
        device.stopRendering()
    }
}
