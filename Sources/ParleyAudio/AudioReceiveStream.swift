import AudioCore
import ParleyCore
import RTCP
import RTP

/// The receive pipeline of one audio stream:
///
/// ```
/// RTP (codec or RED payload type) ─ REDPayloadView ─→ JitterBuffer ─→ AudioDecoder
///     (decode / RED copy / in-band FEC / PLC / silence) ─→ TimeStretcher ─→ channels
///     ─→ Resampler (if the device rate differs) ─→ PCM FIFO ─→ read(into:at:)
/// ```
///
/// The network side calls `receive`, the device pulls `read` on its own clock; both take the time
/// as microseconds of one monotonic clock. Buffers are allocated at init, so neither path
/// allocates in steady state. Not thread-safe: one owner serializes the calls (e.g. behind a Mutex).
public final class AudioReceiveStream {
    public let configuration: AudioReceiveStreamConfiguration
    public let decoder: any AudioDecoder
    /// RTP clock rate of the codec (48 000 for Opus, 8 000 for G.711).
    public let clockRate: Int
    private var jitterBuffer: JitterBuffer
    /// Called with every jitter-buffer decision as it is carried out (on the `read` caller's
    /// thread): for per-frame figures such as the jitter-buffer delay distribution.
    public var onPlayout: ((JitterBufferDecision) -> Void)?

    private var stretcher: TimeStretcher
    private var fifo: AudioReceiveStreamFIFO
    private let resampler: Resampler?
    /// Decoded PCM at the decoder's rate and channels, with room for an expanded frame.
    private let decoded: UnsafeMutableBufferPointer<Int16>
    /// The same at the output's channel count.
    private let converted: UnsafeMutableBufferPointer<Int16>
    /// Resampled to the output rate.
    private let resampled: UnsafeMutableBufferPointer<Int16>
    private let maxDecodedSamples: Int
    private var counters = ReceptionStatistics()
    private var meter: AudioOutputLevelMeter
    private var packetsReceived = 0
    private var bytesReceived = 0
    private var packetsIgnored = 0

    public init(decoder: any AudioDecoder, configuration: AudioReceiveStreamConfiguration) throws(ParleyError) {
        let output = configuration.outputFormat
        guard (1...2).contains(output.channels), (1...2).contains(decoder.channels), output.sampleRate > 0 else {
            throw ParleyError(.mediaNoSupportedCodec,
                              reason: "receive stream: \(decoder.channels) → \(output.channels) channels")
        }
        self.configuration = configuration
        self.decoder = decoder
        clockRate = decoder.kind.clockRate
        jitterBuffer = JitterBuffer(configuration: JitterBufferConfiguration(
            clockRate: clockRate, minimumDelayMs: configuration.minimumDelayMs,
            maximumDelayMs: configuration.maximumDelayMs, initialDelayMs: configuration.initialDelayMs,
            capacity: configuration.jitterBufferCapacity, fecEnabled: decoder.kind == .opus))
        // Frames up to 120 ms (RFC 6716 §3.2.5), plus one stretched period.
        maxDecodedSamples = decoder.sampleRate * 120 / 1000
        let room = (maxDecodedSamples + decoder.sampleRate * 20 / 1000)
        stretcher = TimeStretcher(sampleRate: decoder.sampleRate, channels: decoder.channels, maxFrameSamples: room)
        decoded = .allocate(capacity: room * decoder.channels)
        converted = .allocate(capacity: room * output.channels)
        if decoder.sampleRate != output.sampleRate {
            let r = try Resampler(inputRate: decoder.sampleRate, outputRate: output.sampleRate, channels: output.channels)
            resampler = r
            resampled = .allocate(capacity: r.maximumOutputFrames(forInputFrames: room) * output.channels)
        } else {
            resampler = nil
            resampled = .allocate(capacity: 1)
        }
        // 300 ms of output plus two device buffers: a 120 ms frame decoded for a pull fits with margin.
        fifo = AudioReceiveStreamFIFO(capacity: (output.sampleRate * 3 / 10 + 2 * output.framesPerBuffer) * output.channels)
        meter = AudioOutputLevelMeter(sampleRate: output.sampleRate, channels: output.channels)
        decoded.initialize(repeating: 0)
        converted.initialize(repeating: 0)
        resampled.initialize(repeating: 0)
    }

