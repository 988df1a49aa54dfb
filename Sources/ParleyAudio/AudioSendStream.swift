import AudioCore
import ParleyCore
import ParleyOpus
import RTP

/// The send side of one audio stream: captured PCM in, RTP payloads out.
///
/// Capture buffers of any size and rate go in; the stream mixes them to the codec's channels,
/// resamples them to the codec's rate (speexdsp), cuts them into frames (20 ms by default), encodes
/// each frame and hands out one `AudioSendPacket` per frame with its payload type, RTP timestamp and
/// marker, wrapped in RED (RFC 2198) when negotiated. Opus FEC follows the far end's loss reports.
/// All buffers are allocated at creation: the per-frame path allocates nothing.
///
/// Digits from `sendDigits(_:)` go out as telephone events (RFC 4733) on the stream's SSRC and
/// clock, replacing audio frames while a key is pressed, or as in-band tones when no
/// telephone-event payload type was negotiated. Not thread-safe: one owner (the capture thread or
/// the engine's loop) drives it.
public final class AudioSendStream {
    public let configuration: AudioSendStreamConfiguration
    public private(set) var inputFormat: AudioFormat
    /// The encoder (an `OpusAudioEncoder` or a `G711AudioEncoder`).
    public let encoder: any AudioEncoder
    /// The Opus encoder behind `encoder`, for its runtime settings; nil for G.711.
    public let opus: OpusEncoder?
    /// RTP clock rate (48 000 for Opus, 8 000 for G.711).
    public let clockRate: Int
    /// Samples per channel in one frame at the codec's rate.
    public let frameSamples: Int
    public private(set) var fec: OpusFECController

    /// Timestamp of the frame being accumulated now.
    public private(set) var nextFrameTimestamp: UInt32
    /// While true (e.g. during a telephone event), frames are encoded but not emitted; the first
    /// packet after it is marked.
    public var isPaused = false {
        didSet { if isPaused { talkspurtPending = true } }
    }

    // Counters.
    public private(set) var framesEncoded = 0
    public private(set) var packetsEmitted = 0
    public private(set) var payloadBytesEmitted = 0
    /// Frames not sent because DTX marked them silent or the stream was paused.
    public private(set) var framesSuppressed = 0

    private var resampler: Resampler?
    private var mixBuffer: [Int16]
    private var frame: [Int16]
    private var frameFill = 0
    private var encoded: [UInt8]
    private var red: REDEncoder?
    private var redBuffer: [UInt8]
    /// With `adaptiveRED`: the distance the far end's loss calls for.
    public private(set) var redDistance: REDDistanceController?
    private var talkspurtPending = true
    /// RFC 4733 events, or in-band tones (one of the two, by configuration).
    var telephoneEvents: DTMFSender?
    var inBandTones: DTMFToneGenerator?
    var eventPayload = [UInt8](repeating: 0, count: 16)
    /// Capture frames processed per step (bounds `mixBuffer`).
    private static let chunkFrames = 960
    private static let maxPayload = 1_500

