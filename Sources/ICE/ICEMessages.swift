import STUN
import WireKit

/// How an agent classified a received datagram that should be STUN (RFC 8489 §6.3, §9.1.3;
/// RFC 8445 §7.3).
enum InboundSTUN {
    /// Not a well-formed STUN message, or its FINGERPRINT is wrong (or, on a Binding request,
    /// missing): "not STUN" and silently discarded (RFC 8489 §7.3, RFC 8445 §7.2.2).
    case malformed
    /// A well-formed message other than a Binding request: a response or an indication.
    case other(STUNMessage)
    /// A Binding request to answer with this error, signed with `signWith` once the request has
    /// authenticated (RFC 8489 §9.1.4: 400 and 401 answers carry no MESSAGE-INTEGRITY).
    case reject(STUNMessage, STUNErrorCode, unknown: [STUNAttributeType], signWith: ICECredentials?)
    /// A Binding request that authenticated with `credentials` (one of the local sets tried).
    case authenticated(STUNMessage, credentials: ICECredentials)
}

/// One set of credentials under which checks are accepted: ours and, once signalled, the
/// peer's ufrag (RFC 8445 §7.3: USERNAME is "<local ufrag>:<remote ufrag>").
struct CredentialGeneration: Sendable, Hashable {
    var local: ICECredentials
    var remoteUfrag: String?
}

/// Builders and the inbound check shared by `ICELiteAgent` and `ICEAgent`.
enum ICEMessages {
    /// Classifies `bytes` against the accepted credential generations (current first, then one
    /// still honoured during an ICE restart): local credentials and, when known, the remote ufrag.
    static func classify(_ bytes: UnsafeRawBufferPointer, accepting generations: [CredentialGeneration],
                         hmac: @escaping HMACFunction) -> InboundSTUN {
        guard STUNMessage.looksLikeSTUN(bytes),
              let message = try? STUNMessage(parsing: bytes),
              let fingerprint = try? STUNMessage.verifyFingerprint(of: bytes),
              fingerprint != .invalid else { return .malformed }
        guard message.type == .bindingRequest else { return .other(message) }
        // RFC 8445 §7.2.2: checks carry FINGERPRINT.
        guard fingerprint == .valid else { return .malformed }
        // RFC 8489 §9.1.3: no USERNAME or no MESSAGE-INTEGRITY → 400.
        guard let username = message.username, message.attribute(.messageIntegrity) != nil else {
            return .reject(message, .badRequest, unknown: [], signWith: nil)
        }
        // RFC 8445 §7.3: USERNAME is "<our ufrag>:<their ufrag>"; an unknown one → 401.
        let parts = username.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2,
              let generation = generations.first(where: {
                  $0.local.ufrag == parts[0] && ($0.remoteUfrag == nil || $0.remoteUfrag == String(parts[1]))
              }) else {
            return .reject(message, .unauthenticated, unknown: [], signWith: nil)
        }
        let credentials = generation.local
        let integrity = STUNIntegrity.sha1(key: STUNIntegrity.shortTermKey(password: credentials.pwd), hmac: hmac)
        guard (try? STUNMessage.verifyIntegrity(of: bytes, using: integrity)) == .valid else {
            return .reject(message, .unauthenticated, unknown: [], signWith: nil)
        }
        // RFC 8489 §6.3.1.1: unknown comprehension-required attributes → 420.
        let unknown = message.unknownComprehensionRequired
        guard unknown.isEmpty else { return .reject(message, .unknownAttribute, unknown: unknown, signWith: credentials) }
        return .authenticated(message, credentials: credentials)
    }

    /// Serializes with MESSAGE-INTEGRITY keyed by `password` (when given) and FINGERPRINT.
    static func encode(_ message: STUNMessage, password: String?, hmac: @escaping HMACFunction) -> [UInt8] {
        encode(message, key: password.map { STUNIntegrity.shortTermKey(password: $0) }, hmac: hmac)
    }

    /// Serializes with MESSAGE-INTEGRITY under `key` (when given) and FINGERPRINT.
    static func encode(_ message: STUNMessage, key: [UInt8]?, hmac: @escaping HMACFunction,
                       fingerprint: Bool = true) -> [UInt8] {
        let integrity = key.map { STUNIntegrity.sha1(key: $0, hmac: hmac) }
        // Only a message over 65,535 bytes fails; ICE and TURN control messages are far smaller.
        return (try? message.serialized(integrity: integrity, fingerprint: fingerprint)) ?? []
    }

    /// A Binding success response: XOR-MAPPED-ADDRESS of the request's source, signed with the
    /// local password (RFC 8445 §7.3.1.1, RFC 8489 §6.3.1.1).
    static func bindingSuccess(to request: STUNMessage, mapped: ICETransportAddress, password: String,
                               hmac: @escaping HMACFunction) -> [UInt8] {
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID,
                                   attributes: [.xorMappedAddress(mapped.stunAddress)])
        return encode(response, password: password, hmac: hmac)
    }

    /// A Binding error response; signed with `password` when the request authenticated.
    static func bindingError(to request: STUNMessage, error: STUNErrorCode, unknown: [STUNAttributeType] = [],
                             password: String?, hmac: @escaping HMACFunction) -> [UInt8] {
        var attributes: [STUNAttribute] = [.errorCode(error)]
        if !unknown.isEmpty { attributes.append(.unknownAttributes(unknown)) }
        let response = STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: attributes)
        return encode(response, password: password, hmac: hmac)
    }

    /// A connectivity check (RFC 8445 §7.2.2): USERNAME "<remote ufrag>:<local ufrag>",
    /// PRIORITY, ICE-CONTROLLING or ICE-CONTROLLED, optionally USE-CANDIDATE, signed with the
    /// remote password, then FINGERPRINT.
    static func check(id: STUNTransactionID, local: ICECredentials, remote: ICECredentials, priority: UInt32,
                      role: ICERole, tieBreaker: UInt64, useCandidate: Bool,
                      hmac: @escaping HMACFunction) -> [UInt8] {
        var attributes: [STUNAttribute] = [
            .username("\(remote.ufrag):\(local.ufrag)"),
            .priority(priority),
            role == .controlling ? .iceControlling(tieBreaker) : .iceControlled(tieBreaker),
        ]
        if useCandidate { attributes.append(.useCandidate) }
        let request = STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
        return encode(request, password: remote.pwd, hmac: hmac)
    }

    /// True when `bytes` carries MESSAGE-INTEGRITY valid under `password` (responses to checks,
    /// RFC 8445 §7.2.5.1).
    static func hasValidIntegrity(_ bytes: UnsafeRawBufferPointer, password: String,
                                  hmac: @escaping HMACFunction) -> Bool {
        hasValidIntegrity(bytes, key: STUNIntegrity.shortTermKey(password: password), hmac: hmac)
    }

    static func hasValidIntegrity(_ bytes: UnsafeRawBufferPointer, key: [UInt8], hmac: @escaping HMACFunction) -> Bool {
        (try? STUNMessage.verifyIntegrity(of: bytes, using: .sha1(key: key, hmac: hmac))) == .valid
    }
}