    deinit {
        decoded.deallocate()
        converted.deallocate()
        resampled.deallocate()
    }

    /// Takes one received RTP packet (already SRTP-unprotected) that arrived at `arrivalTime` (µs).
    /// Returns what the jitter buffer did with it, nil when the payload type is not this stream's.
    @discardableResult
    public func receive(_ packet: RTPPacketView, at arrivalTime: Int64) -> JitterBufferInsertResult? {
        receive(payloadType: packet.payloadType, sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp,
                ssrc: packet.ssrc, marker: packet.marker, payload: packet.payload, at: arrivalTime)
    }

    /// Takes one received packet by its fields.
    @discardableResult
    public func receive(payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32, marker: Bool,
                        payload: UnsafeRawBufferPointer, at arrivalTime: Int64,
                        isRetransmission: Bool = false) -> JitterBufferInsertResult? {
        let isRED = configuration.redPayloadType == payloadType
        guard isRED || payloadType == configuration.payloadType else {
            packetsIgnored += 1
            return nil
        }
        packetsReceived += 1
        bytesReceived += payload.count
        counters.record(ssrc: ssrc, sequence: sequenceNumber, timestamp: timestamp, payloadBytes: payload.count,
                        arrivalMicroseconds: arrivalTime,
                        clockRate: clockRate)
        var packet = JitterBufferPacket(sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, marker: marker,
                                        payloadType: configuration.payloadType, arrivalTime: arrivalTime)
        packet.isRetransmission = isRetransmission
        guard isRED else {
            packet.duration = duration(of: payload)
            return jitterBuffer.insert(packet, payload: payload)
        }
        // RFC 2198: the primary goes in as the packet, the redundant blocks with their own timestamps.
        guard let red = try? REDPayloadView(payload), red.primary.payloadType == configuration.payloadType else {
            packetsIgnored += 1
            return nil
        }
        packet.duration = duration(of: red.primary.data)
        let result = jitterBuffer.insert(packet, payload: red.primary.data)
        // A retransmission's redundant blocks are older still: played or concealed by now.
        guard result != .duplicate, !isRetransmission else { return result }
        for i in 0..<red.redundantCount {
            let block = red[i]
            guard block.payloadType == configuration.payloadType, !block.data.isEmpty else { continue }
            _ = jitterBuffer.insertRedundant(timestamp: block.timestamp(packetTimestamp: timestamp),
                                             payloadType: block.payloadType, duration: duration(of: block.data),
                                             arrivalTime: arrivalTime, payload: block.data)
        }
        return result
    }

    /// Fills `output` (interleaved samples in the output format) with what plays out now: `now` is
    /// when the device pulls it (µs, the clock `receive` uses).
    public func read(into output: UnsafeMutableBufferPointer<Int16>, at now: Int64) {
        let channels = configuration.outputFormat.channels
        let pull = Int64(output.count / channels) * 1_000_000 / Int64(configuration.outputFormat.sampleRate)
        if pull > 0, pull != jitterBuffer.pullInterval { jitterBuffer.pullInterval = pull }
        var attempts = 0
        while fifo.count < output.count, attempts < 64 {
            produce(at: now)
            attempts += 1
        }
        if fifo.count < output.count { fifo.appendSilence(output.count - fifo.count) }
        _ = fifo.read(into: output)
        meter.add(output)
    }

    /// The stream's counters, levels and jitter-buffer figures now.
    public var statistics: AudioReceiveStatistics {
        var s = AudioReceiveStatistics(codec: decoder.kind)
        s.ssrc = counters.packetsReceived > 0 ? counters.ssrc : nil
        s.packetsReceived = packetsReceived
        s.bytesReceived = bytesReceived
        s.packetsIgnored = packetsIgnored
        s.packetsLost = Int(counters.cumulativeLost)
        s.lossFraction = counters.lossFraction
        s.jitterMs = counters.jitterMilliseconds(clockRate: clockRate)
        s.outputLevel = meter.level
        s.totalOutputEnergy = meter.totalEnergy
        s.totalOutputDuration = meter.totalDuration
        s.jitterBuffer = jitterBuffer.statistics
        return s
    }

