import ParleyCore

/// Which side of the DTLS handshake this endpoint plays. From SDP `a=setup` (RFC 5763 §5,
/// RFC 8842 §5.3): `active` connects (client), `passive` accepts (server).
public enum DTLSRole: Sendable, Hashable {
    /// Sends the ClientHello (`a=setup:active`).
    case client
    /// Waits for the ClientHello (`a=setup:passive`).
    case server
}

/// The connection state of a `DTLSSession`.
public enum DTLSState: Sendable, Hashable {
    /// Created; `start()` not yet called.
    case new
    /// Handshake flights are in progress.
    case handshaking
    /// Handshake complete, peer fingerprint verified, SRTP keys exportable.
    case connected
    /// The handshake or the connection failed; the session is unusable.
    case failed(ParleyError)
    /// Closed by either side (close_notify, RFC 6347 §4.1 / RFC 5246 §7.2.1).
    case closed
}

/// What one call into a `DTLSSession` produced. The owner sends `datagrams` in order, delivers
/// `applicationData`, and reacts to `stateChange`.
public struct DTLSOutput: Sendable {
    /// Datagrams to send to the peer, each at most the session's MTU.
    public var datagrams: [[UInt8]]
    /// Decrypted application-data records (e.g. SCTP packets for data channels, RFC 8261).
    public var applicationData: [[UInt8]]
    /// The new state if this call changed it.
    public var stateChange: DTLSState?

    public init(datagrams: [[UInt8]] = [], applicationData: [[UInt8]] = [], stateChange: DTLSState? = nil) {
        self.datagrams = datagrams
        self.applicationData = applicationData
        self.stateChange = stateChange
    }
}
