import Foundation
import ParleyTestSupport
import Testing

/// The `parley` command line against a real store file.
@Suite(.tags(.process)) struct CLITests {
    @Test func keysAndTokensRoundTrip() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("cli.db").path

        let created = try Executables.run("parley", ["keys", "create", "--name", "ci", "--db", db])
        #expect(created.status == 0, "\(created.stderr)")
        let sids = created.stdout.matches(of: /(AC|SK)[0-9a-f]{32}/).map { String($0.output.0) }
        let keySid = try #require(sids.first { $0.hasPrefix("SK") })
        #expect(sids.contains { $0.hasPrefix("AC") })

        let listed = try Executables.run("parley", ["keys", "list", "--db", db])
        #expect(listed.stdout.contains(keySid))

        let minted = try Executables.run("parley", ["token", "voice", "--identity", "alice", "--incoming",
                                                     "--outgoing-app", "AP" + String(repeating: "0", count: 32),
                                                     "--param", "team=blue", "--region", "au1", "--db", db])
        #expect(minted.status == 0, "\(minted.stderr)")
        let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.split(separator: ".").count == 3)

        let verified = try Executables.run("parley", ["token", "verify", token, "--db", db])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("\"identity\"") && verified.stdout.contains("alice"))
        #expect(verified.stdout.contains("team") && verified.stdout.contains("blue"))
        // The secret never appears in what the CLI prints after creation.
        #expect(!listed.stdout.contains(created.stdout.split(separator: "\n").last.map(String.init) ?? "§"))

        // Revoke the key that signed the token (the store's first active key).
        let issuer = try #require(verified.stdout.firstMatch(of: /"iss":"(SK[0-9a-f]{32})"/)).output.1
        #expect(listed.stdout.contains(issuer))
        let revoked = try Executables.run("parley", ["keys", "revoke", String(issuer), "--db", db])
        #expect(revoked.status == 0)
        let rejected = try Executables.run("parley", ["token", "verify", token, "--db", db])
        #expect(rejected.status != 0)
        #expect(rejected.stderr.contains("20103"))
    }

    @Test func appsAndAccountCommands() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("cli.db").path

        let noStore = try Executables.run("parley", ["account", "--db", db])
        #expect(noStore.status == 2 && !FileManager.default.fileExists(atPath: db))

        let created = try Executables.run("parley", ["apps", "create", "--name", "Main", "--voice-url", "https://app.example.com/voice",
                                                     "--voice-method", "get", "--status-callback", "https://app.example.com/cb",
                                                     "--db", db])
        #expect(created.status == 0, "\(created.stderr)")
        let appSid = try #require(created.stdout.firstMatch(of: /AP[0-9a-f]{32}/)).output
        let accountSid = try #require(created.stdout.firstMatch(of: /AC[0-9a-f]{32}/)).output
        #expect(created.stdout.contains("GET https://app.example.com/voice"))

        let listed = try Executables.run("parley", ["apps", "list", "--db", db])
        #expect(listed.status == 0 && listed.stdout.contains(String(appSid)) && listed.stdout.contains("Main"))

        let account = try Executables.run("parley", ["account", "--db", db])
        #expect(account.status == 0 && account.stdout.contains(String(accountSid)))
        #expect(!account.stdout.contains("Auth token"))
        let shown = try Executables.run("parley", ["account", "--show-auth-token", "--db", db])
        let token = try #require(shown.stdout.firstMatch(of: /Auth token: +([0-9a-f]{32})/)).output.1
        let rotated = try Executables.run("parley", ["account", "--rotate-auth-token", "--db", db])
        let newToken = try #require(rotated.stdout.firstMatch(of: /Auth token: +([0-9a-f]{32})/)).output.1
        #expect(newToken != token)

        let deleted = try Executables.run("parley", ["apps", "delete", String(appSid), "--db", db])
        #expect(deleted.status == 0)
        #expect(!(try Executables.run("parley", ["apps", "list", "--db", db])).stdout.contains(String(appSid)))
        let again = try Executables.run("parley", ["apps", "delete", String(appSid), "--db", db])
        #expect(again.status == 1 && again.stderr.contains("not found"))
        for bad in [["apps", "create", "--name", "x", "--db", db],
                    ["apps", "create", "--name", "x", "--voice-url", "ftp://x/y", "--db", db],
                    ["apps", "create", "--name", "x", "--voice-url", "https://x/y", "--voice-method", "PUT", "--db", db]] {
            #expect(try Executables.run("parley", bad).status == 2, "\(bad)")
        }
    }

    @Test func expiredTokenPrintsItsCode() throws {
        let env = ["PARLEY_ACCOUNT_SID": "AC" + String(repeating: "a", count: 32),
                   "PARLEY_API_KEY": "SK" + String(repeating: "b", count: 32),
                   "PARLEY_API_SECRET": "secret-for-tests"]
        let minted = try Executables.run("parley", ["token", "video", "--identity", "bob", "--room", "r1", "--ttl", "1"],
                                         environment: env)
        #expect(minted.status == 0, "\(minted.stderr)")
        let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        Thread.sleep(forTimeInterval: 2.2)
        let result = try Executables.run("parley", ["token", "verify", token, "--leeway", "0"], environment: env)
        #expect(result.status != 0)
        #expect(result.stderr.contains("20104"))
        #expect(result.stderr.contains("AccessTokenExpiredError"))
    }
}