    /// Samples per channel (RTP clock) a payload decodes to, per the decoder.
    private func duration(of payload: UnsafeRawBufferPointer) -> Int? {
        let bytes = UnsafeBufferPointer(start: payload.baseAddress?.assumingMemoryBound(to: UInt8.self), count: payload.count)
        guard let samples = decoder.frameSamples(in: bytes), samples > 0 else { return nil }
        return samples * clockRate / decoder.sampleRate
    }

    /// Runs one jitter-buffer decision through decoder, time-stretch, channels and resampler into the FIFO.
    private func produce(at time: Int64) {
        let decision = jitterBuffer.nextFrame(at: time)
        onPlayout?(decision)
        let wanted = min(max(decision.samples * decoder.sampleRate / clockRate, 1), maxDecodedSamples)
        let ch = decoder.channels
        let target = decoded
        var n = 0
        switch decision.action {
        case .decode(let slot), .decodeRedundant(let slot):
            n = jitterBuffer.withPayload(slot) { [decoder] payload in
                (try? decoder.decode(payload, into: target)) ?? 0
            }
        case .recoverFromFEC(let slot):
            n = jitterBuffer.withPayload(slot) { [decoder] payload in
                decoder.recoverFromFEC(in: payload, samplesPerChannel: wanted, into: target) ?? 0
            }
        case .conceal:
            n = decoder.conceal(samplesPerChannel: wanted, into: target)
        case .silence:
            for i in 0..<(wanted * ch) { target[i] = 0 }
            n = wanted
        }
        let decodedAudio = n > 0 && decision.action != .conceal && decision.action != .silence
        if n <= 0, decision.action != .conceal, decision.action != .silence {
            // No FEC in the next packet, or an undecodable payload: conceal instead.
            n = decoder.conceal(samplesPerChannel: wanted, into: target)
            jitterBuffer.recordConcealmentInstead(of: decision.action, samples: decision.samples)
        }
        if n <= 0 {
            for i in 0..<(wanted * ch) { target[i] = 0 }
            n = wanted
        }
        if decodedAudio { n += stretch(n, decision.timeStretch) }
        emit(n)
    }

    /// Applies a time-stretch request to the `n` decoded samples per channel (the stretcher also
    /// tracks the speech level, so every decoded frame goes through it); returns the change.
    private func stretch(_ n: Int, _ request: TimeStretchRequest) -> Int {
        let rate = decoder.sampleRate
        let request: TimeStretchRequest = switch request {
        case .none: .none
        case .accelerate(let max, let urgent): .accelerate(maxSamples: max * rate / clockRate, urgent: urgent)
        case .expand(let max, let urgent): .expand(maxSamples: max * rate / clockRate, urgent: urgent)
        }
        let change = stretcher.apply(request, to: decoded, samplesPerChannel: n)
        jitterBuffer.recordTimeStretch(samples: change * clockRate / rate)
        return change
    }

    /// Converts `n` decoded samples per channel to the output channels and rate, into the FIFO.
    private func emit(_ n: Int) {
        let inChannels = decoder.channels, outChannels = configuration.outputFormat.channels
        var pcm = UnsafeBufferPointer(rebasing: decoded[0..<n * inChannels])
        if inChannels != outChannels {
            for i in 0..<n {
                if outChannels == 2 {
                    converted[2 * i] = decoded[i]
                    converted[2 * i + 1] = decoded[i]
                } else {
                    converted[i] = Int16((Int32(decoded[2 * i]) + Int32(decoded[2 * i + 1])) / 2)
                }
            }
            pcm = UnsafeBufferPointer(rebasing: converted[0..<n * outChannels])
        }
        guard let resampler else {
            fifo.append(pcm)
            return
        }
        var consumed = 0
        while consumed < n {
            let input = UnsafeBufferPointer(rebasing: pcm[(consumed * outChannels)...])
            let (used, produced) = resampler.process(input, into: resampled)
            fifo.append(UnsafeBufferPointer(rebasing: resampled[0..<produced * outChannels]))
            guard used > 0 || produced > 0 else { break }
            consumed += used
        }
    }
}
