import HTTP2Wire

/// The client side of one HTTP/2 connection (RFC 9113) as a value: bytes and requests in, bytes to
/// write and request outcomes out. No I/O and no clock, so tests drive it directly.
///
/// Streams open only after the server's first SETTINGS (so its MAX_CONCURRENT_STREAMS is known),
/// at most `min(server limit, options.maxConcurrentStreams)` at a time; the rest wait in order.
/// Flow control covers both directions (§5.2, §6.9).
struct HTTP2ClientCore {
    struct Options {
        /// `:scheme` of requests.
        var scheme = "https"
        /// `:authority` when a request names none.
        var defaultAuthority: String
        /// Our stream and connection receive windows.
        var receiveWindow = 1 << 20
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
        var sendWindow: Int
        var receiveWindow: Int
        var unacknowledged = 0
        var body: [UInt8]
        var bodyOffset = 0
        var status: Int?
        var headers: [(name: String, value: String)] = []
        var responseBody: [UInt8] = []

        var hasPendingBody: Bool { bodyOffset < body.count }
    }

    let options: Options
    var remote = HTTP2Settings()
    let local: HTTP2Settings
    var frames: HTTP2FrameDecoder
    var hpackDecoder: HPACKDecoder
    var hpackEncoder = HPACKEncoder()
    var streams: [UInt32: Stream] = [:]
    var queue: [(id: UInt64, request: HTTP2Request)] = []
    var nextStreamID: UInt32 = 1
    var connectionSendWindow = 65_535
    var connectionReceiveWindow = 65_535
    var connectionUnacknowledged = 0
    var peerSettingsReceived = false
    var goAwayReceived = false
    var closed = false
    var output: [UInt8] = []
    var events: [Event] = []

