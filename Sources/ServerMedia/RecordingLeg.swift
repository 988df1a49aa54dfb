import ParleyAudio
import ParleyCore

/// One RTP audio packet of a call leg as the transport's tap hands it over (after SRTP). Only
/// audio payloads belong here: the adapter drops telephone-event (RFC 4733) and comfort noise.
public struct TappedAudioPacket: Sendable {
    public var payload: [UInt8]
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var codec: CallAudioCodec

    public init(payload: [UInt8], sequenceNumber: UInt16, timestamp: UInt32, codec: CallAudioCodec) {
        self.payload = payload
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.codec = codec
    }
}

/// One leg's packets turned into PCM at the recording's rate, in order: a small reorder buffer
/// keyed by sequence number (RFC 3550 §A.1 wrap arithmetic), losses concealed by Opus FEC (one lost
/// frame, LBRR in the next packet), else the decoder's PLC for up to 100 ms, then silence; gaps in
/// the timestamps without lost packets (DTX, muted senders) become silence.
final class RecordingLeg {
    struct Pending {
        var packet: TappedAudioPacket
        var position: Int
    }

    /// What the leg produced for the timeline.
    struct Output {
        var position: Int
        var count: Int
        var audible: Bool
    }

    /// Decoder PLC covers at most this much of a loss; the rest is silence.
    static let maximumConcealmentMilliseconds = 100
    static let maximumGapSeconds = 10

    let rate: Int
    let window: Int
    private(set) var started = false
    private(set) var writePosition = 0
    private(set) var packets = 0
    var lostPackets: Int { reorder.lost }
    private var nextTimestamp: UInt32 = 0
    private var reorder: SequenceReorderWindow<Pending>
    /// Set after a sequence discontinuity: the next packet is placed by its arrival time.
    private var anchorByArrival = false
    private var codec: CallAudioCodec?
    private var decoder: (any AudioDecoder)?
    private var upsampler: Resampler?
    /// Decoded audio of one packet (120 ms at the rate, the longest Opus packet) and the same at
    /// 8 kHz before upsampling G.711.
    private(set) var pcm: [Int16]
    private var narrow: [Int16]

    init(rate: Int, window: Int) {
        self.rate = rate
        self.window = min(max(1, window), 1_000)
        reorder = SequenceReorderWindow(window: window)
        pcm = [Int16](repeating: 0, count: rate * 12 / 100 + 16)
        narrow = [Int16](repeating: 0, count: 8_000 * 12 / 100)
    }

    /// Accepts a packet arriving when the timeline is at `position`; calls `emit` with every run of
    /// samples now in order (in `pcm`, or silence when `audible` is false and count > 0).
    func receive(_ packet: TappedAudioPacket, position: Int, emit: (Output, UnsafeBufferPointer<Int16>) -> Void) {
        packets += 1
        if !started {
            started = true
            writePosition = position
            nextTimestamp = packet.timestamp
        }
        // A new stream (sender restart, SSRC change) is placed by its arrival time.
        reorder.insert(packet.sequenceNumber, Pending(packet: packet, position: position),
                       restart: { anchorByArrival = true }) { entry, lost in play(entry, lost: lost, emit: emit) }
    }

    /// Plays out everything held, declaring what never came lost.
    func flush(emit: (Output, UnsafeBufferPointer<Int16>) -> Void) {
        reorder.flush { entry, lost in play(entry, lost: lost, emit: emit) }
    }

    private func play(_ entry: Pending, lost: Int, emit: (Output, UnsafeBufferPointer<Int16>) -> Void) {
        let packet = entry.packet
        prepareDecoder(for: packet.codec)
        let clock = packet.codec.clockRate
        let gapClock = Int32(bitPattern: packet.timestamp &- nextTimestamp)
        var gap: Int
        if anchorByArrival || gapClock < 0 || Int(gapClock) > Self.maximumGapSeconds * clock {
            anchorByArrival = false
            // A timestamp discontinuity (new SSRC, sender restart): place the packet by arrival.
            gap = max(0, min(entry.position - writePosition, Self.maximumGapSeconds * rate))
        } else {
            gap = Int(gapClock) * rate / clock
        }
        if gap > 0 {
            conceal(gap, lost: lost, next: packet, emit: emit)
        }
        let (decoded, duration) = decode(packet)
        if decoded > 0 {
            pcm.withUnsafeBufferPointer { emit(Output(position: writePosition, count: decoded, audible: true), UnsafeBufferPointer(rebasing: $0[0..<decoded])) }
            writePosition += decoded
        } else {
            // Undecodable: one frame of concealment keeps the timing.
            conceal(rate / 50, lost: 1, next: nil, emit: emit)
        }
        nextTimestamp = packet.timestamp &+ UInt32(decoded > 0 ? duration : clock / 50)
    }

