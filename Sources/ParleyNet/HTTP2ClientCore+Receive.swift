import HTTP2Wire

extension HTTP2ClientCore {
    /// Processes bytes from the server; returns what happened to requests. Queued output (acks,
    /// window updates, request data) is taken with `takeOutput()`.
    mutating func receive(_ bytes: some Sequence<UInt8>) -> [Event] {
        guard !closed else { return takeEvents() }
        frames.append(bytes)
        while !closed {
            let frame: HTTP2Frame?
            do {
                frame = try frames.next()
            } catch {
                if case .stream(let id) = error.scope {
                    streamError(id, error.code, failure: HTTP2ClientError.protocolViolation(error))
                    continue
                }
                connectionError(error)
                break
            }
            guard let frame else { break }
            handle(frame)
        }
        return takeEvents()
    }

    private mutating func handle(_ frame: HTTP2Frame) {
        switch frame.payload {
        case .settings(let parameters):
            receivedSettings(parameters)
        case .settingsAck, .priority, .unknown:
            break  // §6.3 PRIORITY is ignored; §4.1 unknown types are discarded
        case .ping(let opaque, let ack):
            if !ack { write(HTTP2Frame(streamID: 0, payload: .ping(opaque, ack: true))) }  // §6.7
        case .goAway(let lastStreamID, let code, _):
            receivedGoAway(lastStreamID: lastStreamID, code: code)
        case .windowUpdate(let increment):
            receivedWindowUpdate(frame.streamID, increment: Int(increment))
        case .rstStream(let code):
            guard let stream = streams[frame.streamID] else { return }
            // §8.7: REFUSED_STREAM guarantees the request was not processed.
            let error = HTTP2ClientError.streamReset(code)
            finish(frame.streamID, code == .refusedStream ? .retry(stream.requestID, reason: error)
                                                          : .failure(stream.requestID, error))
        case .headers(let headers):
            receivedHeaders(frame.streamID, headers)
        case .data(let bytes, let endStream, _):
            receivedData(frame.streamID, bytes, endStream: endStream, flowControlled: frame.flowControlledLength)
        case .pushPromise:
            // §8.4: we sent SETTINGS_ENABLE_PUSH = 0.
            connectionError(.connection(.protocolError, "PUSH_PROMISE with push disabled"))
        case .continuation:
            break  // joined into HEADERS by the frame decoder
        }
    }

    private mutating func receivedSettings(_ parameters: [HTTP2Setting]) {
        let oldWindow = Int(remote.initialWindowSize)
        do {
            try remote.apply(parameters)
        } catch {
            return connectionError(error)
        }
        // §6.9.2: a new initial window changes every open stream's send window by the difference.
        let delta = Int(remote.initialWindowSize) - oldWindow
        if delta != 0 {
            for streamID in streams.keys {
                streams[streamID]?.sendWindow += delta
                if let window = streams[streamID]?.sendWindow, window > Int(HTTP2Settings.maxWindowSize) {
                    return connectionError(.connection(.flowControlError, "stream \(streamID) window exceeds 2^31-1"))
                }
            }
        }
        hpackEncoder.setPeerMaxTableSize(Int(remote.headerTableSize))
        write(HTTP2Frame(streamID: 0, payload: .settingsAck))
        peerSettingsReceived = true
        startStreams()
    }

    private mutating func receivedGoAway(lastStreamID: UInt32, code: HTTP2ErrorCode) {
        goAwayReceived = true
        let reason = HTTP2ClientError.goAway(code)
        // §6.8: streams above the last processed one were not processed and may be retried.
        for streamID in streams.keys.sorted() where streamID > lastStreamID {
            if let stream = streams.removeValue(forKey: streamID) { events.append(.retry(stream.requestID, reason: reason)) }
        }
        for (id, _) in queue { events.append(.retry(id, reason: reason)) }
        queue.removeAll()
        if streams.isEmpty {
            closed = true
            events.append(.close)
        }
    }

    private mutating func receivedWindowUpdate(_ streamID: UInt32, increment: Int) {
        let limit = Int(HTTP2Settings.maxWindowSize)
        if streamID == 0 {
            connectionSendWindow += increment
            guard connectionSendWindow <= limit else {
                return connectionError(.connection(.flowControlError, "connection window exceeds 2^31-1"))
            }
        } else if var stream = streams[streamID] {
            stream.sendWindow += increment
            guard stream.sendWindow <= limit else {
                return streamError(streamID, .flowControlError,
                                   failure: HTTP2ClientError.protocolViolation(.stream(streamID, .flowControlError, "window exceeds 2^31-1")))
            }
            streams[streamID] = stream
        }
        sendData()
    }

