import CallQuality
import Foundation

/// One second of a preflight test (the seed's `TVORTCStatsSample`): the connection's figures when
/// the sample was taken. Counters are cumulative since media connected; loss is the interval's.
public struct PreflightStatsSample: Sendable, Hashable {
    public var timestamp: Date
    /// The negotiated codec (`opus`, `pcmu`, `pcma`).
    public var codec: String
    /// Interarrival jitter of the echoed stream (RFC 3550 §6.4.1), milliseconds; nil before any arrived.
    public var jitterMs: Double?
    /// Round-trip time from RTCP (RFC 3550 §6.4.1), milliseconds; nil until the first report.
    public var roundTripTimeMs: Double?
    /// Mean opinion score (`MOS.calculate`, Twilio's E-model) of this second; nil while the RTT is unknown.
    public var mos: Double?
    public var packetsSent: Int
    public var packetsReceived: Int
    /// Packets of the echoed stream lost so far (RFC 3550 §A.3).
    public var packetsLost: Int
    /// Loss of the echoed stream over this second, percent (0–100).
    public var packetLossPercent: Double
    public var bytesSent: Int
    public var bytesReceived: Int
    /// Mean microphone level of the second, linear 0…1 (peak of each 100 ms window).
    public var audioInputLevel: Double
    /// Mean playout level of the second, linear 0…1.
    public var audioOutputLevel: Double

    public init(timestamp: Date, codec: String, jitterMs: Double?, roundTripTimeMs: Double?, mos: Double?,
                packetsSent: Int, packetsReceived: Int, packetsLost: Int, packetLossPercent: Double,
                bytesSent: Int, bytesReceived: Int, audioInputLevel: Double, audioOutputLevel: Double) {
        self.timestamp = timestamp
        self.codec = codec
        self.jitterMs = jitterMs
        self.roundTripTimeMs = roundTripTimeMs
        self.mos = mos
        self.packetsSent = packetsSent
        self.packetsReceived = packetsReceived
        self.packetsLost = packetsLost
        self.packetLossPercent = packetLossPercent
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.audioInputLevel = audioInputLevel
        self.audioOutputLevel = audioOutputLevel
    }
}

/// A quality warning raised during a preflight test, and when it cleared (nil if still raised at the end).
public struct PreflightWarningRecord: Sendable, Hashable {
    public var warning: QualityWarning
    public var raisedAt: Date
    public var clearedAt: Date?

    public init(warning: QualityWarning, raisedAt: Date, clearedAt: Date? = nil) {
        self.warning = warning
        self.raisedAt = raisedAt
        self.clearedAt = clearedAt
    }
}
