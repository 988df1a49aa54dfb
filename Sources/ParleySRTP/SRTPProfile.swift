import ParleyCore

/// The SRTP protection profiles Parley supports: the one profile type of the project. DTLS-SRTP
/// negotiates them by `protectionProfileID` (RFC 5764 §4.1.2) and SDES (`a=crypto`, RFC 4568) by
/// name; keys reach `SRTPContext` through `SRTPKeyingMaterial`.
public enum SRTPProfile: Sendable, Hashable, CaseIterable {
    /// AES-128 counter mode with an 80-bit HMAC-SHA1 tag (RFC 3711 §4, RFC 5764 §4.1.2).
    case aes128CMHMACSHA1_80
    /// AES-128-GCM with a 16-byte tag (RFC 7714 §14.2).
    case aeadAES128GCM

    /// The DTLS-SRTP protection profile id (IANA "DTLS-SRTP Protection Profiles"), so owners can
    /// map the profile a DTLS handshake negotiated: 0x0001 and 0x0007.
    public var protectionProfileID: UInt16 {
        switch self {
        case .aes128CMHMACSHA1_80: 0x0001
        case .aeadAES128GCM: 0x0007
        }
    }

    /// What DTLS-SRTP offers, most preferred first: GCM (what Chromium picks), then AES-CM.
    public static let negotiationOrder: [SRTPProfile] = [.aeadAES128GCM, .aes128CMHMACSHA1_80]

    /// The profile with the given DTLS-SRTP id, or nil if it is not supported.
    public init?(protectionProfileID: UInt16) {
        guard let profile = Self.allCases.first(where: { $0.protectionProfileID == protectionProfileID }) else {
            return nil
        }
        self = profile
    }

    /// Master key length in bytes.
    public var keyLength: Int { 16 }

    /// Master salt length in bytes: 14 for AES-CM (RFC 3711 §8.2), 12 for GCM (RFC 7714 §12).
    public var saltLength: Int {
        switch self {
        case .aes128CMHMACSHA1_80: 14
        case .aeadAES128GCM: 12
        }
    }
}

/// Master keys for one SRTP session, split by direction: `local` protects what this endpoint
/// sends, `remote` unprotects what it receives.
public struct SRTPKeyingMaterial: Sendable, Hashable {
    public var profile: SRTPProfile
    public var localKey: [UInt8]
    public var localSalt: [UInt8]
    public var remoteKey: [UInt8]
    public var remoteSalt: [UInt8]

    public init(profile: SRTPProfile, localKey: [UInt8], localSalt: [UInt8], remoteKey: [UInt8],
                remoteSalt: [UInt8]) {
        self.profile = profile
        self.localKey = localKey
        self.localSalt = localSalt
        self.remoteKey = remoteKey
        self.remoteSalt = remoteSalt
    }

    /// The exporter label of DTLS-SRTP (RFC 5764 §4.2).
    public static let exporterLabel = "EXTRACTOR-dtls_srtp"

    /// Derives the keys from a finished DTLS handshake (RFC 5764 §4.2): exports
    /// `2 × (key + salt)` bytes labelled `EXTRACTOR-dtls_srtp`, laid out as
    /// `client key | server key | client salt | server salt`.
    public init(exporter: some SRTPKeyingMaterialExporter, profile: SRTPProfile,
                isClient: Bool) throws(ParleyError) {
        let k = profile.keyLength, s = profile.saltLength
        let material = try exporter.exportKeyingMaterial(label: Self.exporterLabel, length: 2 * (k + s))
        guard material.count == 2 * (k + s) else {
            throw ParleyError(.mediaDtlsTransportFailed, reason: "exporter returned \(material.count) bytes")
        }
        let clientKey = Array(material[0..<k]), serverKey = Array(material[k..<2 * k])
        let clientSalt = Array(material[2 * k..<2 * k + s]), serverSalt = Array(material[(2 * k + s)...])
        self.init(profile: profile, localKey: isClient ? clientKey : serverKey,
                  localSalt: isClient ? clientSalt : serverSalt, remoteKey: isClient ? serverKey : clientKey,
                  remoteSalt: isClient ? serverSalt : clientSalt)
    }
}

/// What SRTP needs from DTLS: an RFC 5705 keying-material exporter. Defined here, by the
/// consumer, so ParleySRTP never imports the DTLS implementation (pion/srtp `keying.go`).
/// `DTLSSession` in ParleyCrypto has a method of exactly this shape; WebRTC adapts it
/// (`DTLSSRTPKeying`), where both modules are visible.
public protocol SRTPKeyingMaterialExporter {
    /// `length` bytes of keying material for `label`, without a context value.
    func exportKeyingMaterial(label: String, length: Int) throws(ParleyError) -> [UInt8]
}
