import AccessToken
import Foundation
import JSONWire
import ParleyCore
import ParleyServer
import PlatformCore

/// `parley token voice|video|verify`.
enum TokenCommand {
    static let common: Set<String> = Credentials.options.union(["identity", "ttl", "region"])

    static func run(_ args: [String], environment: [String: String]) throws -> Int32 {
        guard let sub = args.first else { throw UsageError("token: expected voice, video or verify") }
        let rest = args.dropFirst()
        switch sub {
        case "voice":
            let parsed = try Arguments(rest, options: common.union(["outgoing-app", "push-credential", "param", "endpoint-id"]),
                                       flags: ["incoming"])
            var params: [String: String] = [:]
            for pair in parsed.all("param") {
                guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                    throw UsageError("--param must be key=value, got \(pair)")
                }
                params[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            if !params.isEmpty, parsed.value("outgoing-app") == nil {
                throw UsageError("--param needs --outgoing-app (params belong to the outgoing application)")
            }
            let grant = VoiceGrant(incomingAllow: parsed.has("incoming"), outgoingApplicationSid: parsed.value("outgoing-app"),
                                   outgoingApplicationParams: params, pushCredentialSid: parsed.value("push-credential"),
                                   endpointId: parsed.value("endpoint-id"))
            return try mint(parsed, grant: .voice(grant), environment: environment)
        case "video":
            let parsed = try Arguments(rest, options: common.union(["room"]), flags: ["no-publish", "no-subscribe", "no-data"])
            // Parley's finer grants: written only when they take something away.
            let grant = VideoGrant(room: parsed.value("room"), canPublish: parsed.has("no-publish") ? false : nil,
                                   canSubscribe: parsed.has("no-subscribe") ? false : nil,
                                   canPublishData: parsed.has("no-data") ? false : nil)
            return try mint(parsed, grant: .video(grant), environment: environment)
        case "verify":
            let parsed = try Arguments(rest, options: Credentials.options.union(["leeway"]))
            let jwt = try parsed.positionals(1, "one JWT")[0]
            let credentials = try Credentials.resolveForVerify(parsed, environment: environment)
            let leeway = try parsed.integer("leeway") ?? 60
            let verifier = AccessTokenVerifier(resolver: credentials, leeway: leeway)
            do {
                let token = try verifier.verify(jwt)
                print(String(decoding: JSONValue.object(token.claims).serialized(), as: UTF8.self))
                return 0
            } catch {
                Output.error(error.description)
                return 1
            }
        default:
            throw UsageError("token: unknown subcommand \(sub)")
        }
    }

    private static func mint(_ parsed: Arguments, grant: AccessTokenGrant, environment: [String: String]) throws -> Int32 {
        _ = try parsed.positionals(0, "no positional arguments")
        guard let identity = parsed.value("identity") else { throw UsageError("--identity is required") }
        let ttl = try parsed.integer("ttl") ?? 3600
        let credentials = try Credentials.resolve(parsed, environment: environment)
        do {
            let jwt = try AccessTokenBuilder.mint(accountSid: credentials.accountSid, apiKeySid: credentials.apiKeySid,
                                                  apiSecret: credentials.apiSecret, identity: identity,
                                                  ttl: ttl, grants: [grant],
                                                  region: parsed.value("region"))
            print(jwt)
            return 0
        } catch {
            Output.error(error.description)
            return 1
        }
    }
}

extension Credentials {
    /// For `token verify`: explicit credentials verify against that one key; otherwise every active
    /// key in the store does.
    static func resolveForVerify(_ args: Arguments, environment: [String: String]) throws -> any APIKeyResolver {
        let explicit = ["account-sid", "api-key", "api-secret"].contains { args.value($0) != nil }
            || ["PARLEY_ACCOUNT_SID", "PARLEY_API_KEY", "PARLEY_API_SECRET"].contains { environment[$0] != nil }
        if explicit { return try resolve(args, environment: environment).resolver }
        return StoreKeyResolver(store: try openExistingStore(args))
    }
}
