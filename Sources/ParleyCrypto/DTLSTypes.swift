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

/// DTLS-SRTP protection profiles (RFC 5764 §4.1.2, RFC 7714 §14.2), with the IANA values.
public enum DTLSSRTPProfile: UInt16, Sendable, Hashable, CaseIterable {
    /// `SRTP_AES128_CM_HMAC_SHA1_80` (0x0001): 16-byte key, 14-byte salt.
    case aes128CMHMACSHA1_80 = 0x0001
    /// `SRTP_AEAD_AES_128_GCM` (0x0007): 16-byte key, 12-byte salt (RFC 7714 §12).
    case aeadAES128GCM = 0x0007

    /// The name OpenSSL's `SSL_CTX_set_tlsext_use_srtp` expects.
    public var openSSLName: String {
        switch self {
        case .aes128CMHMACSHA1_80: "SRTP_AES128_CM_SHA1_80"
        case .aeadAES128GCM: "SRTP_AEAD_AES_128_GCM"
        }
    }

    /// Master key length in bytes.
    public var keyLength: Int { 16 }

    /// Master salt length in bytes.
    public var saltLength: Int {
        switch self {
        case .aes128CMHMACSHA1_80: 14
        case .aeadAES128GCM: 12
        }
    }
}

/// SRTP master keys exported from a finished DTLS handshake (RFC 5764 §4.2), split by direction:
/// `local` protects what this endpoint sends, `remote` unprotects what it receives. Plain bytes, so
/// the SRTP layer never depends on DTLS.
public struct DTLSSRTPKeyingMaterial: Sendable, Hashable {
    public var profile: DTLSSRTPProfile
    public var localKey: [UInt8]
    public var localSalt: [UInt8]
    public var remoteKey: [UInt8]
    public var remoteSalt: [UInt8]

    public init(profile: DTLSSRTPProfile, localKey: [UInt8], localSalt: [UInt8], remoteKey: [UInt8],
                remoteSalt: [UInt8]) {
        self.profile = profile
        self.localKey = localKey
        self.localSalt = localSalt
        self.remoteKey = remoteKey
        self.remoteSalt = remoteSalt
    }

    /// The exporter label of RFC 5764 §4.2.
    public static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// Splits the exporter output `client_key | server_key | client_salt | server_salt`
    /// (RFC 5764 §4.2) for the given role; nil if `material` has the wrong length.
    public init?(profile: DTLSSRTPProfile, exported material: [UInt8], role: DTLSRole) {
        let k = profile.keyLength, s = profile.saltLength
        guard material.count == 2 * (k + s) else { return nil }
        let clientKey = Array(material[0..<k]), serverKey = Array(material[k..<2 * k])
        let clientSalt = Array(material[2 * k..<2 * k + s]), serverSalt = Array(material[2 * k + s..<2 * (k + s)])
        switch role {
        case .client:
            self.init(profile: profile, localKey: clientKey, localSalt: clientSalt, remoteKey: serverKey,
                      remoteSalt: serverSalt)
        case .server:
            self.init(profile: profile, localKey: serverKey, localSalt: serverSalt, remoteKey: clientKey,
                      remoteSalt: clientSalt)
        }
    }
}
