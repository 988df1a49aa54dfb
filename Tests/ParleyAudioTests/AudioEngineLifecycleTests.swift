import AudioCore
import AudioDevices
import Foundation
import ParleyAudio
import Testing

/// start/stop: idempotent, restartable, rolled back on a device error; nothing after stop.
@Suite struct AudioEngineLifecycleTests {
    static let configuration = AudioEngineCallTests.configuration(ssrc: 5, telephoneEvents: 126)

    @Test func startAndStopAreIdempotentAndRestartable() throws {
        let device = try ToneAudioDevice(pacing: .manual)
        let sink = PacketRecorder()
        let engine = try AudioEngine(device: device, configuration: Self.configuration, packetSink: sink, clock: VirtualClock())
        engine.stop()                      // before any start: nothing happens
        try engine.start()
        try engine.start()                 // already started: no second binding
        #expect(engine.isRunning)
        for _ in 0..<10 { device.tick() }
        #expect(sink.count == 5)
        engine.stop()
        engine.stop()
        #expect(!engine.isRunning)
        for _ in 0..<10 { device.tick() }  // the device no longer calls the engine
        #expect(sink.count == 5 && device.renderedAudio.buffers == 10)

        try engine.start()                 // again, on the same stream: numbering carries on
        for _ in 0..<4 { device.tick() }
        engine.stop()
        let sent = sink.all
        #expect(sent.count == 7)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
        #expect(sent.map(\.marker) == [true, false, false, false, false, true, false])   // each start, a talkspurt
    }

    @Test func nothingReachesTheSinkAfterStopOnARealTimeDevice() async throws {
        let device = try ToneAudioDevice(pacing: .realTime)
        let sink = PacketRecorder()
        let engine = try AudioEngine(device: device, configuration: Self.configuration, packetSink: sink)
        try engine.start()
        let deadline = ContinuousClock.now + .seconds(2)
        while sink.count < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        engine.stop()
        let atStop = sink.count
        let rendered = device.renderedAudio.buffers
        let clock = MonotonicAudioEngineClock()
        try await Task.sleep(for: .milliseconds(60))   // three packets' worth
        #expect(atStop >= 3)
        #expect(sink.count == atStop && device.renderedAudio.buffers == rendered)
        // The default clock counts microseconds from its creation.
        #expect(clock.microseconds() >= 60_000 && clock.microseconds() < 2_000_000)
    }

    @Test func noDigitIsReportedOrPacketTakenAfterStop() throws {
        let engine = try AudioEngine(device: NullAudioDevice(), configuration: Self.configuration, clock: VirtualClock())
        let digits = DigitRecorder()
        engine.delegate = digits
        // Digit 5 begins (RFC 4733 §2.3: event 5, volume 10, duration 160).
        let keyDown: [UInt8] = [5, 10, 0, 160]
        func deliver(sequence: UInt16, at time: Int64) {
            keyDown.withUnsafeBytes {
                engine.receive(payloadType: 126, sequenceNumber: sequence, timestamp: 1_000, ssrc: 9, marker: sequence == 1,
                               payload: $0, at: time)
            }
        }
        deliver(sequence: 0, at: 0)        // before start: dropped
        #expect(digits.all.isEmpty && engine.statistics().remote.packetsReceived == 0)
        try engine.start()                 // a device without formats: nothing is captured or rendered
        deliver(sequence: 1, at: 10_000)
        #expect(digits.began == [.five] && digits.ended.isEmpty)
        engine.stop()                      // the sounding key ends with the engine
        #expect(digits.ended == [.five])
        deliver(sequence: 2, at: 20_000)
        #expect(digits.all.count == 2 && engine.statistics().remote.packetsReceived == 1)
    }

    @Test func deviceErrorsSurfaceFromStartAndNothingStaysStarted() throws {
        let directory = try EngineAudio.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = try EngineAudio.writeWAV(EngineAudio.tone(frequency: 440, seconds: 0.5), in: directory, name: "in.wav")
        // Capture starts, then the renderer cannot create its file.
        let device = try FileAudioDevice(inputPath: input, outputPath: "/nonexistent-\(UUID())/out.wav", pacing: .manual)
        let sink = PacketRecorder()
        let engine = try AudioEngine(device: device, configuration: Self.configuration, packetSink: sink, clock: VirtualClock())
        let error = #expect(throws: AudioDeviceError.self) { try engine.start() }
        #expect(error?.kind == .file)
        #expect(!engine.isRunning)
        for _ in 0..<10 { device.tick() }  // capture was rolled back
        #expect(sink.count == 0)

        // A device that neither captures nor renders starts and stays silent.
        let null = try AudioEngine(device: NullAudioDevice(), configuration: Self.configuration, packetSink: sink)
        try null.start()
        #expect(null.isRunning)
        null.stop()
        #expect(null.statistics().local.packetsSent == 0)
    }
}
