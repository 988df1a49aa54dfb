import ParleyCore
import ParleyStore
import PlatformCore
import Signaling

/// Credentials that change under live sessions (`CredentialWatcher` reports them).
extension VoiceService {
    /// The API key `apiKeySid` was revoked: every session whose token it signed ends. Its calls end
    /// with 20103 (records, status callbacks and the other parties as for any error ending), then
    /// its client gets `error` 20103 and the socket closes with 4401. Returns how many ended.
    @discardableResult
    package func apiKeyRevoked(_ apiKeySid: String) -> Int {
        let error = ParleyError(.accessTokenIssuerInvalid, reason: "API key \(apiKeySid) was revoked")
        let revoked = sessions.values.filter { $0.token.apiKeySid == apiKeySid }
        for session in revoked {
            let socket = session.socket
            end(session, error: error)
            socket?.refuse(error, ref: nil, code: SignalingCloseCode.unauthorized, reason: "API key revoked")
        }
        if !revoked.isEmpty { Log.info(.signaling, "ended \(revoked.count) sessions of revoked API key \(apiKeySid)") }
        return revoked.count
    }

    /// The account's auth token was rotated. No session authenticated with it (access tokens are
    /// signed with API keys), so nothing ends; live calls sign their later webhooks and status
    /// callbacks with the new token.
    package func authTokenRotated(accountSid: String, authToken: String) {
        for call in calls.values where call.parent.record.accountSid == accountSid {
            call.authToken = authToken
            call.parent.authToken = authToken
            for leg in call.dial?.children ?? [] { leg.authToken = authToken }
        }
    }
}
