import RTCP

/// One stream this endpoint sends: its SSRC, the sender state its reports carry (RFC 3550
/// §6.4.1), and what the peer last reported about it.
public struct RTPSendStream: Sendable {
    public let ssrc: UInt32
    public let clockRate: UInt32
    /// The m-section the stream belongs to (its index in the SDP).
    public let section: Int
    public private(set) var packetsSent: UInt64 = 0
    public private(set) var payloadOctetsSent: UInt64 = 0
    /// The RTP timestamp of the last packet sent, and when (session clock, seconds); nil before one.
    public private(set) var lastTimestamp: UInt32?
    public private(set) var lastSentAt: Double = 0
    /// The peer's latest report block on this stream (RFC 3550 §6.4.1), if any.
    public private(set) var remoteReport: ReceptionReport?
    /// How many report blocks on this stream arrived: a reader tells a new `remoteReport` by it.
    public private(set) var remoteReportCount = 0
    /// Round-trip time from the latest report block with an LSR (A − LSR − DLSR), and how many
    /// such samples arrived.
    public private(set) var roundTripTime: Duration?
    public private(set) var roundTripTimeSamples = 0

    public init(ssrc: UInt32, clockRate: UInt32, section: Int) {
        self.ssrc = ssrc
        self.clockRate = clockRate
        self.section = section
    }

    /// Sender state after one packet went out.
    mutating func noteSent(timestamp: UInt32, payloadBytes: Int, now: Double) {
        packetsSent &+= 1
        payloadOctetsSent &+= UInt64(max(0, payloadBytes))
        lastTimestamp = timestamp
        lastSentAt = now
    }

    /// A report block about this stream arrived at `arrival` (compact NTP, 1/65536 s).
    mutating func noteRemoteReport(_ block: ReceptionReport, arrival: UInt32) {
        remoteReport = block
        remoteReportCount &+= 1
        if let rtt = RoundTripTime.compute(arrival: arrival, lastSenderReport: block.lastSenderReport,
                                           delaySinceLastSenderReport: block.delaySinceLastSenderReport) {
            roundTripTime = .microseconds(RoundTripTime.microseconds(fromCompact: rtt))
            roundTripTimeSamples += 1
        }
    }

    /// The sender report for `now` (wall clock `ntp`), its RTP timestamp extrapolated from the
    /// last packet on the stream's clock (§6.4.1); nil before the first packet.
    func senderReport(now: Double, ntp: UInt64, reports: [ReceptionReport]) -> SenderReport? {
        guard let lastTimestamp else { return nil }
        let elapsed = min(max(0, now - lastSentAt) * Double(clockRate), Double(UInt32.max))
        return SenderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: lastTimestamp &+ UInt32(elapsed),
                            packetCount: UInt32(truncatingIfNeeded: packetsSent),
                            octetCount: UInt32(truncatingIfNeeded: payloadOctetsSent), reports: reports)
    }
}

/// One stream the peer sends (one remote SSRC): its reception statistics (RFC 3550 A.1, A.3, A.8)
/// and the last sender report from it.
public struct RTPReceiveStream: Sendable {
    public let ssrc: UInt32
    /// The clock rate of its first packet's payload type; jitter is in these units.
    public let clockRate: UInt32
    /// The m-section of its first packet's payload type, if that was negotiated.
    public let section: Int?
    public private(set) var statistics = ReceptionStatistics()
    /// When its last packet arrived (session clock, seconds).
    public private(set) var lastArrival: Double

    init(ssrc: UInt32, clockRate: UInt32, section: Int?, arrival: Double) {
        self.ssrc = ssrc
        self.clockRate = clockRate
        self.section = section
        lastArrival = arrival
    }

    mutating func record(sequence: UInt16, timestamp: UInt32, payloadBytes: Int, arrival: Double) {
        statistics.record(ssrc: ssrc, sequence: sequence, timestamp: timestamp, payloadBytes: payloadBytes,
                          arrival: arrival, clockRate: clockRate)
        lastArrival = arrival
    }

    mutating func recordSenderReport(ntpTimestamp: UInt64, arrival: Double) {
        statistics.recordSenderReport(ntpTimestamp: ntpTimestamp, arrival: arrival)
    }

    mutating func makeReport(now: Double) -> ReceptionReport? { statistics.makeReport(now: now) }
}