    /// Fills `count` samples before `next`: FEC or PLC when packets were lost, silence otherwise.
    private func conceal(_ count: Int, lost: Int, next: TappedAudioPacket?, emit: (Output, UnsafeBufferPointer<Int16>) -> Void) {
        var remaining = count
        if lost > 0, let decoder {
            var fecDone = 0
            if lost == 1, upsampler == nil, let next, count <= pcm.count {
                fecDone = next.payload.withUnsafeBufferPointer { payload in
                    pcm.withUnsafeMutableBufferPointer { decoder.recoverFromFEC(in: payload, samplesPerChannel: count, into: $0) }
                } ?? 0
            }
            var concealed = fecDone
            if concealed == 0 {
                let budget = min(remaining, rate * Self.maximumConcealmentMilliseconds / 1000, pcm.count)
                if upsampler != nil {
                    let narrowBudget = min(budget * 8_000 / rate, narrow.count)
                    let made = narrow.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: narrowBudget, into: $0) }
                    concealed = min(upsample(made), remaining)
                } else {
                    concealed = pcm.withUnsafeMutableBufferPointer { decoder.conceal(samplesPerChannel: budget, into: $0) }
                }
            }
            if concealed > 0 {
                pcm.withUnsafeBufferPointer { emit(Output(position: writePosition, count: concealed, audible: true), UnsafeBufferPointer(rebasing: $0[0..<concealed])) }
                writePosition += concealed
                remaining -= concealed
            }
        }
        if remaining > 0 {
            emit(Output(position: writePosition, count: remaining, audible: false), UnsafeBufferPointer(start: nil, count: 0))
            writePosition += remaining
        }
    }

    /// Decodes into `pcm`: samples at the recording rate (0 when malformed) and the packet's
    /// duration in RTP clock units.
    private func decode(_ packet: TappedAudioPacket) -> (samples: Int, duration: Int) {
        guard let decoder, !packet.payload.isEmpty else { return (0, 0) }
        return packet.payload.withUnsafeBufferPointer { payload -> (Int, Int) in
            guard upsampler != nil else {
                let n = pcm.withUnsafeMutableBufferPointer { (try? decoder.decode(payload, into: $0)) ?? 0 }
                return (n, n * packet.codec.clockRate / rate)
            }
            let n = narrow.withUnsafeMutableBufferPointer { (try? decoder.decode(payload, into: $0)) ?? 0 }
            return (upsample(n), n)
        }
    }

    /// Upsamples `count` samples of `narrow` (8 kHz G.711) into `pcm`; returns the samples made.
    private func upsample(_ count: Int) -> Int {
        guard let upsampler, count > 0 else { return 0 }
        return narrow.withUnsafeBufferPointer { input in
            pcm.withUnsafeMutableBufferPointer { upsampler.process(UnsafeBufferPointer(rebasing: input[0..<count]), into: $0).produced }
        }
    }

    private func prepareDecoder(for codec: CallAudioCodec) {
        guard codec != self.codec else { return }
        self.codec = codec
        switch codec {
        case .opus:
            decoder = try? OpusAudioDecoder(sampleRate: rate, channels: 1)
            upsampler = nil
        case .pcmu, .pcma:
            decoder = try? G711AudioDecoder(kind: codec.kind)
            upsampler = rate == 8_000 ? nil : try? Resampler(inputRate: 8_000, outputRate: rate, channels: 1, quality: 3)
        }
    }
}
