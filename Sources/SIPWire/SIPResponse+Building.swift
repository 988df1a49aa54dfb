extension SIPResponse {
    /// A response to `request` (RFC 3261 §8.2.6.2): every Via in order, From, To, Call-ID and
    /// CSeq copied; `toTag` added to To when the request's To has none (never on 100, §8.2.6.2);
    /// Timestamp copied into a 100 (§8.2.6.1). `recordRoute` copies Record-Route, as a UAS does
    /// in a dialog-creating response (§12.1.1).
    public init(replyingTo request: SIPRequest, statusCode: Int, reasonPhrase: String? = nil, toTag: String? = nil,
                recordRoute: Bool = false, headers extra: SIPHeaders = [:], body: [UInt8] = []) {
        var headers = SIPHeaders()
        for field in request.headers.fields {
            switch field.key {
            case "via", "from", "call-id", "cseq":
                headers.add(SIPHeaderName.canonical(field.name), field.value)
            case "to":
                var value = field.value
                if let toTag, statusCode > 100, var to = try? SIPNameAddress(parsing: value, header: "To"), to.tag == nil {
                    to.tag = toTag
                    value = to.headerValue
                }
                headers.add("To", value)
            case "record-route" where recordRoute:
                headers.add("Record-Route", field.value)
            case "timestamp" where statusCode == 100:
                headers.add("Timestamp", field.value)
            default:
                break
            }
        }
        for field in extra.fields { headers.add(field.name, field.value) }
        self.init(statusCode: statusCode, reasonPhrase: reasonPhrase, headers: headers, body: body)
    }

    /// The answer to a request that failed ``SIPMessageContent/validate()``: the error's status
    /// code and reason phrase (e.g. `400 Bad Request (Missing Call-ID)`, `505`), with the
    /// request's Via, From, To, Call-ID and CSeq.
    public init(replyingTo request: SIPRequest, error: SIPParseError, toTag: String? = nil) {
        self.init(replyingTo: request, statusCode: error.statusCode, reasonPhrase: error.reasonPhrase, toTag: toTag)
    }
}
