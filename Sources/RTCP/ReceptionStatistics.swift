/// Per-source receive statistics for RTCP reception report blocks (RFC 3550 Appendix A.1 for the
/// extended sequence number, A.3 for loss, A.8 for interarrival jitter). A value type updated once
/// per received RTP packet; no allocation. Shared by the WebRTC sessions (reports) and the audio
/// receive stream (its statistics).
public struct ReceptionStatistics: Sendable {
    public private(set) var ssrc: UInt32 = 0
    public private(set) var packetsReceived: UInt64 = 0
    public private(set) var octetsReceived: UInt64 = 0
    /// Interarrival jitter in RTP timestamp units (A.8's `J`), as carried in reports.
    public var jitter: UInt32 { UInt32(clamping: Int(jitterEstimate.rounded())) }

    private var started = false
    private var baseSequence: UInt32 = 0
    private var maxSequence: UInt16 = 0
    private var cycles: UInt32 = 0
    private var jitterEstimate: Double = 0
    private var lastTransit: Int64?
    private var expectedPrior: UInt32 = 0
    private var receivedPrior: UInt64 = 0
    /// The middle 32 bits of the last SR's NTP time and when (our clock, seconds) it arrived.
    private var lastSenderReport: (compact: UInt32, arrival: Double)?

    public init() {}

    /// The extended highest sequence number received (cycles << 16 | max).
    public var extendedHighestSequence: UInt32 { cycles &+ UInt32(maxSequence) }

    /// Packets expected minus received since the first packet (may be negative with duplicates).
    public var cumulativeLost: Int64 {
        guard started else { return 0 }
        let expected = Int64(extendedHighestSequence) - Int64(baseSequence) + 1
        return expected - Int64(packetsReceived)
    }

    /// Packets lost over packets expected since the first packet, 0…1.
    public var lossFraction: Double {
        guard started else { return 0 }
        let expected = Int64(extendedHighestSequence) - Int64(baseSequence) + 1
        return expected > 0 ? min(max(Double(cumulativeLost) / Double(expected), 0), 1) : 0
    }

    /// The interarrival jitter in milliseconds.
    public func jitterMilliseconds(clockRate: Int) -> Double { jitterEstimate * 1_000 / Double(clockRate) }

    /// Records one packet arriving at `arrivalMicroseconds` on any monotonic clock.
    public mutating func record(ssrc: UInt32, sequence: UInt16, timestamp: UInt32, payloadBytes: Int,
                                arrivalMicroseconds: Int64, clockRate: Int) {
        record(ssrc: ssrc, sequence: sequence, timestamp: timestamp, payloadBytes: payloadBytes,
               arrival: Double(arrivalMicroseconds) / 1_000_000, clockRate: UInt32(clockRate))
    }

    /// Records one packet: `arrival` in seconds on any monotonic clock, `clockRate` in Hz.
    public mutating func record(ssrc: UInt32, sequence: UInt16, timestamp: UInt32, payloadBytes: Int,
                                arrival: Double, clockRate: UInt32) {
        if !started || ssrc != self.ssrc {
            self = ReceptionStatistics()
            started = true
            self.ssrc = ssrc
            baseSequence = UInt32(sequence)
            maxSequence = sequence
        } else {
            let delta = sequence &- maxSequence
            if delta != 0, delta < 0x8000 {  // in order, possibly with a gap (A.1, without probation)
                if sequence < maxSequence { cycles &+= 0x1_0000 }
                maxSequence = sequence
            }
        }
        packetsReceived += 1
        octetsReceived += UInt64(payloadBytes)
        // A.8: transit time in timestamp units; J += (|D| - J) / 16.
        let arrivalUnits = Int64(arrival * Double(clockRate))
        let transit = arrivalUnits - Int64(timestamp)
        if let lastTransit {
            // A wrap of the 32-bit timestamp shows as a jump of about 2^32: fold it back.
            var d = Int64(Int32(truncatingIfNeeded: transit - lastTransit))
            if d < 0 { d = -d }
            // Ignore wrap-sized jumps (timestamp discontinuity) rather than poison the estimate.
            if d < Int64(clockRate) * 10 { jitterEstimate += (Double(d) - jitterEstimate) / 16 }
        }
        lastTransit = transit
    }

    /// Records an incoming sender report (for LSR/DLSR).
    public mutating func recordSenderReport(ntpTimestamp: UInt64, arrival: Double) {
        lastSenderReport = (NTPTime.compact(ntpTimestamp), arrival)
    }

    /// A reception report block for now (A.3 interval loss), and starts the next interval.
    public mutating func makeReport(now: Double) -> ReceptionReport? {
        guard started else { return nil }
        let expected = extendedHighestSequence &- baseSequence &+ 1
        let expectedInterval = Int64(expected) - Int64(expectedPrior)
        let receivedInterval = Int64(packetsReceived) - Int64(receivedPrior)
        expectedPrior = expected
        receivedPrior = packetsReceived
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 = expectedInterval <= 0 || lostInterval <= 0
            ? 0 : UInt8(clamping: (lostInterval << 8) / expectedInterval)
        let totalLost = Int32(clamping: max(min(cumulativeLost, 0x7F_FFFF), -0x80_0000))
        var lsr: UInt32 = 0, dlsr: UInt32 = 0
        if let last = lastSenderReport {
            lsr = last.compact
            dlsr = UInt32(clamping: Int64(max(0, now - last.arrival) * 65_536))  // 1/65536 s units
        }
        return ReceptionReport(ssrc: ssrc, fractionLost: fraction, totalLost: totalLost,
                               extendedHighestSequenceNumber: extendedHighestSequence, jitter: jitter,
                               lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }
}
