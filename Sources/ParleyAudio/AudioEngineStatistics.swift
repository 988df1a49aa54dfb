/// The figures of an `AudioEngine` at one moment (WebRTC outbound-rtp / inbound-rtp style):
/// what `Call.getStats()` reports.
public struct AudioEngineStatistics: Sendable, Equatable {
    /// The stream this side sends.
    public struct Local: Sendable, Equatable {
        public var ssrc: UInt32 = 0
        /// RTP packets handed to the transport (audio and telephone events) and their payload bytes.
        public var packetsSent = 0
        public var bytesSent = 0
        public var telephoneEventPacketsSent = 0
        /// Microphone level of the last 100 ms: peak, linear 0…1 (WebRTC audioLevel); 0 while muted.
        public var inputLevel: Double = 0
        public var isMuted = false
        public var isOnHold = false
        /// Whether Opus in-band FEC is on (it follows the far end's loss reports).
        public var isFECEnabled = false
        /// What the far end's receiver reports in RTCP (RFC 3550 §6.4.1); nil before the first report.
        public var remoteFractionLost: Double?
        public var remotePacketsLost: Int64?
        public var remoteJitterMs: Double?
        /// Capture buffers the encoder failed on.
        public var encodeErrors = 0

        public init() {}
    }

    /// The stream this side receives.
    public struct Remote: Sendable, Equatable {
        /// The SSRC received, nil before the first audio packet.
        public var ssrc: UInt32?
        /// RTP packets received (audio, RED and telephone events) and their payload bytes.
        public var packetsReceived = 0
        public var bytesReceived = 0
        public var telephoneEventPacketsReceived = 0
        /// Keys reported from telephone events.
        public var digitsReceived = 0
        /// Packets with a payload type this engine does not take.
        public var packetsIgnored = 0
        /// Cumulative packets lost (RFC 3550 §6.4.1), telephone events counted as received.
        public var packetsLost = 0
        /// packetsLost / expected, 0…1, since the current SSRC began.
        public var lossFraction: Double = 0
        /// Interarrival jitter (RFC 3550 §A.8) in milliseconds.
        public var jitterMs: Double = 0
        /// Playout level of the last 100 ms: peak, linear 0…1; 0 on hold.
        public var outputLevel: Double = 0
        /// Jitter-buffer delays (current, target, p50, p95), concealment, FEC and RED recoveries.
        public var jitterBuffer = JitterBufferStatistics()

        public init() {}
    }

    public var codec: AudioCodecKind
    public var local = Local()
    public var remote = Remote()
    /// Round-trip time from RTCP, nil until the transport reports one.
    public var roundTripTimeMs: Double?
    /// MOS (Twilio's formula, `MOS.calculate`) from the RTT and the received stream's jitter and
    /// cumulative loss; nil while the RTT is unknown or nothing was received.
    public var mos: Double?

    public init(codec: AudioCodecKind) { self.codec = codec }
}
