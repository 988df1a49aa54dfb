import CNGHTTP2

/// The client side of one HTTP/2 connection (RFC 9113) on a libnghttp2 client session, which does
/// no I/O: bytes and requests in, bytes to write and request outcomes out. No clock, so tests drive
/// it directly.
///
/// nghttp2 does the framing, HPACK, flow control both ways (§5.2, §6.9), SETTINGS and PING
/// acknowledgements and the §8 message checks. This type keeps the requests: streams open only
/// after the server's first SETTINGS (so its MAX_CONCURRENT_STREAMS is known), at most
/// `min(server limit, options.maxConcurrentStreams)` at a time, the rest wait here in order; it
/// bounds what a response may make it keep (header list, body), and turns stream and connection
/// ends into `Event`s.
///
/// Confined to one thread (the event loop); nghttp2 calls back only from inside its methods.
final class HTTP2ClientCore {
    struct Options {
        /// `:scheme` of requests.
        var scheme = "https"
        /// `:authority` when a request names none.
        var defaultAuthority: String
        /// Our stream and connection receive windows.
        var receiveWindow = 1 << 20
        /// SETTINGS_MAX_HEADER_LIST_SIZE, announced and enforced per field block (RFC 7541 §4.1 sizes).
        var maxHeaderListSize = 64 * 1024
        var maxResponseBodyBytes = 16 * 1024 * 1024
        /// A local cap on open streams, below the server's limit.
        var maxConcurrentStreams = 100
    }

    /// What happened to requests, for the owner to act on.
    enum Event {
        case response(UInt64, HTTP2Response)
        case failure(UInt64, any Error)
        /// The server never processed the request (REFUSED_STREAM, above GOAWAY's last stream, or
        /// never sent): it may be sent again on another connection (§8.7). `reason` is reported if
        /// no attempt succeeds.
        case retry(UInt64, reason: any Error)
        /// The connection is finished: write what remains, then close.
        case close
    }

    struct Stream {
        let requestID: UInt64
        var body: [UInt8]
        var bodyOffset = 0
        /// The final status, once its field block arrived.
        var status: Int?
        var headers: [(name: String, value: String)] = []
        /// The field block being received (informational, final or trailers) and its §4.1 size.
        var block: [(name: String, value: String)] = []
        var blockSize = 0
        var responseBody: [UInt8] = []
        /// Why nghttp2 found this stream's input invalid, reported when it resets the stream.
        var invalidReason: String?

