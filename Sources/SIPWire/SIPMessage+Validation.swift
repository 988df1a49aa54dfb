/// The checks a stack relies on before acting on a parsed message (RFC 3261 §8.1.1, §8.2,
/// RFC 4475 §3.1.2, §3.3): version, mandatory and single-valued headers, and the grammar of the
/// headers the transaction, dialog and registrar layers read. Other headers are parsed when read.
extension SIPMessageContent {
    /// Throws the first problem found, with the detail for a `400` reason phrase (or 505).
    public func validate() throws(SIPParseError) {
        guard SIPCharacters.equalFold(version, "SIP/2.0") else { throw .unsupportedVersion(version) }
        for name in ["Via", "From", "To", "Call-ID", "CSeq"] where !headers.contains(name) {
            throw .missingHeader(name)
        }
        var seen: Set<String> = []
        for field in headers.fields where SIPHeaderName.singleKeys.contains(field.key) {
            guard seen.insert(field.key).inserted else { throw .duplicateHeader(SIPHeaderName.canonical(field.name)) }
        }
        _ = try parsedVias()
        _ = try parsedFrom()
        _ = try parsedTo()
        _ = try parsedCallID()
        let cseq = try parsedCSeq()
        _ = try headers.first("Max-Forwards", as: SIPNumberHeader<UInt8>.self)
        _ = try parsedContacts()
        _ = try headers.first("Content-Type", as: SIPMediaType.self)
        _ = try headers.all("Route", as: SIPNameAddress.self)
        _ = try headers.all("Record-Route", as: SIPNameAddress.self)
        if headers.contains("Content-Length") { _ = try SIPHead.contentLength(headers) }
        if let request = self as? SIPRequest {
            try request.validateRequestLine(cseq: cseq)
        } else if case .request(let request)? = self as? SIPMessage {
            try request.validateRequestLine(cseq: cseq)
        }
    }
}

extension SIPRequest {
    /// The CSeq method is the request's (RFC 4475 §3.1.2.17, §3.1.2.18); a SIP Request-URI
    /// carries no headers (RFC 3261 §19.1.1 table, RFC 4475 §3.1.2.11).
    fileprivate func validateRequestLine(cseq: SIPCSeq?) throws(SIPParseError) {
        if let cseq, cseq.method != method { throw .cseqMethodMismatch }
        if case .sip(let uri) = uri, !uri.headers.isEmpty { throw .invalidRequestURI }
    }
}
