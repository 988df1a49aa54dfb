/// Splits a byte stream into frames (RFC 9113 §4) and joins each HEADERS or PUSH_PROMISE with its
/// CONTINUATION frames (§6.10) into one frame whose `endHeaders` is true.
///
/// Limits: a frame longer than `maxFrameSize` is a FRAME_SIZE_ERROR (§4.2), a field block longer than
/// `maxHeaderBlockSize` is ENHANCE_YOUR_CALM, and anything but a CONTINUATION of the same stream while
/// a block is open is a PROTOCOL_ERROR. A stream error leaves the decoder usable (the frame is
/// consumed); after a connection error the caller must close the connection.
public struct HTTP2FrameDecoder: Sendable {
    /// The SETTINGS_MAX_FRAME_SIZE this endpoint announced.
    public var maxFrameSize: Int
    /// The longest field block (HEADERS plus CONTINUATIONs) accepted.
    public var maxHeaderBlockSize: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var open: HTTP2Frame?

    public init(maxFrameSize: Int = Int(HTTP2Settings.minMaxFrameSize), maxHeaderBlockSize: Int = 256 * 1024) {
        self.maxFrameSize = maxFrameSize
        self.maxHeaderBlockSize = maxHeaderBlockSize
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedCount: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil until more bytes arrive.
    public mutating func next() throws(HTTP2Error) -> HTTP2Frame? {
        while true {
            guard let header = HTTP2FrameHeader(parsing: buffer[start...]) else { return nil }
            guard header.length <= maxFrameSize else {
                throw .connection(.frameSizeError, "frame of \(header.length) octets exceeds \(maxFrameSize)")
            }
            let payloadStart = start + HTTP2FrameHeader.size
            guard buffer.count - payloadStart >= header.length else { return nil }
            start = payloadStart + header.length
            let frame = try HTTP2Frame(header: header, payload: buffer[payloadStart..<start])
            if let assembled = try assemble(frame) { return assembled }
        }
    }

    /// Tracks open field blocks; returns a frame to deliver, or nil while a block is incomplete.
    private mutating func assemble(_ frame: HTTP2Frame) throws(HTTP2Error) -> HTTP2Frame? {
        if var pending = open {
            guard case .continuation(let fragment, let endHeaders) = frame.payload, frame.streamID == pending.streamID else {
                throw .connection(.protocolError, "expected CONTINUATION of stream \(pending.streamID)")
            }
            switch pending.payload {
            case .headers(var h):
                h.headerBlock += fragment
                h.endHeaders = endHeaders
                try checkBlockSize(h.headerBlock.count)
                pending.payload = .headers(h)
            case .pushPromise(var p):
                p.headerBlock += fragment
                p.endHeaders = endHeaders
                try checkBlockSize(p.headerBlock.count)
                pending.payload = .pushPromise(p)
            default:
                break
            }
            if endHeaders {
                open = nil
                return pending
            }
            open = pending
            return nil
        }
        switch frame.payload {
        case .headers(let h) where !h.endHeaders:
            try checkBlockSize(h.headerBlock.count)
            open = frame
            return nil
        case .pushPromise(let p) where !p.endHeaders:
            try checkBlockSize(p.headerBlock.count)
            open = frame
            return nil
        case .continuation:
            throw .connection(.protocolError, "CONTINUATION without an open field block")
        default:
            return frame
        }
    }

    private func checkBlockSize(_ size: Int) throws(HTTP2Error) {
        guard size <= maxHeaderBlockSize else {
            throw .connection(.enhanceYourCalm, "field block of \(size) octets exceeds \(maxHeaderBlockSize)")
        }
    }
}
