import WireKit

/// Sender report, PT 200 (RFC 3550 §6.4.1): the sender's NTP/RTP clock pair and counts, then
/// up to 31 reception report blocks and optional profile-specific extensions.
public struct SenderReport: RTCPMessage {
    public var ssrc: UInt32
    /// 64-bit NTP timestamp (32.32 fixed-point seconds since 1900).
    public var ntpTimestamp: UInt64
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    /// Report blocks; at most 31 are written (RC is 5 bits).
    public var reports: [ReceptionReport]
    /// Profile-specific extensions after the blocks, kept raw; if not a
    /// multiple of 4 they are followed by RTCP padding (P bit set).
    public var profileExtensions: [UInt8]

    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                reports: [ReceptionReport] = [], profileExtensions: [UInt8] = []) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(packet, type: .senderReport)
        var r = body
        ssrc = try r.u32()
        ntpTimestamp = try r.u64()
        rtpTimestamp = try r.u32()
        packetCount = try r.u32()
        octetCount = try r.u32()
        reports = try ReceptionReport.readBlocks(header.count, from: &r)
        profileExtensions = r.rest()
    }

    /// The NTP timestamp's middle 32 bits, as echoed in LSR (§6.4.1).
    public var compactNTP: UInt32 { NTPTime.compact(ntpTimestamp) }

    public var serializedSize: Int {
        4 + 24 + ReceptionReport.size * min(reports.count, 31) + align4(profileExtensions.count)
    }

    public func serialize(into w: inout ByteWriter) {
        let blocks = reports.prefix(31)
        RTCPHeader.write(count: UInt8(blocks.count), type: .senderReport, size: serializedSize,
                         padding: RTCPPadding.count(for: profileExtensions.count) > 0, into: &w)
        w.writeUInt32(ssrc)
        w.writeUInt64(ntpTimestamp)
        w.writeUInt32(rtpTimestamp)
        w.writeUInt32(packetCount)
        w.writeUInt32(octetCount)
        for block in blocks { block.write(into: &w) }
        w.writeBytes(profileExtensions)
        RTCPPadding.write(RTCPPadding.count(for: profileExtensions.count), into: &w)
    }
}
