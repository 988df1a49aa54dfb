import ParleyStore

/// `parley account [--show-auth-token] [--rotate-auth-token]`: the default account of the `--db`
/// store, its SID and Plivo-style auth ID. The auth token (REST Basic auth with the account SID, and the key webhooks are signed
/// with) is printed only on request.
enum AccountCommand {
    static func run(_ args: [String]) throws -> Int32 {
        let parsed = try Arguments(args, options: [Credentials.databaseOption],
                                   flags: ["show-auth-token", "rotate-auth-token"])
        _ = try parsed.positionals(0, "no arguments")
        let path = Credentials.databasePath(parsed)
        guard fileExists(path) else {
            throw UsageError("no store at \(path): start parley-server or run `parley keys create` first")
        }
        let store = try Credentials.openStore(parsed)
        var account = try store.ensureDefaultAccount().account
        if parsed.has("rotate-auth-token") {
            account = try store.rotateAuthToken(accountSid: account.sid)
            Output.error("Rotated the auth token: the old one no longer authenticates or validates webhooks.")
        }
        print("Account SID: \(account.sid)")
        print("Auth ID:     \(account.authID)")
        if parsed.has("show-auth-token") || parsed.has("rotate-auth-token") {
            print("Auth token:  \(account.authToken)")
        }
        return 0
    }
}
