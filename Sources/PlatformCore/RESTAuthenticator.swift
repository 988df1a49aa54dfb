import Foundation
import HTTPWire
import ParleyCore
import ParleyCrypto
import ParleyStore

/// HTTP Basic authentication (RFC 7617) for the REST API, as the vendor's: the user name is an API
/// key SID (`SK…`) with its secret, or the account SID (`AC…`) with the account's auth token. The
/// credential's account must be the one in the URL. Secrets are compared in constant time and
/// never logged.
package struct RESTAuthenticator: Sendable {
    package let store: any PlatformStore

    package init(store: any PlatformStore) { self.store = store }

    /// The account the credentials prove, if they are valid for `accountSid`, and the API key they
    /// name (nil for the account's auth token).
    package func authenticate(_ request: HTTPRequest, accountSid: String) throws(RESTFailure) -> (account: Account, apiKeySid: String?) {
        guard let (user, password) = Self.basicCredentials(request) else { throw .authenticate() }
        let owner: String?
        if user.hasPrefix("SK") {
            let key = try storeCall { () throws(StoreError) in try store.activeAPIKey(sid: user) }
            owner = key.flatMap { ConstantTime.equals(Array($0.secret.utf8), Array(password.utf8)) ? $0.accountSid : nil }
        } else if user.hasPrefix("AC") {
            let account = try storeCall { () throws(StoreError) in try store.account(sid: user) }
            owner = account.flatMap {
                !$0.authToken.isEmpty && ConstantTime.equals(Array($0.authToken.utf8), Array(password.utf8)) ? $0.sid : nil
            }
        } else {
            owner = nil
        }
        guard let owner else {
            // Only a well-formed SID is echoed: a user name could be a pasted secret.
            let who = SID.isValid(user, prefix: "SK") || SID.isValid(user, prefix: "AC") ? user : "a malformed user name"
            Log.info(.platform, "REST request with bad credentials for \(who)")
            throw .authenticate()
        }
        guard owner == accountSid,
              let account = try storeCall({ () throws(StoreError) in try store.account(sid: accountSid) }) else {
            let target = SID.isValid(accountSid, prefix: "AC") ? accountSid : "a malformed account SID"
            Log.info(.platform, "REST credentials of \(owner) used for \(target)")
            throw .authenticate()
        }
        return (account, user.hasPrefix("SK") ? user : nil)
    }

    /// `(user, password)` from `Authorization: Basic base64(user:password)`, or nil.
    package static func basicCredentials(_ request: HTTPRequest) -> (String, String)? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", parts[1].utf8.count <= 1024,
              let data = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