    private mutating func receivedHeaders(_ streamID: UInt32, _ payload: HTTP2HeadersPayload) {
        // Every field block is decoded, even for streams we no longer track, to keep HPACK in step (§4.3).
        let fields: [HPACKHeaderField]
        do {
            fields = try hpackDecoder.decode(payload.headerBlock)
        } catch {
            guard error.isRecoverable, case .headerListTooLarge(let size) = error else {
                return connectionError(.connection(.compressionError, "\(error)"))
            }
            return streamError(streamID, .cancel, failure: HTTP2ClientError.headerListTooLarge(size))
        }
        guard streamID % 2 == 1, streamID < nextStreamID else {
            return connectionError(.connection(.protocolError, "HEADERS on stream \(streamID), which we never opened"))
        }
        guard var stream = streams[streamID] else { return }  // reset by us; ignore
        let malformed = { (why: String) in HTTP2ClientError.protocolViolation(.stream(streamID, .protocolError, why)) }
        if stream.status == nil {
            guard let status = Self.status(of: fields) else {
                return streamError(streamID, .protocolError, failure: malformed("response without a valid :status"))
            }
            if (100...199).contains(status) {
                // §8.1: informational responses precede the final one; they never end the stream.
                guard !payload.endStream else {
                    return streamError(streamID, .protocolError, failure: malformed("informational response ends the stream"))
                }
                return
            }
            stream.status = status
            stream.headers = fields.dropFirst().map { ($0.name, $0.value) }
        } else {
            // Trailers (§8.1) must end the stream and carry no pseudo-fields.
            guard payload.endStream, !fields.contains(where: { $0.name.hasPrefix(":") }) else {
                return streamError(streamID, .protocolError, failure: malformed("second field block is not trailers"))
            }
            stream.headers += fields.map { ($0.name, $0.value) }
        }
        streams[streamID] = stream
        if payload.endStream { complete(streamID) }
    }

    /// `:status` must come first, be three digits, and be the only pseudo-field (§8.3.2);
    /// names must be lowercase (§8.2.1).
    static func status(of fields: [HPACKHeaderField]) -> Int? {
        guard let first = fields.first, first.name == ":status", first.value.utf8.count == 3,
              let status = Int(first.value), (100...999).contains(status) else { return nil }
        for field in fields.dropFirst() {
            if field.name.hasPrefix(":") || field.name.utf8.contains(where: { (0x41...0x5A).contains($0) }) { return nil }
        }
        return status
    }

    private mutating func receivedData(_ streamID: UInt32, _ bytes: [UInt8], endStream: Bool, flowControlled: Int) {
        // §6.9: the connection window covers every DATA frame, even on streams we have dropped.
        guard flowControlled <= connectionReceiveWindow else {
            return connectionError(.connection(.flowControlError, "DATA beyond the connection window"))
        }
        connectionReceiveWindow -= flowControlled
        connectionUnacknowledged += flowControlled
        if connectionUnacknowledged >= connectionWindowTarget / 2 {
            write(HTTP2Frame(streamID: 0, payload: .windowUpdate(increment: UInt32(connectionUnacknowledged))))
            connectionReceiveWindow += connectionUnacknowledged
            connectionUnacknowledged = 0
        }
        guard var stream = streams[streamID] else {
            if streamID % 2 == 0 || streamID >= nextStreamID {
                connectionError(.connection(.protocolError, "DATA on stream \(streamID), which we never opened"))
            }
            return
        }
        guard stream.status != nil else {
            return streamError(streamID, .protocolError,
                               failure: HTTP2ClientError.protocolViolation(.stream(streamID, .protocolError, "DATA before HEADERS")))
        }
        guard flowControlled <= stream.receiveWindow else {
            return streamError(streamID, .flowControlError,
                               failure: HTTP2ClientError.protocolViolation(.stream(streamID, .flowControlError, "DATA beyond the stream window")))
        }
        stream.receiveWindow -= flowControlled
        guard stream.responseBody.count + bytes.count <= options.maxResponseBodyBytes else {
            return streamError(streamID, .cancel, failure: HTTP2ClientError.responseTooLarge(options.maxResponseBodyBytes))
        }
        stream.responseBody += bytes
        stream.unacknowledged += flowControlled
        if !endStream && stream.unacknowledged >= max(1, Int(local.initialWindowSize) / 2) {
            write(HTTP2Frame(streamID: streamID, payload: .windowUpdate(increment: UInt32(stream.unacknowledged))))
            stream.receiveWindow += stream.unacknowledged
            stream.unacknowledged = 0
        }
        streams[streamID] = stream
        if endStream { complete(streamID) }
    }

    private mutating func complete(_ streamID: UInt32) {
        guard let stream = streams[streamID], let status = stream.status else { return }
        // §8.1: a response may end before the request body was sent; stop sending it.
        if stream.hasPendingBody { write(HTTP2Frame(streamID: streamID, payload: .rstStream(.noError))) }
        finish(streamID, .response(stream.requestID, HTTP2Response(status: status, headers: stream.headers,
                                                                    body: stream.responseBody)))
    }
}
