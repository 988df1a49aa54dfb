import AccessToken
import ParleyStore

/// Lets an `AccountStore` serve as the token verifier's `APIKeyResolver`: active keys only, so a
/// revoked key fails with 20103. Lives in the server layer because ParleyStore must not import
/// AccessToken.
public struct StoreKeyResolver: APIKeyResolver {
    public let store: any AccountStore

    public init(store: any AccountStore) { self.store = store }

    public func secret(forKey sid: String) -> (accountSid: String, secret: [UInt8])? {
        guard let key = try? store.activeAPIKey(sid: sid) else { return nil }
        return (key.accountSid, Array(key.secret.utf8))
    }
}
