import Foundation
import Synchronization
import Testing
import AudioCore
import AudioDevices

@Suite struct FileAudioDeviceTests {
    static let ramp = (0..<1_000).map { Int16($0 * 13 - 6_500) }

    @Test func capturesTheFilesSamplesInBuffersWithTheLastZeroPadded() throws {
        let ended = Atomic<Int>(0)
        let device = try FileAudioDevice(input: WAVFile(sampleRate: 16_000, channels: 1, samples: Self.ramp),
                                         outputPath: nil, pacing: .manual) { ended.add(1, ordering: .relaxed) }
        #expect(device.captureFormat() == AudioFormat(sampleRate: 16_000, channels: 1, framesPerBuffer: 160))
        let context = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.startCapturing(context: context)
        for _ in 0..<6 { device.tick() }
        #expect(context.count == 6 && !device.hasReachedEndOfInput && ended.load(ordering: .relaxed) == 0)
        device.tick()                                   // 40 samples left: the last, padded buffer
        #expect(device.hasReachedEndOfInput && ended.load(ordering: .relaxed) == 1)
        for _ in 0..<3 { device.tick() }                // nothing after the end
        device.stopCapturing()

        #expect(context.buffers.count == 7)
        #expect(context.buffers.allSatisfy { $0.count == 160 })
        #expect(context.samples == Self.ramp + [Int16](repeating: 0, count: 120))
        #expect(ended.load(ordering: .relaxed) == 1)
    }

    @Test func anExactMultipleEndsWithTheLastFullBuffer() throws {
        let device = try FileAudioDevice(input: WAVFile(sampleRate: 8_000, channels: 2, samples: Array(Self.ramp.prefix(480))),
                                         outputPath: nil, pacing: .manual)
        #expect(device.captureFormat()?.samplesPerBuffer == 160)   // 80 frames × 2 channels
        let context = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.startCapturing(context: context)
        for _ in 0..<3 { device.tick() }
        #expect(device.hasReachedEndOfInput)
        device.tick()
        #expect(context.samples == Array(Self.ramp.prefix(480)))
    }

    @Test func loopsWithoutEnding() throws {
        let input = Array(Self.ramp.prefix(250))
        let device = try FileAudioDevice(input: WAVFile(sampleRate: 16_000, channels: 1, samples: input),
                                         outputPath: nil, looping: true, pacing: .manual)
        let context = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.startCapturing(context: context)
        for _ in 0..<5 { device.tick() }
        #expect(!device.hasReachedEndOfInput)
        #expect(context.samples == Array((input + input + input + input).prefix(800)))
    }

    @Test func initializingAgainRewinds() throws {
        let device = try FileAudioDevice(input: WAVFile(sampleRate: 16_000, channels: 1, samples: Self.ramp),
                                         outputPath: nil, pacing: .manual)
        let first = RecordingCaptureContext(), second = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.startCapturing(context: first)
        device.tick()
        device.stopCapturing()
        try device.initializeCapturer()
        try device.startCapturing(context: second)
        device.tick()
        #expect(first.samples == Array(Self.ramp.prefix(160)) && second.samples == first.samples)
    }

    @Test func writesWhatWasRenderedToAWAVFile() throws {
        let path = AudioTestSupport.temporaryPath("out.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let format = AudioFormat(sampleRate: 8_000, channels: 2)
        let device = try FileAudioDevice(input: nil, outputPath: path, renderFormat: format, pacing: .manual)
        #expect(device.captureFormat() == nil && device.renderFormat() == format)
        let context = CountingRenderContext()
        try device.initializeRenderer()
        try device.startRendering(context: context)
        for _ in 0..<500 { device.tick() }              // 5 s: more than the writer's 64 KiB buffer
        device.stopRendering()
        device.stopRendering()
        #expect(context.pulls == 500 && device.renderedFrameCount == 40_000 && device.outputError == nil)

        let written = try WAVFile(contentsOfFile: path)
        #expect(written.sampleRate == 8_000 && written.channels == 2)
        #expect(written.samples == (0..<80_000).map { Int16(truncatingIfNeeded: $0) })
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: path)))
        let dataSize = bytes[40..<44].reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(dataSize == 160_000 && bytes.count == 44 + 160_000)

        // Initializing again starts a new file.
        try device.initializeRenderer()
        try device.startRendering(context: context)
        device.tick()
        device.stopRendering()
        #expect(try WAVFile(contentsOfFile: path).frameCount == 80)
    }

    @Test func reportsMissingAndInvalidFiles() throws {
        #expect {
            _ = try FileAudioDevice(inputPath: "/nonexistent/in.wav", outputPath: nil)
        } throws: { error in
            let e = error as? AudioDeviceError
            return e?.kind == .file && e?.reason.contains("No such file or directory") == true
        }
        let garbage = AudioTestSupport.temporaryPath("garbage.wav")
        defer { try? FileManager.default.removeItem(atPath: garbage) }
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data("not a wav file at all".utf8)))
        #expect {
            _ = try FileAudioDevice(inputPath: garbage, outputPath: nil)
        } throws: { error in
            (error as? AudioDeviceError)?.kind == .unsupportedFormat
        }
        let device = try FileAudioDevice(input: nil, outputPath: "/nonexistent/dir/out.wav", pacing: .manual)
        #expect(throws: AudioDeviceError.self) { try device.initializeRenderer() }
    }

    @Test func enforcesTheLifecycle() throws {
        let device = try FileAudioDevice(input: WAVFile(sampleRate: 16_000, channels: 1, samples: Self.ramp),
                                         outputPath: nil, pacing: .manual)
        let context = RecordingCaptureContext()
        #expect { try device.startCapturing(context: context) } throws: { ($0 as? AudioDeviceError)?.kind == .invalidState }
        #expect { try device.startRendering(context: CountingRenderContext()) } throws: { ($0 as? AudioDeviceError)?.kind == .invalidState }
        try device.initializeCapturer()
        try device.startCapturing(context: context)
        #expect { try device.startCapturing(context: context) } throws: { ($0 as? AudioDeviceError)?.kind == .invalidState }
        #expect { try device.initializeCapturer() } throws: { ($0 as? AudioDeviceError)?.kind == .invalidState }
        device.stopCapturing()
        device.stopCapturing()
        device.tick()
        #expect(context.count == 0)
        #expect { try device.startCapturing(context: context) } throws: { ($0 as? AudioDeviceError)?.kind == .invalidState }

        let renderOnly = try FileAudioDevice(input: nil, outputPath: nil, pacing: .manual)
        #expect { try renderOnly.initializeCapturer() } throws: { ($0 as? AudioDeviceError)?.kind == .invalidState }
    }

    @Test func rejectsUnusableFormats() {
        #expect(throws: AudioDeviceError.self) {
            _ = try FileAudioDevice(input: nil, outputPath: nil, renderFormat: AudioFormat(sampleRate: 48_000, channels: 0))
        }
        #expect(throws: AudioDeviceError.self) {
            _ = try FileAudioDevice(input: WAVFile(sampleRate: 50, channels: 1, samples: []), outputPath: nil)
        }
    }
}
