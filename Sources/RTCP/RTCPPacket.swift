import WireKit

/// One RTCP packet of any type, decoded when this package knows its type and format.
///
/// `parseCompound` splits a compound packet (RFC 3550 §6.1) on each header's length and
/// dispatches on PT and FMT, as pion's `rtcp.Unmarshal` does; anything else is kept raw.
public enum RTCPPacket: Sendable, Hashable {
    /// PT 200.
    case senderReport(SenderReport)
    /// PT 201.
    case receiverReport(ReceiverReport)
    /// PT 202.
    case sourceDescription(SourceDescription)
    /// PT 203.
    case goodbye(Goodbye)
    /// PT 204.
    case applicationDefined(ApplicationDefined)
    /// PT 205 FMT 1.
    case nack(TransportLayerNACK)
    /// PT 205 FMT 15.
    case transportCC(TransportLayerCC)
    /// PT 206 FMT 1.
    case pictureLossIndication(PictureLossIndication)
    /// PT 206 FMT 4.
    case fullIntraRequest(FullIntraRequest)
    /// PT 206 FMT 15 with the "REMB" identifier.
    case remb(ReceiverEstimatedMaximumBitrate)
    /// Anything else, byte for byte.
    case unknown(RTCPRawPacket)

    /// RFC 5761 §4: with RTP and RTCP multiplexed on one port, a packet whose second byte (RTCP's
    /// PT, RTP's M bit and payload type) is 192–223 is RTCP. The first byte must carry version 2.
    public static func isRTCP(firstByte: UInt8, secondByte: UInt8) -> Bool {
        firstByte >> 6 == 2 && (192...223).contains(secondByte)
    }

    /// `isRTCP(firstByte:secondByte:)` on the start of a datagram; false if it is shorter than 4 bytes.
    public static func isRTCP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 4 && isRTCP(firstByte: bytes[0], secondByte: bytes[1])
    }

    /// Parses exactly one packet (header, length and type checked) occupying all of `packet`.
    public init(parsing packet: UnsafeRawBufferPointer) throws(RTCPError) {
        let header = try RTCPHeader(parsing: packet)
        switch (header.packetType, header.count) {
        case (.senderReport, _): self = .senderReport(try SenderReport(parsing: packet))
        case (.receiverReport, _): self = .receiverReport(try ReceiverReport(parsing: packet))
        case (.sourceDescription, _): self = .sourceDescription(try SourceDescription(parsing: packet))
        case (.goodbye, _): self = .goodbye(try Goodbye(parsing: packet))
        case (.applicationDefined, _): self = .applicationDefined(try ApplicationDefined(parsing: packet))
        case (.transportFeedback, TransportLayerNACK.format): self = .nack(try TransportLayerNACK(parsing: packet))
        case (.transportFeedback, TransportLayerCC.format): self = .transportCC(try TransportLayerCC(parsing: packet))
        case (.payloadFeedback, PictureLossIndication.format):
            self = .pictureLossIndication(try PictureLossIndication(parsing: packet))
        case (.payloadFeedback, FullIntraRequest.format): self = .fullIntraRequest(try FullIntraRequest(parsing: packet))
        case (.payloadFeedback, ReceiverEstimatedMaximumBitrate.format) where ReceiverEstimatedMaximumBitrate.isREMB(packet):
            self = .remb(try ReceiverEstimatedMaximumBitrate(parsing: packet))
        default: self = .unknown(try RTCPRawPacket(parsing: packet))
        }
    }

    /// Parses exactly one packet from an array.
    public init(parsing bytes: [UInt8]) throws(RTCPError) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(RTCPError) in try RTCPPacket(parsing: raw) } }
        self = try result.get()
    }

    /// Splits and parses a compound packet; fails on the first malformed packet. An empty
    /// buffer is refused (§6.1: a compound packet holds at least one packet).
    public static func parseCompound(_ bytes: UnsafeRawBufferPointer) throws(RTCPError) -> [RTCPPacket] {
        guard !bytes.isEmpty else { throw .truncated(needed: 4, available: 0) }
        var packets: [RTCPPacket] = []
        var iterator = RTCPCompoundIterator(bytes)
        while let slice = iterator.next() { packets.append(try RTCPPacket(parsing: slice.bytes)) }
        if let error = iterator.error { throw error }
        return packets
    }

    /// Splits and parses a compound packet held in an array.
    public static func parseCompound(_ bytes: [UInt8]) throws(RTCPError) -> [RTCPPacket] {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(RTCPError) in try parseCompound(raw) } }
        return try result.get()
    }

    /// The decoded message, as the shared protocol.
    public var message: any RTCPMessage {
        switch self {
        case .senderReport(let m): m
        case .receiverReport(let m): m
        case .sourceDescription(let m): m
        case .goodbye(let m): m
        case .applicationDefined(let m): m
        case .nack(let m): m
        case .transportCC(let m): m
        case .pictureLossIndication(let m): m
        case .fullIntraRequest(let m): m
        case .remb(let m): m
        case .unknown(let m): m
        }
    }

    public var serializedSize: Int { message.serializedSize }

    public func serialize(into writer: inout ByteWriter) { message.serialize(into: &writer) }

    /// The serialized packet.
    public var serialized: [UInt8] { message.serialized }

    /// Total size of `packets` written back to back.
    public static func serializedSize(of packets: [RTCPPacket]) -> Int {
        packets.reduce(0) { $0 + $1.serializedSize }
    }

    /// Writes `packets` back to back as one compound packet.
    public static func serialize(_ packets: [RTCPPacket], into writer: inout ByteWriter) {
        for packet in packets { packet.serialize(into: &writer) }
    }

    /// The serialized compound packet.
    public static func serialized(_ packets: [RTCPPacket]) -> [UInt8] {
        var writer = ByteWriter(capacity: serializedSize(of: packets))
        serialize(packets, into: &writer)
        return writer.take()
    }
}