    public init(configuration: AudioSendStreamConfiguration, inputFormat: AudioFormat) throws(ParleyError) {
        guard [10, 20, 40, 60].contains(configuration.frameMilliseconds) else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "audio frames of \(configuration.frameMilliseconds) ms")
        }
        self.configuration = configuration
        self.inputFormat = inputFormat
        fec = OpusFECController(policy: configuration.codec == .opus ? configuration.fec : .off)
        switch configuration.codec {
        case .opus:
            let duration = OpusFrameDuration(rawValue: configuration.frameMilliseconds) ?? .ms20
            let opusEncoder = try OpusAudioEncoder(configuration: OpusEncoderConfiguration(
                channels: Int32(configuration.channels), frameDuration: duration,
                bitrate: Int32(clamping: configuration.bitrate),
                maxAverageBitrate: configuration.maxAverageBitrate.map { Int32(clamping: $0) },
                complexity: Int32(clamping: configuration.complexity),
                inbandFEC: fec.isEnabled, expectedPacketLossPercent: Int32(fec.expectedLossPercent),
                dtx: configuration.dtx))
            encoder = opusEncoder
            opus = opusEncoder.encoder
        case .pcmu, .pcma:
            guard configuration.channels == 1 else {
                throw ParleyError(.mediaNoSupportedCodec, reason: "G.711 is mono")
            }
            encoder = try G711AudioEncoder(kind: configuration.codec)
            opus = nil
        }
        clockRate = configuration.codec.clockRate
        frameSamples = encoder.sampleRate * configuration.frameMilliseconds / 1000
        frame = [Int16](repeating: 0, count: frameSamples * encoder.channels)
        mixBuffer = [Int16](repeating: 0, count: Self.chunkFrames * encoder.channels)
        encoded = [UInt8](repeating: 0, count: Self.maxPayload)
        if let redPT = configuration.redPayloadType, redPT <= 127 {
            red = REDEncoder(payloadType: redPT, distance: configuration.redDistance)
            redBuffer = [UInt8](repeating: 0, count: REDEncoder.capacity(primaryCapacity: Self.maxPayload))
            redDistance = configuration.adaptiveRED ? REDDistanceController(initialDistance: configuration.redDistance) : nil
        } else {
            red = nil
            redBuffer = []
            redDistance = nil
        }
        nextFrameTimestamp = configuration.initialTimestamp
        if configuration.telephoneEventPayloadType != nil {
            telephoneEvents = DTMFSender(configuration: DTMFSender.Configuration(
                clockRate: clockRate, packetIntervalMilliseconds: configuration.frameMilliseconds))
        } else {
            inBandTones = DTMFToneGenerator(sampleRate: encoder.sampleRate)
        }
        try updateInputFormat(inputFormat)
    }

    /// Adapts to a new capture format (a device change). Samples already accumulated are kept.
    public func updateInputFormat(_ format: AudioFormat) throws(ParleyError) {
        guard (1...2).contains(format.channels), format.sampleRate > 0 else {
            throw ParleyError(.mediaNoSupportedCodec, reason: "capture format \(format)")
        }
        inputFormat = format
        resampler = format.sampleRate == encoder.sampleRate
            ? nil
            : try Resampler(inputRate: format.sampleRate, outputRate: encoder.sampleRate, channels: encoder.channels)
    }

    /// RTP timestamp of the next captured sample not yet in a frame (where a telephone event that
    /// starts now begins, RFC 4733 §2.3.3).
    public var captureTimestamp: UInt32 {
        nextFrameTimestamp &+ UInt32(truncatingIfNeeded: frameFill * clockRate / encoder.sampleRate)
    }

    /// Takes captured interleaved samples in `inputFormat` (any count of whole frames) and calls
    /// `emit` once per encoded packet, in order. The packet's payload is valid only during the call.
    public func process(_ samples: UnsafeBufferPointer<Int16>,
                        emit: (AudioSendPacket) -> Void) throws(ParleyError) {
        let inChannels = inputFormat.channels
        let totalFrames = samples.count / inChannels
        var done = 0
        while done < totalFrames {
            let n = min(Self.chunkFrames, totalFrames - done)
            let chunk = UnsafeBufferPointer(rebasing: samples[(done * inChannels)..<((done + n) * inChannels)])
            if inChannels == encoder.channels {
                try consume(chunk, emit: emit)
            } else {
                let count = n * encoder.channels
                mixBuffer.withUnsafeMutableBufferPointer { Self.mix(chunk, channels: inChannels, into: $0) }
                try mixBuffer.withUnsafeBufferPointer { (mixed) throws(ParleyError) in
                    try consume(UnsafeBufferPointer(rebasing: mixed[0..<count]), emit: emit)
                }
            }
            done += n
        }
    }

    /// Takes the far end's RTCP "fraction lost" (RFC 3550 §6.4.1) and switches Opus FEC, the
    /// encoder's expected loss and (adaptive) RED's distance accordingly.
    public func reportRemoteLoss(fractionLost: UInt8) {
        if redDistance?.reportRemoteLoss(fractionLost: fractionLost) == true, let distance = redDistance?.distance {
            red?.distance = distance
        }
        guard fec.reportRemoteLoss(fractionLost: fractionLost), let opus else { return }
        opus.inbandFEC = fec.isEnabled
        opus.expectedPacketLossPercent = Int32(fec.expectedLossPercent)
    }

    /// Marks the next emitted packet as a talkspurt start and forgets RED history.
    public func startTalkspurt() {
        talkspurtPending = true
        red?.reset()
    }

    // MARK: Frames

    /// Samples in the codec's channel layout at the capture rate: resample (or copy) into `frame`.
    private func consume(_ input: UnsafeBufferPointer<Int16>, emit: (AudioSendPacket) -> Void) throws(ParleyError) {
        let channels = encoder.channels
        var position = 0
        while position < input.count {
            let rest = UnsafeBufferPointer(rebasing: input[position...])
            let (consumed, produced) = frame.withUnsafeMutableBufferPointer { frameBuffer in
                let space = UnsafeMutableBufferPointer(rebasing: frameBuffer[(frameFill * channels)...])
                if let resampler { return resampler.process(rest, into: space) }
                let n = min(rest.count, space.count) / channels
                for i in 0..<(n * channels) { space[i] = rest[i] }
                return (n, n)
            }
            position += consumed * channels
            frameFill += produced
            if frameFill == frameSamples { try encodeFrame(emit: emit) }
            if consumed == 0 && produced == 0 { break }
        }
    }

    private func encodeFrame(emit: (AudioSendPacket) -> Void) throws(ParleyError) {
        let timestamp = nextFrameTimestamp
        frameFill = 0
        nextFrameTimestamp &+= UInt32(truncatingIfNeeded: frameSamples * clockRate / encoder.sampleRate)
        if inBandTones?.isActive == true {
            frame.withUnsafeMutableBufferPointer { _ = inBandTones?.process($0, channels: encoder.channels) }
        }
        let length = try frame.withUnsafeBufferPointer { (pcm) throws(ParleyError) in
            try encoded.withUnsafeMutableBufferPointer { (out) throws(ParleyError) in try encoder.encode(pcm, into: out) }
        }
        framesEncoded += 1
        if telephoneEvents != nil, sendTelephoneEvent(timestamp: timestamp, emit: emit) {
            framesSuppressed += 1
            talkspurtPending = true
            return
        }
        // RFC 7587 §3.1.3 / libopus: with DTX, a 1–2 byte packet is a silent frame not worth sending.
        if isPaused || (configuration.dtx && opus != nil && length <= 2) {
            framesSuppressed += 1
            talkspurtPending = true
            return
        }
        let marker = talkspurtPending
        talkspurtPending = false
        let pt = configuration.codecPayloadType
        encoded.withUnsafeBufferPointer { bytes in
            let primary = UnsafeBufferPointer(rebasing: bytes[0..<length])
            if red?.distance == 0 {
                // Nothing to repeat on a clean path: the plain payload, remembered for a later raise.
                red?.remember(UnsafeRawBufferPointer(primary), timestamp: timestamp)
                send(AudioSendPacket(payloadType: pt, timestamp: timestamp, marker: marker, payload: primary,
                                     redundantBlocks: 0), emit: emit)
            } else if red != nil, let redPT = configuration.redPayloadType {
                redBuffer.withUnsafeMutableBytes { raw in
                    guard let built = red?.encode(primary: UnsafeRawBufferPointer(primary), timestamp: timestamp,
                                                  blockPayloadType: pt, into: raw),
                          let base = raw.baseAddress else { return }
                    let payload = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: built.length)
                    send(AudioSendPacket(payloadType: redPT, timestamp: timestamp, marker: marker, payload: payload,
                                         redundantBlocks: built.redundant), emit: emit)
                }
            } else {
                send(AudioSendPacket(payloadType: pt, timestamp: timestamp, marker: marker, payload: primary,
                                     redundantBlocks: 0), emit: emit)
            }
        }
    }

    func send(_ packet: AudioSendPacket, emit: (AudioSendPacket) -> Void) {
        packetsEmitted += 1
        payloadBytesEmitted += packet.payload.count
        emit(packet)
    }

    /// Stereo → mono (average) or mono → stereo (duplicate), `output` holding as many frames.
    private static func mix(_ input: UnsafeBufferPointer<Int16>, channels: Int, into output: UnsafeMutableBufferPointer<Int16>) {
        if channels == 2 {
            for i in 0..<(input.count / 2) { output[i] = Int16((Int(input[2 * i]) + Int(input[2 * i + 1])) / 2) }
        } else {
            for i in 0..<input.count {
                output[2 * i] = input[i]
                output[2 * i + 1] = input[i]
            }
        }
    }
}
