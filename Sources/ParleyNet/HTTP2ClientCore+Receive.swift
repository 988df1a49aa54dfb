import CNGHTTP2

extension HTTP2ClientCore {
    /// Processes bytes from the server; returns what happened to requests. Queued output (acks,
    /// window updates, request data) is taken with `takeOutput()`.
    func receive(_ bytes: some Sequence<UInt8>) -> [Event] {
        guard !closed, !sessionFailed, let session else { return takeEvents() }
        let consumed = bytes.withContiguousStorageIfAvailable { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
            ?? Array(bytes).withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
        if consumed < 0 {
            fatal(Int32(consumed))
        } else {
            advance()
        }
        return takeEvents()
    }

    static func core(_ user: UnsafeMutableRawPointer?) -> HTTP2ClientCore {
        Unmanaged<HTTP2ClientCore>.fromOpaque(user!).takeUnretainedValue()
    }

    static func isType(_ frame: UnsafePointer<nghttp2_frame>, _ type: nghttp2_frame_type) -> Bool {
        UInt32(frame.pointee.hd.type) == type.rawValue
    }

    static func hasFlag(_ frame: UnsafePointer<nghttp2_frame>, _ flag: nghttp2_flag) -> Bool {
        UInt32(frame.pointee.hd.flags) & flag.rawValue != 0
    }

    /// The callbacks, each with the core as user_data; nghttp2 calls them only from inside
    /// `nghttp2_session_mem_recv` and `nghttp2_session_mem_send`.
    static func install(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            let core = HTTP2ClientCore.core(user)
            let streamID = frame.pointee.hd.stream_id
            core.streams[streamID]?.block = []
            core.streams[streamID]?.blockSize = 0
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value else { return 0 }
            return HTTP2ClientCore.core(user).receivedField(frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
                                            value: UnsafeBufferPointer(start: value, count: valueLength))
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data else { return 0 }
            HTTP2ClientCore.core(user).receivedData(streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            HTTP2ClientCore.core(user).receivedFrame(frame)
            return 0
        }
        nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(callbacks) { _, frame, libError, user in
            guard let frame else { return 0 }
            let core = HTTP2ClientCore.core(user)
            let reason = String(cString: nghttp2_strerror(libError))
            core.streams[frame.pointee.hd.stream_id]?.invalidReason = reason
            core.lastErrorMessage = core.lastErrorMessage ?? reason
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, user in
            guard let message else { return 0 }
            HTTP2ClientCore.core(user).lastErrorMessage = String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, HTTP2ClientCore.isType(frame, NGHTTP2_GOAWAY), frame.pointee.goaway.error_code != 0 else { return 0 }
            // §5.4.1: nghttp2 found a connection error; its reason travels as the GOAWAY debug data.
            let core = HTTP2ClientCore.core(user)
            let goAway = frame.pointee.goaway
            let debug = goAway.opaque_data.map { String(decoding: UnsafeBufferPointer(start: $0, count: goAway.opaque_data_len), as: UTF8.self) }
            let reason = debug.flatMap { $0.isEmpty ? nil : $0 } ?? core.lastErrorMessage ?? "connection error"
            core.connectionFailure = core.connectionFailure ?? .connection(HTTP2ErrorCode(rawValue: goAway.error_code), reason)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            HTTP2ClientCore.core(user).closedStream(streamID, HTTP2ErrorCode(rawValue: errorCode))
            return 0
        }
    }

    /// One response field. The field block's size counts name + value + 32 octets per field
    /// (RFC 7541 §4.1); past `maxHeaderListSize` the stream is reset, since nghttp2 does not bound
    /// the header list it decodes (an HPACK bomb repeats one large table entry).
    func receivedField(_ streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Int32 {
        guard var stream = streams[streamID] else { return 0 }
        stream.blockSize += name.count + value.count + 32
        guard stream.blockSize <= options.maxHeaderListSize else {
            // nghttp2 resets the stream (INTERNAL_ERROR) and skips the block's remaining fields.
            streamError(streamID, nil, failure: HTTP2ClientError.headerListTooLarge(stream.blockSize))
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        stream.block.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        streams[streamID] = stream
        return 0
    }

    func receivedData(_ streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard var stream = streams[streamID] else { return }
        guard stream.responseBody.count + bytes.count <= options.maxResponseBodyBytes else {
            return streamError(streamID, .cancel, failure: HTTP2ClientError.responseTooLarge(options.maxResponseBodyBytes))
        }
        stream.responseBody += bytes
        streams[streamID] = stream
    }

    func receivedFrame(_ frame: UnsafePointer<nghttp2_frame>) {
        let streamID = frame.pointee.hd.stream_id
        let endStream = Self.hasFlag(frame, NGHTTP2_FLAG_END_STREAM)
        if Self.isType(frame, NGHTTP2_SETTINGS) {
            if !Self.hasFlag(frame, NGHTTP2_FLAG_ACK) { peerSettingsReceived = true }
        } else if Self.isType(frame, NGHTTP2_HEADERS) {
            receivedFieldBlock(streamID, endStream: endStream)
        } else if Self.isType(frame, NGHTTP2_DATA) {
            if endStream { complete(streamID) }
        } else if Self.isType(frame, NGHTTP2_RST_STREAM) {
            guard let stream = streams[streamID] else { return }
            // §8.7: REFUSED_STREAM guarantees the request was not processed.
            let code = HTTP2ErrorCode(rawValue: frame.pointee.rst_stream.error_code)
            let error = HTTP2ClientError.streamReset(code)
            finish(streamID, code == .refusedStream ? .retry(stream.requestID, reason: error) : .failure(stream.requestID, error))
        } else if Self.isType(frame, NGHTTP2_GOAWAY) {
            receivedGoAway(lastStreamID: frame.pointee.goaway.last_stream_id,
                           code: HTTP2ErrorCode(rawValue: frame.pointee.goaway.error_code))
        }
    }

    /// A field block nghttp2 checked (§8.3.2 `:status`, lowercase names, trailers without pseudo-fields).
    func receivedFieldBlock(_ streamID: Int32, endStream: Bool) {
        guard var stream = streams[streamID] else { return }
        let block = stream.block
        stream.block = []
        stream.blockSize = 0
        if stream.status == nil {
            guard let status = block.first(where: { $0.name == ":status" }).flatMap({ Int($0.value) }) else { return }
            // §8.1: informational responses precede the final one.
            if (100...199).contains(status) {
                streams[streamID] = stream
                return
            }
            stream.status = status
            stream.headers = block.filter { !$0.name.hasPrefix(":") }
        } else {
            stream.headers += block  // trailers
        }
        streams[streamID] = stream
        if endStream { complete(streamID) }
    }

    func receivedGoAway(lastStreamID: Int32, code: HTTP2ErrorCode) {
        goAwayReceived = true
        let reason = HTTP2ClientError.goAway(code)
        // §6.8: streams above the last processed one were not processed and may be retried.
        for streamID in streams.keys.sorted() where streamID > lastStreamID {
            if let stream = streams.removeValue(forKey: streamID) { events.append(.retry(stream.requestID, reason: reason)) }
        }
        for (id, _) in queue { events.append(.retry(id, reason: reason)) }
        queue.removeAll()
        if streams.isEmpty && !closed {
            closed = true
            events.append(.close)
        }
    }

    /// nghttp2 closed a stream this core still tracks: it reset it for a protocol error of the
    /// server's (§5.4.2), or the stream ended without a complete response.
    func closedStream(_ streamID: Int32, _ code: HTTP2ErrorCode) {
        guard let stream = streams[streamID] else { return }
        let failure: any Error = code == .noError ? NetError.connectionClosed
            : HTTP2ClientError.protocolViolation(.stream(UInt32(streamID), code, stream.invalidReason ?? "stream error"))
        finish(streamID, .failure(stream.requestID, failure))
    }

    func complete(_ streamID: Int32) {
        guard let stream = streams[streamID], let status = stream.status else { return }
        // §8.1: a response may end before the request body was sent; stop sending it.
        if stream.hasPendingBody { resetStream(streamID, .noError) }
        finish(streamID, .response(stream.requestID, HTTP2Response(status: status, headers: stream.headers,
                                                                    body: stream.responseBody)))
    }
}
