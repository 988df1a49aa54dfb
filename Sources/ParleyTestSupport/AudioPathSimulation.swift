import AudioCore
import NetworkConditioner
import ParleyAudio
import ParleyCore

/// One call direction on a virtual clock: a 48 kHz microphone → `AudioSendStream` (codec, FEC,
/// RED) → RTP → `NetworkConditioner` (loss, jitter, reordering) → `AudioReceiveStream` (jitter
/// buffer, decoder, concealment) → a device pulling 10 ms buffers on its own clock. Runs as fast as
/// the CPU allows and is repeatable from the seed. Used by the audio tests and by
/// `parley-bench audio-quality`.
public enum AudioPathSimulation {
    public struct Options: Sendable {
        public var codec: AudioCodecKind = .opus
        public var conditions = NetworkConditions()
        public var seed: UInt64 = 1
        /// RED (RFC 2198) with this many earlier frames in every packet; 0 sends plain packets.
        public var redDistance = 2
        public var fec: OpusFECController.Policy = .adaptive
        public var bitrate = AudioSendStreamConfiguration().bitrate
        public var frameMilliseconds = 20
        /// Where the receiving device's 10 ms pulls fall relative to the sender's capture ticks.
        public var devicePhaseMicroseconds: Int64 = 3_000
        /// How often the receiver reports loss to the sender (RTCP receiver reports, RFC 3550 §6.2).
        public var reportIntervalMicroseconds: Int64 = 1_000_000

        public init() {}
    }

    public struct Result: Sendable {
        /// What the receiving device played, 48 kHz mono, as long as the input plus the flush.
        public var output: [Int16]
        public var receive: AudioReceiveStatistics
        public var network: NetworkConditionerStatistics
        /// Per played frame: milliseconds from the packet's arrival to its playout (jitterBufferDelay).
        public var jitterBufferDelaysMs: [Double]
        public var packetsSent: Int
        public var payloadBytesSent: Int

        /// The `q` quantile (0…1) of the jitter-buffer delays, in ms.
        public func jitterBufferDelay(quantile q: Double) -> Double {
            let sorted = jitterBufferDelaysMs.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))]
        }
    }

    /// An RTP packet in flight through the simulated network.
    private struct Packet {
        var payloadType: UInt8
        var sequenceNumber: UInt16
        var timestamp: UInt32
        var marker: Bool
        var payload: [UInt8]
    }

    public static let rate = 48_000
    private static let tick: Int64 = 10_000

    /// Runs `input` (48 kHz mono) through the path and returns what the receiver played.
    public static func run(input: [Int16], options: Options = Options()) throws(ParleyError) -> Result {
        let format = AudioFormat(sampleRate: rate, channels: 1)
        let send = try AudioSendStream(
            configuration: AudioSendStreamConfiguration(
                codec: options.codec, redPayloadType: options.redDistance > 0 ? 63 : nil,
                redDistance: max(options.redDistance, 1), frameMilliseconds: options.frameMilliseconds,
                bitrate: options.bitrate, fec: options.codec == .opus ? options.fec : .off),
            inputFormat: format)
        let decoder: any AudioDecoder = options.codec == .opus
            ? try OpusAudioDecoder(sampleRate: rate, channels: 1)
            : try G711AudioDecoder(kind: options.codec)
        let receive = try AudioReceiveStream(
            decoder: decoder,
            configuration: AudioReceiveStreamConfiguration(
                payloadType: send.configuration.codecPayloadType,
                redPayloadType: options.redDistance > 0 ? 63 : nil, outputFormat: format))
        var delays: [Double] = []
        receive.onPlayout = { decision in
            if let delay = decision.jitterBufferDelay { delays.append(Double(delay) / 1000) }
        }
        var network = NetworkConditioner<Packet>(conditions: options.conditions, seed: options.seed, capacity: 1024)

        var sequence: UInt16 = 0
        var packetsSent = 0, bytesSent = 0
        let ssrc: UInt32 = 0x5041_524C
        let frames = format.framesPerBuffer
        let flushTicks = 60
        let ticks = (input.count + frames - 1) / frames + flushTicks
        var output = [Int16](repeating: 0, count: ticks * frames)
        var capture = [Int16](repeating: 0, count: frames)
        var lastReport: (lost: Int, received: Int, time: Int64) = (0, 0, 0)

        for k in 0..<ticks {
            let now = Int64(k) * tick
            // Capture 10 ms (silence after the input ends) and send what the encoder emits.
            for i in 0..<frames {
                let n = k * frames + i
                capture[i] = n < input.count ? input[n] : 0
            }
            try capture.withUnsafeBufferPointer { (pcm) throws(ParleyError) in
                try send.process(pcm) { packet in
                    let p = Packet(payloadType: packet.payloadType, sequenceNumber: sequence, timestamp: packet.timestamp,
                                   marker: packet.marker, payload: Array(packet.payload))
                    sequence &+= 1
                    packetsSent += 1
                    bytesSent += packet.payload.count
                    _ = network.submit(p, length: p.payload.count + 12, at: now)
                }
            }
            // Deliver what has arrived before the device's next pull, at its exact arrival time.
            let pull = now + options.devicePhaseMicroseconds
            while let delivery = network.dequeueDue(at: pull) {
                let p = delivery.payload
                p.payload.withUnsafeBytes { bytes in
                    _ = receive.receive(payloadType: p.payloadType, sequenceNumber: p.sequenceNumber, timestamp: p.timestamp,
                                        ssrc: ssrc, marker: p.marker, payload: bytes, at: delivery.time)
                }
            }
            output.withUnsafeMutableBufferPointer { out in
                receive.read(into: UnsafeMutableBufferPointer(rebasing: out[(k * frames)..<((k + 1) * frames)]), at: pull)
            }
            // RTCP receiver report: loss of the last interval drives the sender's FEC.
            if now - lastReport.time >= options.reportIntervalMicroseconds {
                let s = receive.statistics
                let lost = s.packetsLost - lastReport.lost, received = s.packetsReceived - lastReport.received
                let expected = lost + received
                let fraction = expected > 0 && lost > 0 ? UInt8(min(255, lost * 256 / expected)) : 0
                send.reportRemoteLoss(fractionLost: fraction)
                lastReport = (s.packetsLost, s.packetsReceived, now)
            }
        }
        return Result(output: output, receive: receive.statistics, network: network.statistics,
                      jitterBufferDelaysMs: delays, packetsSent: packetsSent, payloadBytesSent: bytesSent)
    }
}