        var hasPendingBody: Bool { bodyOffset < body.count }
        /// Octets of response kept for this stream.
        var bufferedBytes: Int { blockSize + responseBody.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } }
    }

    /// The largest flow-control window (RFC 9113 §6.9.1).
    static let maxWindowSize = 0x7FFF_FFFF

    let options: Options
    private(set) var session: OpaquePointer?
    var streams: [Int32: Stream] = [:]
    var queue: [(id: UInt64, request: HTTP2Request)] = []
    var peerSettingsReceived = false
    var goAwayReceived = false
    var closed = false
    /// nghttp2 returned a fatal error; the session must not be used again.
    var sessionFailed = false
    var streamIDsExhausted = false
    /// The connection error we sent GOAWAY for (§5.4.1), reported to the streams it ends.
    var connectionFailure: HTTP2Error?
    /// nghttp2's last explanation of an error (its error callback), for the failure reported.
    var lastErrorMessage: String?
    var output: [UInt8] = []
    var events: [Event] = []

    /// Queues the connection preface, our SETTINGS (no push, our window and header list size) and a
    /// connection WINDOW_UPDATE (§3.4, §6.5.2, §6.9.2).
    init(options: Options) {
        self.options = options
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else {
            closed = true
            return
        }
        Self.install(callbacks)
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_session_callbacks_del(callbacks)
        guard let session else {
            closed = true
            return
        }
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: UInt32(clamping: min(max(0, options.receiveWindow), Self.maxWindowSize))),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(clamping: options.maxHeaderListSize)),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(connectionWindowTarget))
        pump()
    }

    deinit { nghttp2_session_del(session) }

    /// The connection receive window we keep: our stream window, at least the initial 65,535.
    var connectionWindowTarget: Int { min(max(65_535, options.receiveWindow), Self.maxWindowSize) }

    /// Whether new requests may be given to this connection.
    var acceptsRequests: Bool {
        guard let session, !goAwayReceived, !closed, !streamIDsExhausted else { return false }
        return nghttp2_session_get_next_stream_id(session) <= 0x7FFF_FFFF
    }

    /// Open streams plus queued requests.
    var load: Int { streams.count + queue.count }

    /// Octets of responses held for open streams (bounded by the header list and body limits).
    var bufferedBytes: Int { streams.values.reduce(0) { $0 + $1.bufferedBytes } }

    /// Takes the bytes to write.
    func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    /// Adds a request; it is sent as soon as the server's settings and limits allow.
    func submit(_ id: UInt64, _ request: HTTP2Request) -> [Event] {
        guard acceptsRequests else { return [.retry(id, reason: NetError.connectionClosed)] }
        queue.append((id, request))
        advance()
        return takeEvents()
    }

    /// Abandons a request (timeout): resets its stream with CANCEL (§8.7) or drops it from the queue.
    func cancel(_ id: UInt64) -> [Event] {
        queue.removeAll { $0.id == id }
        if let streamID = streams.first(where: { $0.value.requestID == id })?.key {
            streams[streamID] = nil
            resetStream(streamID, .cancel)
            advance()
        }
        return takeEvents()
    }

    /// Ends the connection from our side: GOAWAY with `code` (§6.8), and every request fails.
    func shutdown(_ code: HTTP2ErrorCode = .noError) -> [Event] {
        guard !closed else { return takeEvents() }
        failAll(NetError.connectionClosed)
        if let session, !sessionFailed {
            nghttp2_session_terminate_session(session, code.rawValue)
            pump()
        }
        return takeEvents()
    }

    /// The transport closed: started requests fail with `error`; requests never sent are retried
    /// when `retryQueued` (the connection had worked) and fail otherwise (it never connected).
    func connectionLost(_ error: any Error, retryQueued: Bool) -> [Event] {
        guard !closed else { return takeEvents() }
        failAll(error, retryQueued: retryQueued)
        return takeEvents()
    }

    // MARK: Sending

    func takeEvents() -> [Event] {
        defer { events.removeAll() }
        return events
    }

    /// Opens what the limits allow and takes nghttp2's output, until neither changes anything.
    func advance() {
        pump()
        while startStreams() { pump() }
    }

    /// Takes everything nghttp2 has to send into `output`; a session that wants neither to read nor
    /// to write (after a GOAWAY it sent or received) ends the connection.
    func pump() {
        guard let session, !sessionFailed else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { return fatal(Int32(count)) }
            guard count > 0, let data else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        if !closed && nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            failAll(connectionFailure.map { HTTP2ClientError.protocolViolation($0) } ?? NetError.connectionClosed)
        }
    }

    /// nghttp2 returned a fatal error (out of memory, a flood, a callback failure): the connection ends.
    func fatal(_ code: Int32) {
        sessionFailed = true
        guard !closed else { return }
        let error = connectionFailure ?? .connection(code == NGHTTP2_ERR_FLOODED.rawValue ? .enhanceYourCalm : .internalError,
                                                     lastErrorMessage ?? String(cString: nghttp2_strerror(code)))
        failAll(HTTP2ClientError.protocolViolation(error))
    }

    var concurrencyLimit: Int {
        guard let session else { return 0 }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return min(options.maxConcurrentStreams, remote)
    }

    /// Opens streams for queued requests while the limits allow (§5.1.2); whether it opened any.
    func startStreams() -> Bool {
        guard peerSettingsReceived, !closed, !sessionFailed, let session else { return false }
        var started = false
        while !queue.isEmpty && streams.count < concurrencyLimit {
            let (id, request) = queue.removeFirst()
            let streamID = Self.submitRequest(session, fields: requestFields(request), hasBody: !request.body.isEmpty)
            guard streamID > 0 else {
                // Stream identifiers are exhausted (§5.1.1): the rest go to a new connection.
                streamIDsExhausted = true
                events.append(.retry(id, reason: NetError.connectionClosed))
                for (id, _) in queue { events.append(.retry(id, reason: NetError.connectionClosed)) }
                queue.removeAll()
                break
            }
            streams[streamID] = Stream(requestID: id, body: request.body)
            started = true
        }
        return started
    }

    /// §8.3.1 pseudo-fields first, then the request's fields lowercased, without the
    /// connection-specific ones §8.2.2 forbids.
    func requestFields(_ request: HTTP2Request) -> [(name: String, value: String)] {
        var fields = [(":method", request.method), (":scheme", options.scheme),
                      (":authority", request.authority ?? options.defaultAuthority), (":path", request.path)]
        var hasLength = false
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if Self.connectionSpecific.contains(lower) || lower.hasPrefix(":") { continue }
            if lower == "te" && value.lowercased() != "trailers" { continue }
            hasLength = hasLength || lower == "content-length"
            fields.append((lower, value))
        }
        if !hasLength && !request.body.isEmpty { fields.append(("content-length", String(request.body.count))) }
        return fields
    }

    static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                                   "upgrade", "host"]

    /// `nghttp2_submit_request` with `fields` (copied by nghttp2) and, for a body, the data provider
    /// that reads the stream's `body`; the new stream's ID, or a negative nghttp2 error.
    static func submitRequest(_ session: OpaquePointer, fields: [(name: String, value: String)], hasBody: Bool) -> Int32 {
        var storage: [UInt8] = []
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        for (name, value) in fields {
            let nameStart = storage.count
            storage += name.utf8
            let valueStart = storage.count
            storage += value.utf8
            ranges.append((nameStart..<valueStart, valueStart..<storage.count))
        }
        storage.append(0)  // a valid base address even when every field is empty
        return storage.withUnsafeMutableBufferPointer { bytes in
            let base = bytes.baseAddress!
            var nvs = ranges.map { range in
                nghttp2_nv(name: base + range.name.lowerBound, value: base + range.value.lowerBound,
                           namelen: range.name.count, valuelen: range.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            guard hasBody else { return nghttp2_submit_request(session, nil, &nvs, nvs.count, nil, nil) }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBody)
            return nghttp2_submit_request(session, nil, &nvs, nvs.count, &provider, nil)
        }
    }

    /// nghttp2's data source: the next part of a stream's request body, within the windows it allows.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        let core = Unmanaged<HTTP2ClientCore>.fromOpaque(user!).takeUnretainedValue()
        guard var stream = core.streams[streamID], let buffer, let flags else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)  // abandoned: nghttp2 resets the stream
        }
        let count = min(length, stream.body.count - stream.bodyOffset)
        stream.body.withUnsafeBufferPointer { body in
            buffer.update(from: body.baseAddress! + stream.bodyOffset, count: count)
        }
        stream.bodyOffset += count
        if !stream.hasPendingBody {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            stream.body = []
            stream.bodyOffset = 0
        }
        core.streams[streamID] = stream
        return count
    }

    func resetStream(_ streamID: Int32, _ code: HTTP2ErrorCode) {
        guard let session, !sessionFailed else { return }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code.rawValue)
    }

    // MARK: Ending streams and the connection

    /// A stream finished or failed: forget it (a queued request takes its place in `advance`).
    func finish(_ streamID: Int32, _ event: Event) {
        streams[streamID] = nil
        events.append(event)
        if goAwayReceived && streams.isEmpty && queue.isEmpty && !closed {
            closed = true
            events.append(.close)
        }
    }

    /// §5.4.2: RST_STREAM with `code` (nil: nghttp2 resets it), and the request fails with `failure`.
    func streamError(_ streamID: Int32, _ code: HTTP2ErrorCode?, failure: any Error) {
        if let code { resetStream(streamID, code) }
        guard let stream = streams[streamID] else { return }
        finish(streamID, .failure(stream.requestID, failure))
    }

    func failAll(_ error: any Error, retryQueued: Bool = true) {
        closed = true
        for streamID in streams.keys.sorted() {
            if let stream = streams[streamID] { events.append(.failure(stream.requestID, error)) }
        }
        streams.removeAll()
        for (id, _) in queue { events.append(retryQueued ? .retry(id, reason: error) : .failure(id, error)) }
        queue.removeAll()
        events.append(.close)
    }
}
