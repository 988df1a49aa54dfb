import AudioCore
import CallQuality
import ParleyCore

/// The receive half of an `AudioEngine`, kept behind the engine's receive-side mutex: received
/// RTP (audio and RED to the `AudioReceiveStream`, telephone events to a `DTMFReceiver`) and the
/// render thread's playout, metered.
struct AudioEngineReceiveSide {
    private let configuration: AudioEngineConfiguration
    private(set) var stream: AudioReceiveStream
    private var dtmf: DTMFReceiver?
    weak var delegate: (any AudioEngineDelegate)?
    /// Packets are taken only between `start()` and `stop()`.
    var isStarted = false
    /// On hold the far end is not played: silence goes to the device.
    var isOnHold = false
    private var meter: AudioEngineLevelMeter

    // Counters.
    private(set) var telephoneEventPackets = 0
    private(set) var telephoneEventBytes = 0
    private(set) var digitsReceived = 0
    /// Telephone events of the SSRC the receive stream counts now: its loss counter sees their
    /// sequence numbers as gaps (they share the audio's numbering, RFC 4733 §2.1).
    private var eventPacketsInAudioSSRC = 0
    private var audioSSRC: UInt32?
    /// Counters of receive streams replaced after a render-format change.
    private var retired = StreamCounters()
    /// Cumulative counters at the last quality sample.
    var sampledCounters = StreamCounters()

    init(configuration: AudioEngineConfiguration) throws(ParleyError) {
        self.configuration = configuration
        let format = AudioFormat(sampleRate: 48_000, channels: configuration.send.channels)
        stream = try Self.makeStream(configuration, format)
        meter = AudioEngineLevelMeter(format: format)
        if configuration.send.telephoneEventPayloadType != nil {
            dtmf = DTMFReceiver(clockRate: configuration.send.codec.clockRate)
        }
    }

    private static func makeStream(_ configuration: AudioEngineConfiguration,
                                   _ format: AudioFormat) throws(ParleyError) -> AudioReceiveStream {
        let decoder: any AudioDecoder = configuration.send.codec == .opus
            ? try OpusAudioDecoder(sampleRate: 48_000, channels: configuration.send.channels)
            : try G711AudioDecoder(kind: configuration.send.codec)
        return try AudioReceiveStream(decoder: decoder,
                                      configuration: configuration.receiveStreamConfiguration(outputFormat: format))
    }

    /// Adapts to the device's render format: a new receive stream when it differs (its counters
    /// carry over; the jitter buffer starts afresh).
    mutating func bind(_ format: AudioFormat) throws(ParleyError) {
        guard format != stream.configuration.outputFormat else { return }
        let replacement = try Self.makeStream(configuration, format)
        let old = statistics()
        retired = StreamCounters(packets: UInt64(old.packetsReceived - telephoneEventPackets),
                                 bytes: UInt64(old.bytesReceived - telephoneEventBytes), packetsLost: Int64(old.packetsLost))
        stream = replacement
        eventPacketsInAudioSSRC = 0
        audioSSRC = nil
        meter = AudioEngineLevelMeter(format: format)
    }

    /// Takes one received packet: telephone events to the DTMF receiver (its reports appended to
    /// `events`), anything else to the receive stream, which keeps what carries its codec or RED
    /// payload type.
    mutating func receive(payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool,
                          payload: UnsafeRawBufferPointer, at now: Int64, isRetransmission: Bool = false,
                          events: inout [DTMFReceiverEvent]) {
        guard isStarted else { return }
        let reported = events.count
        if let eventType = configuration.send.telephoneEventPayloadType, payloadType == eventType {
            telephoneEventPackets += 1
            telephoneEventBytes += payload.count
            if ssrc == audioSSRC { eventPacketsInAudioSSRC += 1 }
            // A malformed event changes nothing (RFC 4733 §2.3 fields are checked by the parser).
            try? dtmf?.receive(timestamp: timestamp, marker: marker, payload: payload, at: now) { events.append($0) }
        } else {
            // Closes a key whose end packets were all lost (RFC 4733 §2.5.2.2).
            dtmf?.poll(at: now) { events.append($0) }
            if ssrc != audioSSRC, payloadType == configuration.send.codecPayloadType || payloadType == configuration.send.redPayloadType {
                audioSSRC = ssrc
                eventPacketsInAudioSSRC = 0
            }
            stream.receive(payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
                           marker: marker, payload: payload, at: now, isRetransmission: isRetransmission)
        }
        for case .began in events[reported...] { digitsReceived += 1 }
    }

    /// Ends the key that is sounding, if any (the engine stops).
    mutating func finishDigits(events: inout [DTMFReceiverEvent]) {
        dtmf?.finish { events.append($0) }
    }

    /// The device's pull: what plays now, or silence on hold (the stream still runs, so no stale
    /// audio is left to play when the call resumes).
    mutating func read(into buffer: UnsafeMutableBufferPointer<Int16>, at now: Int64) {
        stream.read(into: buffer, at: now)
        if isOnHold { buffer.update(repeating: 0) }
        meter.add(UnsafeBufferPointer(buffer))
    }

    /// The level of the last 100 ms played.
    var outputLevel: Double { meter.level }

    /// The level readings since the last call.
    mutating func takeLevelReadings() -> AudioLevelSummary { meter.takeReadings() }

    /// The receive stream's figures with telephone events folded in.
    func statistics() -> AudioEngineStatistics.Remote {
        let s = stream.statistics
        var remote = AudioEngineStatistics.Remote()
        remote.ssrc = s.ssrc
        remote.packetsReceived = Int(retired.packets) + s.packetsReceived + telephoneEventPackets
        remote.bytesReceived = Int(retired.bytes) + s.bytesReceived + telephoneEventBytes
        remote.telephoneEventPacketsReceived = telephoneEventPackets
        remote.digitsReceived = digitsReceived
        remote.packetsIgnored = s.packetsIgnored
        let lost = max(s.packetsLost - eventPacketsInAudioSSRC, 0)
        let received = s.packetsReceived + eventPacketsInAudioSSRC
        remote.packetsLost = Int(retired.packetsLost) + lost
        remote.lossFraction = lost + received > 0 ? Double(lost) / Double(lost + received) : 0
        remote.jitterMs = s.jitterMs
        remote.outputLevel = meter.level
        remote.jitterBuffer = s.jitterBuffer
        return remote
    }
}
