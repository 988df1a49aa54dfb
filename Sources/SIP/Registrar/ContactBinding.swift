/// One registered contact of an address of record (RFC 3261 §10.3), as the registrar keeps it.
public struct ContactBinding: Sendable, Hashable, Codable {
    /// The Contact URI, as the UA gave it.
    public var contact: String
    /// When the binding expires (seconds on the registrar's clock).
    public var expiresAt: Double
    /// The UA's preference (`q`, 0…1), if it gave one.
    public var q: Double?
    /// The REGISTER's Call-ID and CSeq that last refreshed it: a refresh with the same Call-ID and
    /// an older CSeq is out of order (§10.3 step 7).
    public var callID: String
    public var cseq: UInt32
    /// RFC 5626 §4.2: `+sip.instance` and `reg-id` identify a flow; with both, a new contact URI
    /// from the same instance and reg-id replaces the old binding.
    public var instance: String?
    public var regID: Int?
    /// Where the REGISTER came from (`transport:address:port`): requests for this contact go back
    /// there, through the NAT that rewrote it (RFC 3581, RFC 5626 §5.3).
    public var source: String

    public init(contact: String, expiresAt: Double, q: Double? = nil, callID: String, cseq: UInt32,
                instance: String? = nil, regID: Int? = nil, source: String) {
        (self.contact, self.expiresAt, self.q, self.callID, self.cseq) = (contact, expiresAt, q, callID, cseq)
        (self.instance, self.regID, self.source) = (instance, regID, source)
    }

    /// What identifies the binding: the instance and reg-id when both are given, else the URI.
    public var key: String {
        if let instance, let regID { return "\(instance)#\(regID)" }
        return contact
    }
}

/// A Contact of a REGISTER request, as parsed.
public struct RequestedContact: Sendable, Hashable {
    public var uri: String
    /// The contact's own `expires` parameter, if any.
    public var expires: Int?
    public var q: Double?
    public var instance: String?
    public var regID: Int?

    public init(uri: String, expires: Int? = nil, q: Double? = nil, instance: String? = nil, regID: Int? = nil) {
        (self.uri, self.expires, self.q, self.instance, self.regID) = (uri, expires, q, instance, regID)
    }
}
