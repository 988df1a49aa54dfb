import AudioCore
import CallQuality
import ParleyCore

/// The send half of an `AudioEngine`, kept behind the engine's send-side mutex: the capture
/// thread's path (meter → mute → `AudioSendStream` → RTP header fields → sink) and the figures the
/// far end reports about this stream in RTCP.
struct AudioEngineSendSide {
    let stream: AudioSendStream
    let ssrc: UInt32
    let telephoneEventPayloadType: UInt8?
    var sink: (any AudioEnginePacketSink)?
    var isMuted = false
    var isOnHold = false {
        // Frames are still encoded on hold, so the RTP clock keeps time; the first packet after is marked.
        didSet { stream.isPaused = isOnHold }
    }
    private var nextSequenceNumber: UInt16
    private var meter: AudioEngineLevelMeter
    /// Zeros sent in place of the microphone while muted (one capture buffer, allocated at bind).
    private var silence: [Int16]

    // Counters.
    private(set) var packetsSent = 0
    private(set) var bytesSent = 0
    private(set) var telephoneEventPacketsSent = 0
    private(set) var encodeErrors = 0

    // RTCP (RFC 3550 §6.4): what the far end's receiver reports, and the round-trip time.
    var roundTripTimeMs: Double?
    var remoteFractionLost: UInt8?
    var remotePacketsLost: Int64?
    var remoteJitterMs: Double?
    /// Cumulative counters at the last quality sample.
    var sampledCounters = StreamCounters()

    init(configuration: AudioEngineConfiguration) throws(ParleyError) {
        let format = AudioFormat(sampleRate: 48_000, channels: configuration.send.channels)
        stream = try AudioSendStream(configuration: configuration.send, inputFormat: format)
        ssrc = configuration.ssrc
        telephoneEventPayloadType = configuration.send.telephoneEventPayloadType
        nextSequenceNumber = configuration.initialSequenceNumber
        meter = AudioEngineLevelMeter(format: format)
        silence = [Int16](repeating: 0, count: format.samplesPerBuffer)
    }

    /// Adapts to the device's capture format (at start, or when the device reports a change).
    mutating func bind(_ format: AudioFormat) throws(ParleyError) {
        if format != stream.inputFormat { try stream.updateInputFormat(format) }
        meter = AudioEngineLevelMeter(format: format)
        if silence.count != format.samplesPerBuffer {
            silence = [Int16](repeating: 0, count: max(format.samplesPerBuffer, 1))
        }
    }

    /// The level of the last 100 ms of what was sent (0 while muted).
    var inputLevel: Double { meter.level }

    /// The level readings since the last call.
    mutating func takeLevelReadings() -> AudioLevelSummary { meter.takeReadings() }

    /// Cumulative counters now: packets and payload bytes sent, loss as the far end reports it.
    var counters: StreamCounters {
        StreamCounters(packets: UInt64(packetsSent), bytes: UInt64(bytesSent), packetsLost: remotePacketsLost ?? 0)
    }

    /// Captured samples in: zeros instead while muted, metered, encoded, packets to the sink.
    mutating func process(_ samples: UnsafeBufferPointer<Int16>) {
        guard isMuted else {
            meter.add(samples)
            encode(samples)
            return
        }
        // Muted: the same count of zeros, in buffer-sized pieces, so the stream's timing holds.
        var remaining = samples.count
        while remaining > 0 {
            let n = min(remaining, silence.count)
            let zeros = silence
            zeros.withUnsafeBufferPointer { buffer in
                let piece = UnsafeBufferPointer(rebasing: buffer[0..<n])
                meter.add(piece)
                encode(piece)
            }
            remaining -= n
        }
    }

    /// Runs the send stream over `samples` and stamps every packet it emits with the SSRC and the
    /// next sequence number (RFC 3550 §5.1); telephone events share both (RFC 4733 §2.1).
    private mutating func encode(_ samples: UnsafeBufferPointer<Int16>) {
        let stream = self.stream, sink = self.sink, ssrc = self.ssrc, eventType = telephoneEventPayloadType
        var sequence = nextSequenceNumber
        var packets = 0, bytes = 0, events = 0
        do {
            try stream.process(samples) { packet in
                // Without a sink (no transport yet) the packet is dropped and not counted.
                guard let sink else { return }
                let isEvent = eventType != nil && packet.payloadType == eventType
                sink.send(AudioEnginePacket(payloadType: packet.payloadType, sequenceNumber: sequence,
                                            timestamp: packet.timestamp, ssrc: ssrc, marker: packet.marker,
                                            payload: packet.payload, isTelephoneEvent: isEvent))
                sequence &+= 1
                packets += 1
                bytes += packet.payload.count
                if isEvent { events += 1 }
            }
        } catch {
            encodeErrors += 1
        }
        nextSequenceNumber = sequence
        packetsSent += packets
        bytesSent += bytes
        telephoneEventPacketsSent += events
    }
}
