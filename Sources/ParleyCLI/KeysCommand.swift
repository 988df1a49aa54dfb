import Foundation
import ParleyStore

/// `parley keys create|list|revoke`.
enum KeysCommand {
    static func run(_ args: [String]) throws -> Int32 {
        guard let sub = args.first else { throw UsageError("keys: expected create, list or revoke") }
        let rest = args.dropFirst()
        switch sub {
        case "create":
            let parsed = try Arguments(rest, options: ["name", Credentials.databaseOption])
            _ = try parsed.positionals(0, "no arguments")
            let store = try Credentials.openStore(parsed)
            let defaults = try store.ensureDefaultAccount()
            let key: APIKey
            if defaults.created, parsed.value("name") == nil {
                key = defaults.apiKey
            } else {
                key = try store.createAPIKey(accountSid: defaults.account.sid, friendlyName: parsed.value("name") ?? "CLI key")
            }
            print("Account SID: \(key.accountSid)")
            print("Auth ID:     \(defaults.account.authID)")
            print("API key SID: \(key.sid)")
            print("API secret:  \(key.secret)")
            Output.error("Keep the secret safe: `parley keys list` does not show it.")
            return 0
        case "list":
            let parsed = try Arguments(rest, options: [Credentials.databaseOption])
            _ = try parsed.positionals(0, "no arguments")
            let store = try Credentials.openExistingStore(parsed)
            let keys = try store.apiKeys(accountSid: nil)
            if keys.isEmpty { Output.error("No API keys.") }
            for key in keys {
                let created = Date(timeIntervalSince1970: TimeInterval(key.createdAt)).formatted(.iso8601)
                print("\(key.sid)  \(key.accountSid)  \(key.revoked ? "revoked" : "active ")  \(created)  \(key.friendlyName)")
            }
            return 0
        case "revoke":
            let parsed = try Arguments(rest, options: [Credentials.databaseOption])
            let sid = try parsed.positionals(1, "one API key SID (SK…)")[0]
            let store = try Credentials.openExistingStore(parsed)
            try store.revokeAPIKey(sid: sid)
            print("Revoked \(sid)")
            return 0
        default:
            throw UsageError("keys: unknown subcommand \(sub)")
        }
    }
}
