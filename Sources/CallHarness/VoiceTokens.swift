import AccessToken
import ParleyServer
import ParleyStore

/// Voice access tokens for an in-process server.
public enum VoiceTokens {
    /// A token for `identity`, signed by `server`'s default API key, that may receive calls.
    public static func mint(_ server: PlatformServer, identity: String, ttl: Int64 = 3600) throws -> String {
        let credentials = server.defaultCredentials
        return try AccessTokenBuilder.mint(accountSid: credentials.account.sid, apiKeySid: credentials.apiKey.sid,
                                           apiSecret: credentials.apiKey.secret, identity: identity, ttl: ttl,
                                           grants: [.voice(VoiceGrant(incomingAllow: true))])
    }
}
