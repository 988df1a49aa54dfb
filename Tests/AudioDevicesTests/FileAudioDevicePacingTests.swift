import Foundation
import Synchronization
import Testing
import AudioCore
import AudioDevices
import ParleyTestSupport

/// Real threads and the real clock: bounds are generous because CI machines are loaded.
@Suite(.serialized, .tags(.realTime)) struct FileAudioDevicePacingTests {
    static let second = AudioTestSupport.sine(frequency: 440, levelDBFS: -6, sampleRate: 48_000, frames: 48_000)

    @Test func realTimeDeliversAboutOneHundredBuffersPerSecond() throws {
        let device = try FileAudioDevice(input: Self.second, outputPath: nil, looping: true, pacing: .realTime)
        let capture = RecordingCaptureContext()
        let render = CountingRenderContext()
        try device.initializeCapturer()
        try device.initializeRenderer()
        let start = ContinuousClock.now
        try device.startCapturing(context: capture)
        try device.startRendering(context: render)
        Thread.sleep(forTimeInterval: 0.5)
        device.stopCapturing()
        device.stopRendering()
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18

        let expected = seconds * 100
        #expect(Double(capture.count) > expected * 0.7 && Double(capture.count) < expected * 1.1 + 2,
                "\(capture.count) buffers in \(seconds) s")
        #expect(Double(render.pulls) > expected * 0.7 && Double(render.pulls) < expected * 1.1 + 2,
                "\(render.pulls) pulls in \(seconds) s")
        // Absolute deadlines: the mean spacing is 10 ms however long each callback took.
        let times = capture.times
        let span = try #require(times.last) - times[0]
        let spacing = (Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18) / Double(times.count - 1)
        #expect(abs(spacing - 0.010) < 0.002, "mean spacing \(spacing * 1000) ms")
        #expect(capture.samples == Array((Self.second.samples + Self.second.samples).prefix(capture.samples.count)))
    }

    @Test func asFastAsPossibleRunsTheWholeFileAndRendersInStep() throws {
        let path = AudioTestSupport.temporaryPath("fast.wav")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let input = AudioTestSupport.sine(frequency: 300, levelDBFS: -6, sampleRate: 16_000, frames: 32_000)   // 2 s
        let device = try FileAudioDevice(input: input, outputPath: path, pacing: .asFastAsPossible)
        let capture = RecordingCaptureContext()
        let render = CountingRenderContext(constant: 1_000)
        try device.initializeCapturer()
        try device.initializeRenderer()
        let start = ContinuousClock.now
        try device.startCapturing(context: capture)
        try device.startRendering(context: render)
        #expect(AudioTestSupport.wait(seconds: 10) { device.hasReachedEndOfInput })
        #expect(ContinuousClock.now - start < .seconds(2), "faster than real time")
        Thread.sleep(forTimeInterval: 0.02)
        let pullsAtEnd = render.pulls
        Thread.sleep(forTimeInterval: 0.02)
        #expect(render.pulls == pullsAtEnd, "both sides stop when the input ends")
        device.stopCapturing()
        device.stopRendering()

        #expect(capture.samples == input.samples)
        #expect(abs(render.pulls - 200) <= 1, "render kept pace with capture: \(render.pulls)")
        let output = try WAVFile(contentsOfFile: path)
        #expect(output.frameCount == render.pulls * 480 && output.samples.allSatisfy { $0 == 1_000 })
    }

    @Test func waitsForTheEndOfInputAsynchronously() async throws {
        let input = AudioTestSupport.sine(frequency: 300, levelDBFS: -6, sampleRate: 8_000, frames: 8_000)
        let device = try FileAudioDevice(input: input, outputPath: nil, pacing: .asFastAsPossible)
        let capture = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.startCapturing(context: capture)
        await device.waitForEndOfInput()
        #expect(device.hasReachedEndOfInput && capture.samples == input.samples)
        await device.waitForEndOfInput()                 // returns at once once ended
        device.stopCapturing()
    }

    @Test(arguments: [AudioPacing.realTime, .asFastAsPossible])
    func noCallbackArrivesAfterStopReturns(pacing: AudioPacing) throws {
        let device = try FileAudioDevice(input: Self.second, outputPath: nil, looping: true, pacing: pacing)
        for _ in 0..<10 {
            let capture = RecordingCaptureContext()
            let render = CountingRenderContext()
            try device.initializeCapturer()
            try device.initializeRenderer()
            try device.startCapturing(context: capture)
            try device.startRendering(context: render)
            Thread.sleep(forTimeInterval: 0.015)
            device.stopCapturing()
            capture.stopReturned.store(true, ordering: .releasing)
            device.stopRendering()
            render.stopReturned.store(true, ordering: .releasing)
            Thread.sleep(forTimeInterval: 0.015)
            #expect(capture.count > 0 && render.pulls > 0)
            #expect(capture.deliveriesAfterStop.load(ordering: .acquiring) == 0)
            #expect(render.pullsAfterStop.load(ordering: .acquiring) == 0)
            device.stopCapturing()                       // idempotent
            device.stopRendering()
        }
    }

    @Test func theEndOfInputCallbackMayStopTheDevice() throws {
        let holder = Mutex<FileAudioDevice?>(nil)
        let stoppedInCallback = Atomic<Bool>(false)
        let input = AudioTestSupport.sine(frequency: 300, levelDBFS: -6, sampleRate: 8_000, frames: 4_000)
        let device = try FileAudioDevice(input: input, outputPath: nil, pacing: .asFastAsPossible) {
            let device = holder.withLock { $0 }
            device?.stopCapturing()
            device?.stopRendering()
            stoppedInCallback.store(true, ordering: .releasing)
        }
        holder.withLock { $0 = device }
        let capture = RecordingCaptureContext()
        try device.initializeCapturer()
        try device.initializeRenderer()
        try device.startCapturing(context: capture)
        try device.startRendering(context: CountingRenderContext())
        #expect(AudioTestSupport.wait(seconds: 10) { stoppedInCallback.load(ordering: .acquiring) })
        #expect(capture.samples == input.samples)
        // Stopped from inside: it can be started again.
        try device.initializeCapturer()
        try device.startCapturing(context: capture)
        #expect(AudioTestSupport.wait(seconds: 10) { device.hasReachedEndOfInput })
        device.stopCapturing()
        holder.withLock { $0 = nil }
    }
}
