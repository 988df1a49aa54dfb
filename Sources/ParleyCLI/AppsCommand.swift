import ParleyStore

/// `parley apps create|list|delete`: voice applications (`AP…`) of the default account, in the
/// `--db` store. The server reads them when a token's voice grant names an outgoing application.
enum AppsCommand {
    static let createOptions: Set<String> = ["name", "voice-url", "voice-method", "status-callback",
                                             "status-callback-method", Credentials.databaseOption]

    static func run(_ args: [String]) throws -> Int32 {
        guard let sub = args.first else { throw UsageError("apps: expected create, list or delete") }
        let rest = args.dropFirst()
        switch sub {
        case "create":
            let parsed = try Arguments(rest, options: createOptions)
            _ = try parsed.positionals(0, "no arguments")
            guard let name = parsed.value("name"), !name.isEmpty else { throw UsageError("apps create: --name is required") }
            guard let voiceURL = parsed.value("voice-url") else { throw UsageError("apps create: --voice-url is required") }
            let draft = ApplicationDraft(friendlyName: name, voiceURL: try url(voiceURL, "--voice-url"),
                                         voiceMethod: try method(parsed.value("voice-method"), "--voice-method"),
                                         statusCallback: try parsed.value("status-callback").map { try url($0, "--status-callback") },
                                         statusCallbackMethod: try method(parsed.value("status-callback-method"),
                                                                          "--status-callback-method"))
            let store = try Credentials.openStore(parsed)
            let account = try store.ensureDefaultAccount().account
            let app = try store.createApplication(draft, accountSid: account.sid)
            print("Application SID: \(app.sid)")
            print("Account SID:     \(app.accountSid)")
            print("Voice URL:       \(app.voiceMethod) \(app.voiceURL ?? "")")
            if let callback = app.statusCallback { print("Status callback: \(app.statusCallbackMethod) \(callback)") }
            return 0
        case "list":
            let parsed = try Arguments(rest, options: [Credentials.databaseOption])
            _ = try parsed.positionals(0, "no arguments")
            let store = try Credentials.openExistingStore(parsed)
            var count = 0
            for account in try store.accounts() {
                for app in try store.applications(accountSid: account.sid, friendlyName: nil) {
                    print("\(app.sid)  \(app.voiceMethod) \(app.voiceURL ?? "-")  \(app.friendlyName)")
                    count += 1
                }
            }
            if count == 0 { Output.error("No applications.") }
            return 0
        case "delete":
            let parsed = try Arguments(rest, options: [Credentials.databaseOption])
            let sid = try parsed.positionals(1, "one application SID (AP…)")[0]
            let store = try Credentials.openExistingStore(parsed)
            guard try store.deleteApplication(sid: sid) else { throw StoreError.notFound("application \(sid)") }
            print("Deleted \(sid)")
            return 0
        default:
            throw UsageError("apps: unknown subcommand \(sub)")
        }
    }

    /// An absolute http(s) URL.
    private static func url(_ text: String, _ option: String) throws(UsageError) -> String {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), text.count > 8, !text.contains(" ") else {
            throw UsageError("\(option) must be an http:// or https:// URL, got \(text)")
        }
        return text
    }

    /// GET or POST (default POST).
    private static func method(_ text: String?, _ option: String) throws(UsageError) -> String {
        guard let text else { return "POST" }
        let upper = text.uppercased()
        guard upper == "GET" || upper == "POST" else { throw UsageError("\(option) must be GET or POST, got \(text)") }
        return upper
    }
}
