import AudioCore
import AudioDevices
import ParleyAudio
import Testing

/// The engine's settings: the send stream's own configuration plus jitter-buffer bounds and RTP
/// identity, whichever initializer builds them.
@Suite struct AudioEngineConfigurationTests {
    @Test func spelledOutSettingsLandInTheSendConfiguration() {
        let configuration = AudioEngineConfiguration(
            codec: .pcma, redPayloadType: 63, telephoneEventPayloadType: 101, frameMilliseconds: 40,
            maximumJitterBufferDelayMs: 300, ssrc: 9, initialSequenceNumber: 7, initialTimestamp: 1_234)
        let send = configuration.send
        #expect(send.codec == .pcma && send.codecPayloadType == 8 && send.redPayloadType == 63)
        #expect(send.telephoneEventPayloadType == 101 && send.frameMilliseconds == 40)
        #expect(send.initialTimestamp == 1_234)
        // The engine's defaults: Opus-ready encoder settings at 32 kbit/s.
        #expect(send.bitrate == 40_000 && send.channels == 1 && send.redDistance == 2)
        #expect(send.complexity == 9 && !send.dtx && send.fec == .adaptive && send.maxAverageBitrate == nil)
        #expect(configuration.ssrc == 9 && configuration.initialSequenceNumber == 7)
        #expect(configuration.minimumJitterBufferDelayMs == 20 && configuration.maximumJitterBufferDelayMs == 300)
        #expect(configuration.initialJitterBufferDelayMs == 20)
        // The same settings given as a send configuration make an equal value.
        #expect(configuration == AudioEngineConfiguration(send: send, maximumJitterBufferDelayMs: 300,
                                                          ssrc: 9, initialSequenceNumber: 7))
    }

    @Test func receiveSideExpectsTheSendPayloadTypes() {
        let configuration = AudioEngineConfiguration(
            send: AudioSendStreamConfiguration(codec: .opus, payloadType: 109, redPayloadType: 63),
            minimumJitterBufferDelayMs: 30, maximumJitterBufferDelayMs: 250, initialJitterBufferDelayMs: 60)
        let format = AudioFormat(sampleRate: 16_000, channels: 2)
        let receive = configuration.receiveStreamConfiguration(outputFormat: format)
        #expect(receive.payloadType == 109 && receive.redPayloadType == 63 && receive.outputFormat == format)
        #expect(receive.minimumDelayMs == 30 && receive.maximumDelayMs == 250 && receive.initialDelayMs == 60)
    }

    @Test func engineSendsWithTheGivenSendConfiguration() throws {
        let configuration = AudioEngineConfiguration(
            send: AudioSendStreamConfiguration(codec: .pcmu, initialTimestamp: 5_000), ssrc: 0xC0FFEE,
            initialSequenceNumber: 300)
        let device = try ToneAudioDevice(pacing: .manual)
        let sink = PacketRecorder()
        let engine = try AudioEngine(device: device, configuration: configuration, packetSink: sink, clock: VirtualClock())
        try engine.start()
        for _ in 0..<6 { device.tick() }                 // 60 ms of 10 ms buffers: three 20 ms frames
        engine.stop()
        let sent = sink.all
        #expect(sent.count == 3)
        #expect(sent.allSatisfy { $0.payloadType == 0 && $0.ssrc == 0xC0FFEE && $0.payload.count == 160 })
        #expect(sent.map(\.sequenceNumber) == [300, 301, 302])
        #expect(sent.map(\.timestamp) == [5_000, 5_160, 5_320])   // 8 kHz clock, 160 per frame
    }
}
