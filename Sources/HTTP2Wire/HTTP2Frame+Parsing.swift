extension HTTP2Frame {
    /// Parses one frame's payload given its header (RFC 9113 §6), checking each type's length,
    /// stream and padding rules. Throws the error the RFC assigns, with its scope (§5.4); never traps.
    /// `payload.count` must equal `header.length` (the decoder ensures it).
    public init(header: HTTP2FrameHeader, payload: ArraySlice<UInt8>) throws(HTTP2Error) {
        let id = header.streamID
        let p = payload
        guard p.count == header.length else {
            throw .connection(.frameSizeError, "payload of \(p.count) octets for a length of \(header.length)")
        }
        func requireStream(_ what: String) throws(HTTP2Error) {
            guard id != 0 else { throw .connection(.protocolError, "\(what) on stream 0") }
        }
        func requireConnection(_ what: String) throws(HTTP2Error) {
            guard id == 0 else { throw .connection(.protocolError, "\(what) on stream \(id)") }
        }
        switch header.type {
        case .data:
            try requireStream("DATA")
            let (body, padding) = try Self.unpad(p, padded: header.has(HTTP2Flags.padded), what: "DATA")
            self.init(streamID: id, payload: .data(Array(body), endStream: header.has(HTTP2Flags.endStream), padding: padding))
        case .headers:
            try requireStream("HEADERS")
            var (body, padding) = try Self.unpad(p, padded: header.has(HTTP2Flags.padded), what: "HEADERS")
            var priority: HTTP2Priority?
            if header.has(HTTP2Flags.priority) {
                guard body.count >= 5 else { throw .connection(.frameSizeError, "HEADERS too short for priority fields") }
                priority = Self.priority(body.prefix(5))
                body = body.dropFirst(5)
            }
            self.init(streamID: id, payload: .headers(HTTP2HeadersPayload(
                headerBlock: Array(body), endStream: header.has(HTTP2Flags.endStream),
                endHeaders: header.has(HTTP2Flags.endHeaders), priority: priority, padding: padding)))
        case .priority:
            try requireStream("PRIORITY")
            guard p.count == 5 else { throw .stream(id, .frameSizeError, "PRIORITY of \(p.count) octets") }
            let priority = Self.priority(p)
            guard priority.dependency != id else { throw .stream(id, .protocolError, "stream depends on itself") }
            self.init(streamID: id, payload: .priority(priority))
        case .rstStream:
            try requireStream("RST_STREAM")
            guard p.count == 4 else { throw .connection(.frameSizeError, "RST_STREAM of \(p.count) octets") }
            self.init(streamID: id, payload: .rstStream(HTTP2ErrorCode(rawValue: Self.uint32(p, at: 0))))
        case .settings:
            try requireConnection("SETTINGS")
            if header.has(HTTP2Flags.ack) {
                guard p.isEmpty else { throw .connection(.frameSizeError, "SETTINGS ack with a payload") }
                self.init(streamID: 0, payload: .settingsAck)
                return
            }
            guard p.count % 6 == 0 else { throw .connection(.frameSizeError, "SETTINGS of \(p.count) octets") }
            var settings: [HTTP2Setting] = []
            settings.reserveCapacity(p.count / 6)
            var i = p.startIndex
            while i < p.endIndex {
                let ident = UInt16(p[i]) << 8 | UInt16(p[i + 1])
                settings.append(HTTP2Setting(HTTP2SettingID(rawValue: ident), Self.uint32(p, at: i + 2 - p.startIndex)))
                i += 6
            }
            self.init(streamID: 0, payload: .settings(settings))
        case .pushPromise:
            try requireStream("PUSH_PROMISE")
            let (body, padding) = try Self.unpad(p, padded: header.has(HTTP2Flags.padded), what: "PUSH_PROMISE")
            guard body.count >= 4 else { throw .connection(.frameSizeError, "PUSH_PROMISE too short") }
            let promised = Self.uint32(body, at: 0) & 0x7FFF_FFFF
            self.init(streamID: id, payload: .pushPromise(HTTP2PushPromisePayload(
                promisedStreamID: promised, headerBlock: Array(body.dropFirst(4)),
                endHeaders: header.has(HTTP2Flags.endHeaders), padding: padding)))
        case .ping:
            try requireConnection("PING")
            guard p.count == 8 else { throw .connection(.frameSizeError, "PING of \(p.count) octets") }
            let opaque = UInt64(Self.uint32(p, at: 0)) << 32 | UInt64(Self.uint32(p, at: 4))
            self.init(streamID: 0, payload: .ping(opaque, ack: header.has(HTTP2Flags.ack)))
        case .goAway:
            try requireConnection("GOAWAY")
            guard p.count >= 8 else { throw .connection(.frameSizeError, "GOAWAY of \(p.count) octets") }
            self.init(streamID: 0, payload: .goAway(lastStreamID: Self.uint32(p, at: 0) & 0x7FFF_FFFF,
                                                    errorCode: HTTP2ErrorCode(rawValue: Self.uint32(p, at: 4)),
                                                    debugData: Array(p.dropFirst(8))))
        case .windowUpdate:
            guard p.count == 4 else { throw .connection(.frameSizeError, "WINDOW_UPDATE of \(p.count) octets") }
            let increment = Self.uint32(p, at: 0) & 0x7FFF_FFFF
            guard increment != 0 else {
                // §6.9: a stream error on a stream, a connection error on stream 0.
                throw id == 0 ? .connection(.protocolError, "WINDOW_UPDATE of 0") : .stream(id, .protocolError, "WINDOW_UPDATE of 0")
            }
            self.init(streamID: id, payload: .windowUpdate(increment: increment))
        case .continuation:
            try requireStream("CONTINUATION")
            self.init(streamID: id, payload: .continuation(headerBlock: Array(p), endHeaders: header.has(HTTP2Flags.endHeaders)))
        default:
            self.init(streamID: id, payload: .unknown(type: header.type.rawValue, flags: header.flags, payload: Array(p)))
        }
    }

    /// Strips the Pad Length octet and padding (§6.1): padding that fills the payload or more is a
    /// connection error of type PROTOCOL_ERROR.
    private static func unpad(_ p: ArraySlice<UInt8>, padded: Bool,
                              what: String) throws(HTTP2Error) -> (ArraySlice<UInt8>, Int?) {
        guard padded else { return (p, nil) }
        guard let first = p.first else { throw .connection(.frameSizeError, "padded \(what) without a Pad Length") }
        let padding = Int(first)
        guard padding < p.count else { throw .connection(.protocolError, "\(what) padding of \(padding) exceeds the payload") }
        return (p.dropFirst().dropLast(padding), padding)
    }

    private static func priority(_ p: ArraySlice<UInt8>) -> HTTP2Priority {
        let word = uint32(p, at: 0)
        return HTTP2Priority(exclusive: word & 0x8000_0000 != 0, dependency: word & 0x7FFF_FFFF,
                             weight: p[p.startIndex + 4])
    }

    /// Reads a big-endian 32-bit value at `offset` from the slice's start; callers checked the length.
    static func uint32(_ p: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
        let s = p.startIndex + offset
        return UInt32(p[s]) << 24 | UInt32(p[s + 1]) << 16 | UInt32(p[s + 2]) << 8 | UInt32(p[s + 3])
    }
}
