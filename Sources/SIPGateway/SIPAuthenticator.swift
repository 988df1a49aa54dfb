import Foundation
import ParleyCore
import ParleyCrypto
import ParleyNet
import SIP
import SIPWire
import Synchronization

/// Digest authentication of requests (RFC 3261 §22, RFC 7616/8760) for the registrar (401,
/// `Authorization`) and calls (407, `Proxy-Authorization`): every candidate credential is tried,
/// an unknown user costs the same work as a wrong password (the verifier's decoy), and a source
/// with 5 failures in 60 s is refused for 5 minutes (`AuthFailureLimiter`).
final class SIPAuthenticator: Sendable {
    enum Outcome: Sendable {
        /// No credentials, or a stale nonce: challenge again.
        case challenge(stale: Bool)
        case refused
        case authenticated(SIPCredential)
    }

    /// Which header pair a request authenticates with.
    enum Role: Sendable {
        case registrar, proxy

        var credentialsHeader: String { self == .registrar ? "Authorization" : "Proxy-Authorization" }
        var challengeHeader: String { self == .registrar ? "WWW-Authenticate" : "Proxy-Authenticate" }
        var challengeStatus: Int { self == .registrar ? 401 : 407 }
    }

    private let directory: any SIPCredentialDirectory
    private let verifier: DigestVerifier
    private let limiter = Mutex(AuthFailureLimiter())

    init(realm: String, algorithms: [DigestAlgorithm], directory: any SIPCredentialDirectory) {
        self.directory = directory
        verifier = DigestVerifier(realm: realm, algorithms: algorithms)
    }

    /// Whether `peer`'s address is refused now (answer it statelessly, hold nothing for it).
    func isBlocked(_ peer: SIPPeer, now: Double) -> Bool {
        limiter.withLock { $0.isBlocked(Self.source(of: peer), now: now) }
    }

    /// Checks `request` for `user` at `domain`.
    func authenticate(_ request: SIPRequest, user: String, domain: String, role: Role, peer: SIPPeer, now: Double) -> Outcome {
        guard let presented = try? request.headers.first(role.credentialsHeader, as: SIPDigestCredentials.self) else {
            return .challenge(stale: false)
        }
        let candidates = presented.username == user ? directory.credentials(username: user, domain: domain) : []
        let credentials = DigestCredentials(presented)
        let method = request.method.description
        var verdict = verifier.verify(credentials, method: method, storedHA1: candidates.first?.userHashes, now: now)
        var credential = candidates.first
        for candidate in candidates.dropFirst() where verdict != .authenticated && verdict != .stale {
            verdict = verifier.verify(credentials, method: method, storedHA1: candidate.userHashes, now: now)
            credential = candidate
        }
        switch verdict {
        case .stale:
            return .challenge(stale: true)
        case .rejected(let reason):
            Log.debug(.core, "SIP \(method) from \(peer) refused: \(reason.rawValue)")
            limiter.withLock { _ = $0.failed(Self.source(of: peer), now: now) }
            return .refused
        case .authenticated:
            limiter.withLock { $0.succeeded(Self.source(of: peer)) }
            return credential.map(Outcome.authenticated) ?? .refused
        }
    }

    /// The challenge response to `request`.
    func challenge(_ request: SIPRequest, role: Role, toTag: String, stale: Bool, now: Double) -> SIPResponse {
        var headers = SIPHeaders()
        for value in verifier.challenges(now: now, stale: stale) { headers.add(role.challengeHeader, value) }
        return SIPResponse(replyingTo: request, statusCode: role.challengeStatus, toTag: toTag, headers: headers)
    }

    /// `challenge(…)` written straight to bytes (the registrar's hot path).
    func challengeReply(_ request: SIPRequest, role: Role, toTag: String, stale: Bool, now: Double) -> SIPReplyWriter {
        var reply = SIPReplyWriter(replyingTo: request, statusCode: role.challengeStatus, toTag: toTag)
        for value in verifier.challenges(now: now, stale: stale) { reply.add(role.challengeHeader, value) }
        return reply
    }

    /// The address failures are counted by (without the port: a client may change it at will).
    static func source(of peer: SIPPeer) -> String { Hex.encode(peer.address.ipBytes) }
}

extension DigestCredentials {
    /// What a parsed Authorization or Proxy-Authorization header says, for the verifier.
    init(_ parsed: SIPDigestCredentials) {
        self.init(username: parsed.username, realm: parsed.realm, nonce: parsed.nonce, uri: parsed.uri, response: parsed.response,
                  algorithm: parsed.algorithm, qop: parsed.qop, nc: parsed.nonceCount, cnonce: parsed.cnonce)
    }
}
