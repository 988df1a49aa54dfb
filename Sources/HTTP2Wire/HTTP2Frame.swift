/// The deprecated priority fields of HEADERS and PRIORITY (RFC 9113 §5.3.2, §6.3). Parsed so that
/// frames round-trip; a client following RFC 9113 ignores them.
public struct HTTP2Priority: Sendable, Equatable {
    public var exclusive: Bool
    public var dependency: UInt32
    /// The weight field as sent (the weight minus one).
    public var weight: UInt8

    public init(exclusive: Bool = false, dependency: UInt32 = 0, weight: UInt8 = 15) {
        self.exclusive = exclusive
        self.dependency = dependency & 0x7FFF_FFFF
        self.weight = weight
    }
}

/// A HEADERS frame's fields (RFC 9113 §6.2). After `HTTP2FrameDecoder` joins CONTINUATION frames,
/// `headerBlock` is the whole field block and `endHeaders` is true.
public struct HTTP2HeadersPayload: Sendable, Equatable {
    /// The (fragment of the) HPACK-encoded field block.
    public var headerBlock: [UInt8]
    public var endStream: Bool
    public var endHeaders: Bool
    public var priority: HTTP2Priority?
    /// Padding octets (nil: not padded). Serialized as zeros.
    public var padding: Int?

    public init(headerBlock: [UInt8], endStream: Bool = false, endHeaders: Bool = true,
                priority: HTTP2Priority? = nil, padding: Int? = nil) {
        self.headerBlock = headerBlock
        self.endStream = endStream
        self.endHeaders = endHeaders
        self.priority = priority
        self.padding = padding
    }
}

/// A PUSH_PROMISE frame's fields (RFC 9113 §6.6). Clients that disable push treat one as an error.
public struct HTTP2PushPromisePayload: Sendable, Equatable {
    public var promisedStreamID: UInt32
    public var headerBlock: [UInt8]
    public var endHeaders: Bool
    public var padding: Int?

    public init(promisedStreamID: UInt32, headerBlock: [UInt8], endHeaders: Bool = true, padding: Int? = nil) {
        self.promisedStreamID = promisedStreamID & 0x7FFF_FFFF
        self.headerBlock = headerBlock
        self.endHeaders = endHeaders
        self.padding = padding
    }
}

/// One HTTP/2 frame (RFC 9113 §4, §6): the stream it belongs to and its typed payload.
public struct HTTP2Frame: Sendable, Equatable {
    public enum Payload: Sendable, Equatable {
        /// §6.1. `padding` is the number of padding octets (nil: not padded).
        case data([UInt8], endStream: Bool, padding: Int?)
        /// §6.2.
        case headers(HTTP2HeadersPayload)
        /// §6.3.
        case priority(HTTP2Priority)
        /// §6.4.
        case rstStream(HTTP2ErrorCode)
        /// §6.5: parameters in the order sent.
        case settings([HTTP2Setting])
        /// §6.5: acknowledges the peer's SETTINGS.
        case settingsAck
        /// §6.6.
        case pushPromise(HTTP2PushPromisePayload)
        /// §6.7: eight opaque octets, as a big-endian integer.
        case ping(UInt64, ack: Bool)
        /// §6.8.
        case goAway(lastStreamID: UInt32, errorCode: HTTP2ErrorCode, debugData: [UInt8])
        /// §6.9: a window size increment of 1 to 2^31-1.
        case windowUpdate(increment: UInt32)
        /// §6.10.
        case continuation(headerBlock: [UInt8], endHeaders: Bool)
        /// A type this implementation does not know (§4.1: ignored and discarded by receivers).
        case unknown(type: UInt8, flags: UInt8, payload: [UInt8])
    }

    public var streamID: UInt32
    public var payload: Payload

    public init(streamID: UInt32, payload: Payload) {
        self.streamID = streamID & 0x7FFF_FFFF
        self.payload = payload
    }

    /// The frame's type code.
    public var type: HTTP2FrameType {
        switch payload {
        case .data: .data
        case .headers: .headers
        case .priority: .priority
        case .rstStream: .rstStream
        case .settings, .settingsAck: .settings
        case .pushPromise: .pushPromise
        case .ping: .ping
        case .goAway: .goAway
        case .windowUpdate: .windowUpdate
        case .continuation: .continuation
        case .unknown(let type, _, _): HTTP2FrameType(rawValue: type)
        }
    }

    /// The octets of a DATA frame that count against flow control (§6.9.1: the whole payload,
    /// padding and the Pad Length field included); zero for other frames.
    public var flowControlledLength: Int {
        guard case .data(let bytes, _, let padding) = payload else { return 0 }
        return bytes.count + (padding.map { $0 + 1 } ?? 0)
    }
}
