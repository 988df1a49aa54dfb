extension HTTP2Frame {
    /// Appends the frame: header and payload (RFC 9113 §4.1). Padding is written as zeros. The
    /// payload must fit the peer's SETTINGS_MAX_FRAME_SIZE; `headerFrames` splits field blocks.
    public func serialize(into out: inout [UInt8]) {
        var flags: UInt8 = 0
        let start = out.count
        HTTP2FrameHeader(length: 0, type: type, flags: 0, streamID: streamID).serialize(into: &out)
        switch payload {
        case .data(let bytes, let endStream, let padding):
            if endStream { flags |= HTTP2Flags.endStream }
            Self.padded(padding, flags: &flags, into: &out) { $0.append(contentsOf: bytes) }
        case .headers(let h):
            if h.endStream { flags |= HTTP2Flags.endStream }
            if h.endHeaders { flags |= HTTP2Flags.endHeaders }
            if h.priority != nil { flags |= HTTP2Flags.priority }
            Self.padded(h.padding, flags: &flags, into: &out) { out in
                if let priority = h.priority { Self.append(priority, into: &out) }
                out.append(contentsOf: h.headerBlock)
            }
        case .priority(let priority):
            Self.append(priority, into: &out)
        case .rstStream(let code):
            Self.append(code.rawValue, into: &out)
        case .settings(let settings):
            for setting in settings {
                out.append(UInt8(truncatingIfNeeded: setting.id.rawValue >> 8))
                out.append(UInt8(truncatingIfNeeded: setting.id.rawValue))
                Self.append(setting.value, into: &out)
            }
        case .settingsAck:
            flags |= HTTP2Flags.ack
        case .pushPromise(let p):
            if p.endHeaders { flags |= HTTP2Flags.endHeaders }
            Self.padded(p.padding, flags: &flags, into: &out) { out in
                Self.append(p.promisedStreamID & 0x7FFF_FFFF, into: &out)
                out.append(contentsOf: p.headerBlock)
            }
        case .ping(let opaque, let ack):
            if ack { flags |= HTTP2Flags.ack }
            Self.append(UInt32(truncatingIfNeeded: opaque >> 32), into: &out)
            Self.append(UInt32(truncatingIfNeeded: opaque), into: &out)
        case .goAway(let lastStreamID, let errorCode, let debugData):
            Self.append(lastStreamID & 0x7FFF_FFFF, into: &out)
            Self.append(errorCode.rawValue, into: &out)
            out.append(contentsOf: debugData)
        case .windowUpdate(let increment):
            Self.append(increment & 0x7FFF_FFFF, into: &out)
        case .continuation(let block, let endHeaders):
            if endHeaders { flags |= HTTP2Flags.endHeaders }
            out.append(contentsOf: block)
        case .unknown(_, let unknownFlags, let bytes):
            flags = unknownFlags
            out.append(contentsOf: bytes)
        }
        let length = out.count - start - HTTP2FrameHeader.size
        out[start] = UInt8(truncatingIfNeeded: length >> 16)
        out[start + 1] = UInt8(truncatingIfNeeded: length >> 8)
        out[start + 2] = UInt8(truncatingIfNeeded: length)
        out[start + 4] = flags
    }

    /// The serialized frame.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        serialize(into: &out)
        return out
    }

    /// A field block as one HEADERS frame followed by as many CONTINUATION frames as needed so that
    /// no payload exceeds `maxFrameSize` (RFC 9113 §6.2, §6.10).
    public static func headerFrames(streamID: UInt32, headerBlock: [UInt8], endStream: Bool,
                                    maxFrameSize: Int) -> [HTTP2Frame] {
        let size = max(1, maxFrameSize)
        var chunks: [[UInt8]] = []
        var offset = 0
        repeat {
            let end = min(headerBlock.count, offset + size)
            chunks.append(Array(headerBlock[offset..<end]))
            offset = end
        } while offset < headerBlock.count
        return chunks.enumerated().map { index, chunk in
            let last = index == chunks.count - 1
            if index == 0 {
                return HTTP2Frame(streamID: streamID, payload: .headers(HTTP2HeadersPayload(
                    headerBlock: chunk, endStream: endStream, endHeaders: last)))
            }
            return HTTP2Frame(streamID: streamID, payload: .continuation(headerBlock: chunk, endHeaders: last))
        }
    }

    private static func padded(_ padding: Int?, flags: inout UInt8, into out: inout [UInt8],
                               _ body: (inout [UInt8]) -> Void) {
        guard let padding else { return body(&out) }
        let count = min(max(padding, 0), 255)
        flags |= HTTP2Flags.padded
        out.append(UInt8(count))
        body(&out)
        out.append(contentsOf: repeatElement(0, count: count))
    }

    private static func append(_ priority: HTTP2Priority, into out: inout [UInt8]) {
        append((priority.exclusive ? 0x8000_0000 : 0) | priority.dependency & 0x7FFF_FFFF, into: &out)
        out.append(priority.weight)
    }

    private static func append(_ value: UInt32, into out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: value >> 24))
        out.append(UInt8(truncatingIfNeeded: value >> 16))
        out.append(UInt8(truncatingIfNeeded: value >> 8))
        out.append(UInt8(truncatingIfNeeded: value))
    }
}
