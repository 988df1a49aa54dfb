/// Frame types (RFC 9113 §6; IANA "HTTP/2 Frame Type" registry). Unknown types are kept as values.
public struct HTTP2FrameType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let data = HTTP2FrameType(rawValue: 0x0)
    public static let headers = HTTP2FrameType(rawValue: 0x1)
    public static let priority = HTTP2FrameType(rawValue: 0x2)
    public static let rstStream = HTTP2FrameType(rawValue: 0x3)
    public static let settings = HTTP2FrameType(rawValue: 0x4)
    public static let pushPromise = HTTP2FrameType(rawValue: 0x5)
    public static let ping = HTTP2FrameType(rawValue: 0x6)
    public static let goAway = HTTP2FrameType(rawValue: 0x7)
    public static let windowUpdate = HTTP2FrameType(rawValue: 0x8)
    public static let continuation = HTTP2FrameType(rawValue: 0x9)
}

/// Frame flags (RFC 9113 §6). Each flag means something only for some frame types.
public enum HTTP2Flags {
    /// DATA, HEADERS: the last frame of the stream from this side (§6.1, §6.2).
    public static let endStream: UInt8 = 0x1
    /// SETTINGS, PING: an acknowledgement (§6.5, §6.7).
    public static let ack: UInt8 = 0x1
    /// HEADERS, PUSH_PROMISE, CONTINUATION: the header block is complete (§6.2).
    public static let endHeaders: UInt8 = 0x4
    /// DATA, HEADERS, PUSH_PROMISE: a Pad Length octet and padding are present (§6.1).
    public static let padded: UInt8 = 0x8
    /// HEADERS: the deprecated priority fields are present (§6.2).
    public static let priority: UInt8 = 0x20
}

/// The 9-octet frame header (RFC 9113 §4.1).
public struct HTTP2FrameHeader: Sendable, Equatable {
    public static let size = 9
    /// The largest length the 24-bit field can carry (§4.2: SETTINGS_MAX_FRAME_SIZE's ceiling).
    public static let maxLength = (1 << 24) - 1

    /// Payload length in octets (24 bits).
    public var length: Int
    public var type: HTTP2FrameType
    public var flags: UInt8
    /// The stream identifier; the reserved bit is dropped on parsing and sent as zero (§4.1).
    public var streamID: UInt32

    public init(length: Int, type: HTTP2FrameType, flags: UInt8, streamID: UInt32) {
        self.length = length
        self.type = type
        self.flags = flags
        self.streamID = streamID
    }

    /// Parses the first nine octets of `bytes`; nil when fewer are present.
    public init?(parsing bytes: some Collection<UInt8>) {
        guard bytes.count >= Self.size else { return nil }
        var i = bytes.startIndex
        func next() -> UInt8 {
            defer { i = bytes.index(after: i) }
            return bytes[i]
        }
        length = Int(next()) << 16 | Int(next()) << 8 | Int(next())
        type = HTTP2FrameType(rawValue: next())
        flags = next()
        var id: UInt32 = 0
        for _ in 0..<4 { id = id << 8 | UInt32(next()) }
        streamID = id & 0x7FFF_FFFF
    }

    public func has(_ flag: UInt8) -> Bool { flags & flag != 0 }

    /// Appends the nine octets. `length` must be at most `maxLength` (the frame serializer ensures it).
    public func serialize(into out: inout [UInt8]) {
        let length = UInt32(clamping: min(max(self.length, 0), Self.maxLength))
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
        out.append(type.rawValue)
        out.append(flags)
        let id = streamID & 0x7FFF_FFFF
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: id >> UInt32(shift))) }
    }
}

/// The client connection preface (RFC 9113 §3.4): this string, then a SETTINGS frame.
public enum HTTP2ConnectionPreface {
    public static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
}
