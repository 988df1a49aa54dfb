import Foundation
import Testing

/// The `parley` command line against a real store file.
@Suite struct CLITests {
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