    /// Queues the connection preface, our SETTINGS and a connection WINDOW_UPDATE (§3.4, §6.9.2).
    init(options: Options) {
        self.options = options
        var local = HTTP2Settings()
        local.enablePush = false
        local.initialWindowSize = UInt32(clamping: min(max(0, options.receiveWindow), Int(HTTP2Settings.maxWindowSize)))
        local.maxHeaderListSize = UInt32(clamping: options.maxHeaderListSize)
        self.local = local
        frames = HTTP2FrameDecoder(maxFrameSize: Int(local.maxFrameSize), maxHeaderBlockSize: max(options.maxHeaderListSize, 16_384))
        hpackDecoder = HPACKDecoder(maxTableSize: Int(local.headerTableSize), maxHeaderListSize: options.maxHeaderListSize)
        output = HTTP2ConnectionPreface.bytes
        write(HTTP2Frame(streamID: 0, payload: .settings(local.nonDefaultParameters)))
        let raise = connectionWindowTarget - connectionReceiveWindow
        if raise > 0 {
            write(HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: UInt32(raise))))
            connectionReceiveWindow += raise
        }
    }

    /// The connection receive window we keep topped up: our stream window, at least the initial 65,535.
    var connectionWindowTarget: Int { min(max(65_535, options.receiveWindow), Int(HTTP2Settings.maxWindowSize)) }

    /// Whether new requests may be given to this connection.
    var acceptsRequests: Bool { !goAwayReceived && !closed && nextStreamID <= 0x7FFF_FFFF }

    /// Open streams plus queued requests.
    var load: Int { streams.count + queue.count }

    /// Takes the bytes to write.
    mutating func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    /// Adds a request; it is sent as soon as the server's settings and limits allow.
    mutating func submit(_ id: UInt64, _ request: HTTP2Request) -> [Event] {
        guard acceptsRequests else { return [.retry(id, reason: NetError.connectionClosed)] }
        queue.append((id, request))
        startStreams()
        return takeEvents()
    }

    /// Abandons a request (timeout): resets its stream with CANCEL (§8.7) or drops it from the queue.
    mutating func cancel(_ id: UInt64) -> [Event] {
        queue.removeAll { $0.id == id }
        if let streamID = streams.first(where: { $0.value.requestID == id })?.key {
            streams[streamID] = nil
            write(HTTP2Frame(streamID: streamID, payload: .rstStream(.cancel)))
            startStreams()
        }
        return takeEvents()
    }

    /// Ends the connection from our side: GOAWAY with `code` (§6.8), and every request fails.
    mutating func shutdown(_ code: HTTP2ErrorCode = .noError) -> [Event] {
        guard !closed else { return takeEvents() }
        write(HTTP2Frame(streamID: 0, payload: .goAway(lastStreamID: 0, errorCode: code, debugData: [])))
        failAll(NetError.connectionClosed)
        return takeEvents()
    }

    /// The transport closed: started requests fail with `error`; requests never sent are retried
    /// when `retryQueued` (the connection had worked) and fail otherwise (it never connected).
    mutating func connectionLost(_ error: any Error, retryQueued: Bool) -> [Event] {
        guard !closed else { return takeEvents() }
        failAll(error, retryQueued: retryQueued)
        return takeEvents()
    }

    // MARK: Sending

    mutating func write(_ frame: HTTP2Frame) {
        frame.serialize(into: &output)
    }

    mutating func takeEvents() -> [Event] {
        defer { events.removeAll() }
        return events
    }

    var concurrencyLimit: Int {
        min(options.maxConcurrentStreams, remote.maxConcurrentStreams.map { Int($0) } ?? Int.max)
    }

    /// Opens streams for queued requests while the limits allow (§5.1.2).
    mutating func startStreams() {
        guard peerSettingsReceived, !closed else { return }
        while !queue.isEmpty && streams.count < concurrencyLimit {
            guard nextStreamID <= 0x7FFF_FFFF else {
                // Stream identifiers are exhausted (§5.1.1): the rest go to a new connection.
                for (id, _) in queue { events.append(.retry(id, reason: NetError.connectionClosed)) }
                queue.removeAll()
                return
            }
            let (id, request) = queue.removeFirst()
            let streamID = nextStreamID
            nextStreamID += 2
            let block = hpackEncoder.encode(requestFields(request))
            let frames = HTTP2Frame.headerFrames(streamID: streamID, headerBlock: block, endStream: request.body.isEmpty,
                                                 maxFrameSize: Int(remote.maxFrameSize))
            for frame in frames { write(frame) }
            streams[streamID] = Stream(requestID: id, sendWindow: Int(remote.initialWindowSize),
                                       receiveWindow: Int(local.initialWindowSize), body: request.body)
        }
        sendData()
    }

    /// §8.3.1 pseudo-fields first, then the request's fields lowercased, without the
    /// connection-specific ones §8.2.2 forbids.
    func requestFields(_ request: HTTP2Request) -> [HPACKHeaderField] {
        var fields = [HPACKHeaderField(name: ":method", value: request.method),
                      HPACKHeaderField(name: ":scheme", value: options.scheme),
                      HPACKHeaderField(name: ":authority", value: request.authority ?? options.defaultAuthority),
                      HPACKHeaderField(name: ":path", value: request.path)]
        var hasLength = false
        for (name, value) in request.headers {
            let lower = name.lowercased()
            if Self.connectionSpecific.contains(lower) || lower.hasPrefix(":") { continue }
            if lower == "te" && value.lowercased() != "trailers" { continue }
            hasLength = hasLength || lower == "content-length"
            fields.append(HPACKHeaderField(name: lower, value: value))
        }
        if !hasLength && !request.body.isEmpty {
            fields.append(HPACKHeaderField(name: "content-length", value: String(request.body.count)))
        }
        return fields
    }

    static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding",
                                                   "upgrade", "host"]

    /// Sends request bodies as far as the connection and stream windows allow (§6.9), lowest stream first.
    mutating func sendData() {
        let maxFrame = Int(remote.maxFrameSize)
        for streamID in streams.keys.sorted() where connectionSendWindow > 0 {
            guard var stream = streams[streamID], stream.hasPendingBody else { continue }
            while stream.hasPendingBody && stream.sendWindow > 0 && connectionSendWindow > 0 {
                let count = min(stream.body.count - stream.bodyOffset, stream.sendWindow, connectionSendWindow, maxFrame)
                let chunk = Array(stream.body[stream.bodyOffset..<stream.bodyOffset + count])
                stream.bodyOffset += count
                stream.sendWindow -= count
                connectionSendWindow -= count
                write(HTTP2Frame(streamID: streamID, payload: .data(chunk, endStream: !stream.hasPendingBody, padding: nil)))
            }
            if !stream.hasPendingBody { stream.body = [] }
            streams[streamID] = stream
        }
    }

    // MARK: Ending streams and the connection

    /// A stream finished or failed: forget it and let a queued request take its place.
    mutating func finish(_ streamID: UInt32, _ event: Event) {
        streams[streamID] = nil
        events.append(event)
        startStreams()
        if goAwayReceived && streams.isEmpty && queue.isEmpty && !closed {
            closed = true
            events.append(.close)
        }
    }

    /// §5.4.1: GOAWAY with the error, then close; open streams fail, queued requests may retry.
    mutating func connectionError(_ error: HTTP2Error) {
        guard !closed else { return }
        write(HTTP2Frame(streamID: 0, payload: .goAway(lastStreamID: 0, errorCode: error.code,
                                                       debugData: Array(error.reason.utf8.prefix(256)))))
        failAll(HTTP2ClientError.protocolViolation(error))
    }

    /// §5.4.2: RST_STREAM with the error; the request fails with `failure`.
    mutating func streamError(_ streamID: UInt32, _ code: HTTP2ErrorCode, failure: any Error) {
        write(HTTP2Frame(streamID: streamID, payload: .rstStream(code)))
        guard let stream = streams[streamID] else { return }
        finish(streamID, .failure(stream.requestID, failure))
    }

    private mutating func failAll(_ error: any Error, retryQueued: Bool = true) {
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
