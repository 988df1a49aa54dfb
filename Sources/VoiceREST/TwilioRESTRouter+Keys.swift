import HTTPWire
import JSONWire
import ParleyCore
import ParleyStore
import PlatformCore

/// `Keys.json` and `Keys/{SK}.json`: the account's API keys, as the vendor's Keys resource (what
/// `client.keys.list()`, `client.new_keys.create(friendly_name=…)`, `client.keys(sid).fetch()` and
/// `.delete()` call). A revoked key is gone here (404, not listed), as a deleted key is there;
/// `parley keys list` still shows it as revoked.
extension TwilioRESTRouter {
    func listOrCreateKeys(_ context: Context) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, POST")
        try Self.requireAuthToken(context)
        let accountSid = context.account.sid
        if context.method == "POST" {
            let name = context.parameters["FriendlyName"] ?? ""
            try Self.checkFriendlyName(name)
            let key = try storeCall { () throws(StoreError) in try store.createAPIKey(accountSid: accountSid, friendlyName: name) }
            Log.info(.platform, "API key \(key.sid) created over REST")
            return Self.json(RESTResourceJSON.key(key, withSecret: true), status: 201)
        }
        let paging = try RESTPaging(context.parameters)
        let active = try storeCall { () throws(StoreError) in try store.apiKeys(accountSid: accountSid) }.filter { !$0.revoked }
        let page = paging.slice(active)
        return Self.json(paging.envelope(key: "keys", records: page.records.map { RESTResourceJSON.key($0, withSecret: false) },
                                         hasMore: page.hasMore, path: context.path, filters: []))
    }

    /// GET one key; DELETE revokes it. What its tokens opened (signaling sessions and their
    /// calls, echo sessions) ends within a second, through `CredentialWatcher`.
    func key(_ context: Context, sid: String) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET, DELETE")
        try Self.requireAuthToken(context)
        guard let key = try storeCall({ () throws(StoreError) in try store.apiKey(sid: sid) }),
              key.accountSid == context.account.sid, !key.revoked else { throw .notFound(context.path) }
        guard context.method == "DELETE" else { return Self.json(RESTResourceJSON.key(key, withSecret: false)) }
        try storeCall { () throws(StoreError) in try store.revokeAPIKey(sid: sid) }
        Log.info(.platform, "API key \(sid) revoked over REST")
        return .status(204)
    }

    /// Keys are managed with the account's auth token only: a leaked API key must not mint more
    /// keys or revoke the others.
    private static func requireAuthToken(_ context: Context) throws(RESTFailure) {
        guard context.apiKeySid == nil else {
            throw RESTFailure(status: 403, code: .accessForbidden,
                              message: "API keys are managed with the account SID and auth token, not with an API key")
        }
    }
}

extension RESTResourceJSON {
    /// A key in the vendor's shape; `secret` only in the answer to its creation.
    static func key(_ k: APIKey, withSecret: Bool) -> JSONValue {
        var object: JSONObject = [
            "sid": .string(k.sid),
            "friendly_name": .string(k.friendlyName),
            "date_created": .string(RESTTime.rfc2822(k.createdAt)),
            "date_updated": .string(RESTTime.rfc2822(k.createdAt)),
        ]
        if withSecret { object["secret"] = .string(k.secret) }
        return .object(object)
    }
}
