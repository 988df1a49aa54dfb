import Foundation
import ParleyCrypto
import ParleyStore
import SIPCredentialsREST

/// `parley endpoints create|list|delete`: Plivo-style SIP endpoints of the default account, in the
/// `--db` store (the same ones `/v1/Account/{auth_id}/Endpoint/` manages). `create` prints the SIP
/// username (the given one plus 12 digits) and, this once, the password.
enum EndpointsCommand {
    static let createOptions: Set<String> = ["username", "password", "alias", "app", "realm", Credentials.databaseOption]

    static func run(_ args: [String]) throws -> Int32 {
        guard let sub = args.first else { throw UsageError("endpoints: expected create, list or delete") }
        let rest = args.dropFirst()
        switch sub {
        case "create":
            let parsed = try Arguments(rest, options: createOptions)
            _ = try parsed.positionals(0, "no arguments")
            guard let username = parsed.value("username") else { throw UsageError("endpoints create: --username is required") }
            let password = parsed.value("password") ?? SecureRandom.alphanumeric(20)
            let alias = parsed.value("alias") ?? username
            if let reason = SIPInputRules.endpointUsername(username) ?? SIPInputRules.endpointPassword(password)
                ?? SIPInputRules.name(alias, field: "alias", limit: 100) {
                throw UsageError("endpoints create: \(reason)")
            }
            let store = try Credentials.openStore(parsed)
            let account = try store.ensureDefaultAccount().account
            let app = parsed.value("app")
            if let app {
                guard let found = try store.application(sid: app), found.accountSid == account.sid else {
                    throw UsageError("endpoints create: --app \(app) is not an application of the default account")
                }
            }
            let endpoint = try store.createEndpoint(accountSid: account.sid, username: username, password: password,
                                                    realm: parsed.value("realm") ?? SIPDigestSecret.defaultRealm, alias: alias,
                                                    applicationSid: app)
            print("Endpoint ID:  \(endpoint.id)")
            print("SIP username: \(endpoint.username)")
            print("Password:     \(password)")
            print("Realm:        \(endpoint.secret.realm)")
            if let app { print("Application:  \(app)") }
            Output.error("Keep the password safe: it is stored hashed and never shown again.")
            return 0
        case "list":
            let parsed = try Arguments(rest, options: [Credentials.databaseOption])
            _ = try parsed.positionals(0, "no arguments")
            let store = try Credentials.openExistingStore(parsed)
            var count = 0
            for account in try store.accounts() {
                for endpoint in try store.endpoints(accountSid: account.sid) {
                    print("\(endpoint.id)  \(endpoint.username)  \(endpoint.applicationSid ?? "-")  \(endpoint.alias)")
                    count += 1
                }
            }
            if count == 0 { Output.error("No endpoints.") }
            return 0
        case "delete":
            let parsed = try Arguments(rest, options: [Credentials.databaseOption])
            let id = try parsed.positionals(1, "one endpoint ID")[0]
            let store = try Credentials.openExistingStore(parsed)
            guard try store.deleteEndpoint(id: id) else { throw StoreError.notFound("endpoint \(id)") }
            print("Deleted \(id)")
            return 0
        default:
            throw UsageError("endpoints: unknown subcommand \(sub)")
        }
    }
}
