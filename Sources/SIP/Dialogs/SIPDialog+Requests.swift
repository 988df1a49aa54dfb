import SDP
import SIPWire

/// Requests within a dialog (RFC 3261 §12.2.1.1) and responses that keep it.
extension SIPDialog {
    /// A request in the dialog: To, From, Call-ID from the dialog, the next local CSeq, a Via
    /// with `branch`, Max-Forwards 70, Request-URI and Route by loose or strict routing, our
    /// Contact (not in BYE), then `headers` and the body. For ACK use ``ack(for:sentBy:branch:answer:headers:)``.
    public mutating func request(_ method: SIPMethod, sentBy: SIPSentBy, branch: String = SIPIdentifiers.branch(),
                                 body: [UInt8] = [], contentType: SIPMediaType? = nil, headers: SIPHeaders = [:]) -> SIPRequest {
        let number = method == .ack ? (localSequence ?? 1) : nextSequence()
        return build(method, cseq: number, sentBy: sentBy, branch: branch, body: body, contentType: contentType, headers: headers)
    }

    /// BYE (§15.1.1).
    public mutating func bye(sentBy: SIPSentBy, branch: String = SIPIdentifiers.branch(), headers: SIPHeaders = [:]) -> SIPRequest {
        request(.bye, sentBy: sentBy, branch: branch, headers: headers)
    }

    /// A re-INVITE carrying `offer` (§14.1): hold, resume, a new address.
    public mutating func reinvite(offer: SessionDescription, sentBy: SIPSentBy, branch: String = SIPIdentifiers.branch(),
                                  headers: SIPHeaders = [:]) -> SIPRequest {
        request(.invite, sentBy: sentBy, branch: branch, body: Array(offer.serialized().utf8), contentType: .sdp, headers: headers)
    }

    /// INFO (RFC 6086) with `body`, e.g. `application/dtmf-relay`.
    public mutating func info(body: [UInt8], contentType: SIPMediaType, sentBy: SIPSentBy,
                              branch: String = SIPIdentifiers.branch(), headers: SIPHeaders = [:]) -> SIPRequest {
        request(.info, sentBy: sentBy, branch: branch, body: body, contentType: contentType, headers: headers)
    }

    /// The ACK for a 2xx to an INVITE (§13.2.2.4): built like any in-dialog request, with the
    /// INVITE's CSeq number (from `response`) and method ACK, on a branch of its own; `answer`
    /// when the INVITE carried no offer.
    public func ack(for response: SIPResponse, sentBy: SIPSentBy, branch: String = SIPIdentifiers.branch(),
                    answer: SessionDescription? = nil, headers: SIPHeaders = [:]) -> SIPRequest {
        build(.ack, cseq: response.cseq?.number ?? localSequence ?? 1, sentBy: sentBy, branch: branch,
              body: answer.map { Array($0.serialized().utf8) } ?? [], contentType: answer == nil ? nil : .sdp, headers: headers)
    }

    /// Our response to `request`, received in (or creating) this dialog: §8.2.6's copied
    /// headers, our To tag, and for a 1xx/2xx to INVITE the Record-Route copied and our Contact
    /// (§12.1.1); `sdp` as an `application/sdp` body.
    public func response(to request: SIPRequest, statusCode: Int, reasonPhrase: String? = nil,
                         sdp: SessionDescription? = nil, headers: SIPHeaders = [:]) -> SIPResponse {
        var extra = SIPHeaders()
        let establishing = (101..<300).contains(statusCode) && (request.method == .invite || request.method == .update)
        if establishing { extra.add("Contact", localContact) }
        for field in headers.fields { extra.add(field.name, field.value) }
        if sdp != nil { extra.add("Content-Type", SIPMediaType.sdp) }
        return SIPResponse(replyingTo: request, statusCode: statusCode, reasonPhrase: reasonPhrase, toTag: id.localTag,
                           recordRoute: establishing && request.method == .invite, headers: extra,
                           body: sdp.map { Array($0.serialized().utf8) } ?? [])
    }

    /// The Request-URI and Route set of §12.2.1.1: with no routes, the remote target; when the
    /// first route is a loose router (`lr`), the remote target and every route; otherwise
    /// (strict routing) the first route as Request-URI, stripped of what a Request-URI may not
    /// carry, and the rest with the remote target last.
    public var requestTarget: (uri: SIPAnyURI, routes: [SIPNameAddress]) { Self.route(to: remoteTarget, through: routeSet) }

    /// §12.2.1.1's Request-URI and Route headers for `target` through `routeSet`.
    static func route(to target: SIPAnyURI, through routeSet: [SIPNameAddress]) -> (uri: SIPAnyURI, routes: [SIPNameAddress]) {
        guard let first = routeSet.first else { return (target, []) }
        guard case .sip(var uri) = first.uri, !uri.isLooseRouting else { return (target, routeSet) }
        uri.parameters.remove("method")
        uri.headers = []
        return (.sip(uri), Array(routeSet.dropFirst()) + [SIPNameAddress(uri: target)])
    }

    private func build(_ method: SIPMethod, cseq: UInt32, sentBy: SIPSentBy, branch: String, body: [UInt8],
                       contentType: SIPMediaType?, headers extra: SIPHeaders) -> SIPRequest {
        let (uri, routes) = requestTarget
        var headers = SIPHeaders()
        headers.add("Via", sentBy.via(branch: branch))
        headers.add("Max-Forwards", "70")
        for route in routes { headers.add("Route", route) }
        var to = remoteURI, from = localURI
        if !id.remoteTag.isEmpty { to.tag = id.remoteTag }
        from.tag = id.localTag
        headers.add("To", to)
        headers.add("From", from)
        headers.add("Call-ID", id.callID)
        headers.add("CSeq", SIPCSeq(cseq, method))
        if method != .bye, method != .cancel { headers.add("Contact", localContact) }
        for field in extra.fields { headers.add(field.name, field.value) }
        if let contentType { headers.add("Content-Type", contentType) }
        return SIPRequest(method: method, uri: uri, headers: headers, body: body)
    }
}
