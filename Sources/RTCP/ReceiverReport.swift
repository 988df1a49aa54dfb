import WireKit

/// Receiver report, PT 201 (RFC 3550 §6.4.2): the reporter's SSRC, up to 31 report blocks and
/// optional profile-specific extensions.
public struct ReceiverReport: RTCPMessage {
    public var ssrc: UInt32
    /// Report blocks; at most 31 are written (RC is 5 bits).
    public var reports: [ReceptionReport]
    /// Profile-specific extensions after the blocks, kept raw; if not a
    /// multiple of 4 they are followed by RTCP padding (P bit set).
    public var profileExtensions: [UInt8]

    public init(ssrc: UInt32, reports: [ReceptionReport] = [], profileExtensions: [UInt8] = []) {
        self.ssrc = ssrc
        self.reports = reports
        self.profileExtensions = profileExtensions
    }

    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let (header, body) = try RTCPHeader.open(packet, type: .receiverReport)
        var r = body
        ssrc = try r.u32()
        reports = try ReceptionReport.readBlocks(header.count, from: &r)
        profileExtensions = r.rest()
    }

    public var serializedSize: Int {
        4 + 4 + ReceptionReport.size * min(reports.count, 31) + align4(profileExtensions.count)
    }

    public func serialize(into w: inout ByteWriter) {
        let blocks = reports.prefix(31)
        RTCPHeader.write(count: UInt8(blocks.count), type: .receiverReport, size: serializedSize,
                         padding: RTCPPadding.count(for: profileExtensions.count) > 0, into: &w)
        w.writeUInt32(ssrc)
        for block in blocks { block.write(into: &w) }
        w.writeBytes(profileExtensions)
        RTCPPadding.write(RTCPPadding.count(for: profileExtensions.count), into: &w)
    }
}
