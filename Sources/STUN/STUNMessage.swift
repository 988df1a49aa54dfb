import WireKit

/// A STUN message (RFC 8489 §5): a 20-byte header followed by attributes.
///
///      0                   1                   2                   3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |0 0|     STUN Message Type     |         Message Length        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Magic Cookie                          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     Transaction ID (96 bits)                  |
///
/// Parse with `init(parsing:)`; serialize with `serialize(into:integrity:fingerprint:)`, which can
/// append MESSAGE-INTEGRITY and FINGERPRINT; check those on received bytes with
/// `verifyIntegrity(of:using:)` and `verifyFingerprint(of:)`.
public struct STUNMessage: Sendable, Hashable {
    /// 0x2112A442 (RFC 8489 §5).
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The fixed header size.
    public static let headerSize = 20

    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    /// Attributes in wire order, including MESSAGE-INTEGRITY and FINGERPRINT when parsed.
    public var attributes: [STUNAttribute]

    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// The first attribute of `type`, if any.
    public func attribute(_ type: STUNAttributeType) -> STUNAttribute? {
        attributes.first { $0.type == type }
    }

    /// Unknown comprehension-required types (0x0000–0x7FFF) present in the message: a request
    /// carrying any must be answered 420 with these in UNKNOWN-ATTRIBUTES (RFC 8489 §6.3.1.1).
    public var unknownComprehensionRequired: [STUNAttributeType] {
        attributes.compactMap {
            guard case .unknown(let type, _) = $0, type.isComprehensionRequired else { return nil }
            return type
        }
    }
}

// Typed accessors: each returns the first attribute of its kind.
extension STUNMessage {
    private func first<T>(_ pick: (STUNAttribute) -> T?) -> T? {
        for a in attributes { if let v = pick(a) { return v } }
        return nil
    }

    /// MAPPED-ADDRESS (RFC 8489 §14.1), sent only for RFC 3489 compatibility.
    public var mappedAddress: STUNAddress? { first { if case .mappedAddress(let v) = $0 { v } else { nil } } }
    /// XOR-MAPPED-ADDRESS (RFC 8489 §14.2): the client's reflexive address, decoded.
    public var xorMappedAddress: STUNAddress? { first { if case .xorMappedAddress(let v) = $0 { v } else { nil } } }
    /// USERNAME (RFC 8489 §14.3); for ICE, "remote-ufrag:local-ufrag" (RFC 8445 §7.2.2).
    public var username: String? { first { if case .username(let v) = $0 { v } else { nil } } }
    /// REALM (RFC 8489 §14.9).
    public var realm: String? { first { if case .realm(let v) = $0 { v } else { nil } } }
    /// NONCE (RFC 8489 §14.10).
    public var nonce: String? { first { if case .nonce(let v) = $0 { v } else { nil } } }
    /// SOFTWARE (RFC 8489 §14.14).
    public var software: String? { first { if case .software(let v) = $0 { v } else { nil } } }
    /// ERROR-CODE (RFC 8489 §14.8).
    public var errorCode: STUNErrorCode? { first { if case .errorCode(let v) = $0 { v } else { nil } } }
    /// PRIORITY (RFC 8445 §7.1.1): the peer-reflexive candidate priority.
    public var priority: UInt32? { first { if case .priority(let v) = $0 { v } else { nil } } }
    /// True when USE-CANDIDATE is present (RFC 8445 §7.1.2): the controlling agent nominates this pair.
    public var hasUseCandidate: Bool { attribute(.useCandidate) != nil }
    /// ICE-CONTROLLING's tie-breaker (RFC 8445 §7.1.3).
    public var iceControlling: UInt64? { first { if case .iceControlling(let v) = $0 { v } else { nil } } }
    /// ICE-CONTROLLED's tie-breaker (RFC 8445 §7.1.3).
    public var iceControlled: UInt64? { first { if case .iceControlled(let v) = $0 { v } else { nil } } }
    /// LIFETIME in seconds (RFC 8656 §18.2).
    public var lifetime: UInt32? { first { if case .lifetime(let v) = $0 { v } else { nil } } }
    /// CHANNEL-NUMBER (RFC 8656 §18.1).
    public var channelNumber: UInt16? { first { if case .channelNumber(let v) = $0 { v } else { nil } } }
    /// XOR-RELAYED-ADDRESS (RFC 8656 §18.5): the allocated relay address, decoded.
    public var xorRelayedAddress: STUNAddress? { first { if case .xorRelayedAddress(let v) = $0 { v } else { nil } } }
    /// DATA (RFC 8656 §18.4): the payload of a Send or Data indication.
    public var data: [UInt8]? { first { if case .data(let v) = $0 { v } else { nil } } }
    /// REQUESTED-TRANSPORT protocol number (RFC 8656 §18.8); 17 is UDP.
    public var requestedTransport: UInt8? { first { if case .requestedTransport(let v) = $0 { v } else { nil } } }

    /// All XOR-PEER-ADDRESS values: CreatePermission may carry several (RFC 8656 §9).
    public var xorPeerAddresses: [STUNAddress] {
        attributes.compactMap { if case .xorPeerAddress(let v) = $0 { v } else { nil } }
    }
}
