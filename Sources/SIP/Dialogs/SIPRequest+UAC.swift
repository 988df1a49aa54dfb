import SDP
import SIPWire

/// Requests a UAC sends outside a dialog: the INVITE that starts one, its CANCEL, and the ACK
/// of a non-2xx final response.
extension SIPRequest {
    /// An out-of-dialog INVITE (RFC 3261 §8.1.1, §13.2.1): `from` with `fromTag`, `to` without
    /// a tag, a fresh Call-ID, CSeq `cseq` INVITE, a Via with `branch`, Max-Forwards 70, our
    /// Contact, Route from a preloaded `routeSet` (an outbound proxy, §8.1.2; strict routers
    /// handled as in §12.2.1.1), `headers` (X- headers, Supported, …) and `offer` as the body.
    public static func invite(to: SIPNameAddress, from: SIPNameAddress, requestURI: SIPAnyURI? = nil,
                              fromTag: String = SIPIdentifiers.tag(), callID: String = SIPIdentifiers.callID(),
                              cseq: UInt32 = 1, contact: SIPNameAddress, sentBy: SIPSentBy,
                              branch: String = SIPIdentifiers.branch(), routeSet: [SIPNameAddress] = [],
                              offer: SessionDescription? = nil, headers extra: SIPHeaders = [:]) -> SIPRequest {
        let (uri, routes) = SIPDialog.route(to: requestURI ?? to.uri, through: routeSet)
        var from = from, to = to
        from.tag = fromTag
        to.tag = nil
        var headers = SIPHeaders()
        headers.add("Via", sentBy.via(branch: branch))
        headers.add("Max-Forwards", "70")
        for route in routes { headers.add("Route", route) }
        headers.add("To", to)
        headers.add("From", from)
        headers.add("Call-ID", callID)
        headers.add("CSeq", SIPCSeq(cseq, .invite))
        headers.add("Contact", contact)
        for field in extra.fields { headers.add(field.name, field.value) }
        if offer != nil { headers.add("Content-Type", SIPMediaType.sdp) }
        return SIPRequest(method: .invite, uri: uri, headers: headers, body: offer.map { Array($0.serialized().utf8) } ?? [])
    }

    /// The CANCEL of this INVITE (§9.1): the same Request-URI, Call-ID, To, From and CSeq
    /// number, the top Via alone, the Route headers, method CANCEL. Nil for another method.
    public func makeCancel() -> SIPRequest? {
        guard method == .invite else { return nil }
        return derived(.cancel, to: headers["To"])
    }

    /// The ACK for `response`, a 300–699 final response to this INVITE (§17.1.1.3): the same
    /// Request-URI, Call-ID, From, top Via (so the same branch) and Route, the response's To
    /// (with its tag), CSeq number with method ACK. Nil for another method or a 1xx/2xx (a 2xx
    /// is ACKed in the dialog, ``SIPDialog/ack(for:sentBy:branch:answer:headers:)``).
    public func makeACK(for response: SIPResponse) -> SIPRequest? {
        guard method == .invite, response.statusCode >= 300 else { return nil }
        return derived(.ack, to: response.headers["To"])
    }

    /// A request on this one's transaction: top Via, Max-Forwards, Route, To, From, Call-ID, CSeq.
    private func derived(_ newMethod: SIPMethod, to: String?) -> SIPRequest? {
        guard let via = headers.elements("Via").first, let to, let from = headers["From"], let callID = headers["Call-ID"],
              let cseq else { return nil }
        var out = SIPHeaders()
        out.add("Via", via)
        out.add("Max-Forwards", "70")
        for route in headers.values("Route") { out.add("Route", route) }
        out.add("To", to)
        out.add("From", from)
        out.add("Call-ID", callID)
        out.add("CSeq", SIPCSeq(cseq.number, newMethod))
        return SIPRequest(method: newMethod, uri: uri, headers: out)
    }
}
