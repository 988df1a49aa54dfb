import WireKit

/// One report block of an SR or RR (RFC 3550 §6.4.1): reception statistics for one source.
public struct ReceptionReport: Sendable, Hashable {
    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction of packets lost since the last report, as a fixed-point number over 256.
    public var fractionLost: UInt8
    /// Cumulative packets lost: a 24-bit signed value (duplicates can make it negative), clamped
    /// to −8 388 608…8 388 607 when written.
    public var totalLost: Int32
    /// Extended highest sequence number received: cycles in the high 16 bits.
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in timestamp units (§6.4.1, §A.8).
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR from this source (0 if none yet).
    public var lastSenderReport: UInt32
    /// Delay since that SR was received, in units of 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8 = 0, totalLost: Int32 = 0, extendedHighestSequenceNumber: UInt32 = 0,
                jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.totalLost = totalLost
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Size on the wire.
    public static let size = 24

    init(reading r: inout RTCPReader) throws(RTCPError) {
        ssrc = try r.u32()
        fractionLost = try r.u8()
        let lost = try r.u24()
        // Sign-extend the 24-bit two's-complement value.
        totalLost = Int32(bitPattern: lost << 8) >> 8
        extendedHighestSequenceNumber = try r.u32()
        jitter = try r.u32()
        lastSenderReport = try r.u32()
        delaySinceLastSenderReport = try r.u32()
    }

    func write(into w: inout ByteWriter) {
        w.writeUInt32(ssrc)
        w.writeUInt8(fractionLost)
        let clamped = min(max(totalLost, -0x80_0000), 0x7F_FFFF)
        w.writeUInt24(UInt32(bitPattern: clamped) & 0xFF_FFFF)
        w.writeUInt32(extendedHighestSequenceNumber)
        w.writeUInt32(jitter)
        w.writeUInt32(lastSenderReport)
        w.writeUInt32(delaySinceLastSenderReport)
    }

    /// Round-trip time from this block (RFC 3550 §6.4.1), given when it arrived as a compact NTP
    /// time; see `RoundTripTime.compute`.
    public func roundTripTime(arrivedAt arrival: UInt32) -> UInt32? {
        RoundTripTime.compute(arrival: arrival, lastSenderReport: lastSenderReport,
                              delaySinceLastSenderReport: delaySinceLastSenderReport)
    }

    /// Reads `count` blocks, checking they fit before reading any.
    static func readBlocks(_ count: UInt8, from r: inout RTCPReader) throws(RTCPError) -> [ReceptionReport] {
        let needed = Int(count) * size
        guard needed <= r.remaining else { throw .countMismatch(count: Int(count), available: r.remaining) }
        var reports: [ReceptionReport] = []
        reports.reserveCapacity(Int(count))
        for _ in 0..<count { reports.append(try ReceptionReport(reading: &r)) }
        return reports
    }
}
