import AccessToken
import ParleyStore

/// The account, API key and secret a command signs or verifies with.
struct Credentials: Sendable {
    let accountSid: String
    let apiKeySid: String
    let apiSecret: String

    static let databaseOption = "db"
    static let defaultDatabasePath = "./parley.db"
    static let options: Set<String> = ["account-sid", "api-key", "api-secret", databaseOption]

    /// Flags first (`--account-sid --api-key --api-secret`), else the environment
    /// (`PARLEY_ACCOUNT_SID`, `PARLEY_API_KEY`, `PARLEY_API_SECRET`), each name on its own; if none
    /// of the three is set anywhere, the store (`--db`, default `./parley.db`) and its oldest active key.
    static func resolve(_ args: Arguments, environment: [String: String]) throws -> Credentials {
        let account = args.value("account-sid") ?? environment["PARLEY_ACCOUNT_SID"]
        let key = args.value("api-key") ?? environment["PARLEY_API_KEY"]
        let secret = args.value("api-secret") ?? environment["PARLEY_API_SECRET"]
        if let account, let key, let secret {
            return Credentials(accountSid: account, apiKeySid: key, apiSecret: secret)
        }
        if account != nil || key != nil || secret != nil {
            throw UsageError("incomplete credentials: give all of --account-sid, --api-key and --api-secret "
                             + "(or PARLEY_ACCOUNT_SID, PARLEY_API_KEY, PARLEY_API_SECRET)")
        }
        let store = try openExistingStore(args)
        guard let active = try store.firstActiveAPIKey() else {
            throw UsageError("no active API key in \(databasePath(args)); run `parley keys create`")
        }
        return Credentials(accountSid: active.accountSid, apiKeySid: active.sid, apiSecret: active.secret)
    }

    static func databasePath(_ args: Arguments) -> String {
        args.value(databaseOption) ?? defaultDatabasePath
    }

    /// Opens (creating if needed) the store named by `--db`.
    static func openStore(_ args: Arguments) throws -> SQLiteAccountStore {
        try SQLiteAccountStore(path: databasePath(args))
    }

    /// Opens the store only if its file exists, so a stray command does not create `parley.db`.
    static func openExistingStore(_ args: Arguments) throws -> SQLiteAccountStore {
        let path = databasePath(args)
        guard fileExists(path) else {
            throw UsageError("no credentials: pass --account-sid/--api-key/--api-secret, set PARLEY_ACCOUNT_SID/"
                             + "PARLEY_API_KEY/PARLEY_API_SECRET, or create \(path) with `parley keys create`")
        }
        return try openStore(args)
    }

    /// A resolver that knows only these credentials' key.
    var resolver: any APIKeyResolver { SingleKeyResolver(credentials: self) }
}

/// Resolves exactly one key: the one given on the command line or in the environment.
struct SingleKeyResolver: APIKeyResolver {
    let credentials: Credentials
    func secret(forKey sid: String) -> (accountSid: String, secret: [UInt8])? {
        guard sid == credentials.apiKeySid else { return nil }
        return (credentials.accountSid, Array(credentials.apiSecret.utf8))
    }
}

