import SIP
import SIPWire

/// What one registration needs: where the registrar is, who we are, where we are reached.
public struct RegistrationConfiguration: Sendable {
    /// `regTimeout`'s range as the seed's SDK checks it: 120 s to 30 days.
    public static let minimumExpires: UInt32 = 120
    public static let maximumExpires: UInt32 = 30 * 24 * 3600
    /// The methods we take (RFC 3261 §20.5).
    static let allow = "INVITE, ACK, BYE, CANCEL, OPTIONS, INFO"

    /// The registrar's URI, the REGISTER's Request-URI (§10.2: `sip:domain`).
    public var registrar: SIPURI
    /// Our address of record, `sip:username@domain` (To and From).
    public var addressOfRecord: SIPURI
    public var username: String
    public var password: String
    /// The expiry asked for (`regTimeout`), within ``minimumExpires``…``maximumExpires``.
    public var expires: UInt32
    /// Where requests for us go (§10.2.1.1).
    public var contact: SIPNameAddress
    public var sentBy: SIPSentBy
    /// TCP or TLS: no retransmissions (§17.1.2.2).
    public var reliable: Bool
    public var timers: TransactionTimerValues
    public var userAgent: String

    public init(registrar: SIPURI, addressOfRecord: SIPURI, username: String, password: String, expires: UInt32,
                contact: SIPNameAddress, sentBy: SIPSentBy, reliable: Bool, timers: TransactionTimerValues = .rfc3261,
                userAgent: String = "Parley-Endpoint/1") {
        self.registrar = registrar
        self.addressOfRecord = addressOfRecord
        self.username = username
        self.password = password
        self.expires = expires
        self.contact = contact
        self.sentBy = sentBy
        self.reliable = reliable
        self.timers = timers
        self.userAgent = userAgent
    }
}
