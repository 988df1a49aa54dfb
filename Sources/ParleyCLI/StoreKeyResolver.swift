import AccessToken
import ParleyStore

/// Lets an `AccountStore` serve as the verifier's `APIKeyResolver`: active keys only, so revoked
/// keys fail with 20103. Lives here because ParleyStore must not import AccessToken.
struct StoreKeyResolver: APIKeyResolver {
    let store: any AccountStore

    func secret(forKey sid: String) -> (accountSid: String, secret: [UInt8])? {
        guard let key = try? store.activeAPIKey(sid: sid) else { return nil }
        return (key.accountSid, Array(key.secret.utf8))
    }
}
