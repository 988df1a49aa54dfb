import Foundation
import HTTPWire
import ParleyCore
import ParleyNet
import ParleyServer
import ParleyStore
import ParleyTestSupport

/// The REST API of a `VoiceHarness` server, over HTTP with the default API key.
extension VoiceHarness {
    var accountPath: String { "/2010-04-01/Accounts/\(credentials.account.sid)" }

    /// `method path` with `form` as the body; `path` is under the account (`/Calls.json`).
    func rest(_ method: String, _ path: String, _ form: [(String, String)] = []) async throws -> HTTPResponse {
        let http = try HTTPClient()
        defer { http.shutdown() }
        var headers = RESTFixture.basic(credentials.apiKey.sid, credentials.apiKey.secret)
        var body: [UInt8] = []
        if !form.isEmpty {
            headers.set("Content-Type", "application/x-www-form-urlencoded")
            body = Array(FormURLEncoding.encode(form).utf8)
        }
        return try await http.send(HTTPRequest(method: method, target: "/", headers: headers, body: body),
                                   to: baseURL + accountPath + path)
    }

    /// Polls the call's row until `done` holds (or 10 s pass); returns the last row read.
    @discardableResult
    func waitForCall(_ sid: String, timeout: Duration = .seconds(10), until done: (CallRecord) -> Bool) async throws -> CallRecord? {
        let deadline = ContinuousClock.now + timeout
        var last = try store.call(sid: sid)
        while ContinuousClock.now < deadline {
            if let row = last, done(row) { return row }
            try await Task.sleep(for: .milliseconds(20))
            last = try store.call(sid: sid)
        }
        return last
    }

    /// Polls the test app until `path` has had `count` requests (or 10 s pass).
    func waitForRequests(_ path: String, count: Int = 1, timeout: Duration = .seconds(10)) async throws -> [TwiMLTestApp.Request] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, app.requests(path).count < count { try await Task.sleep(for: .milliseconds(20)) }
        return app.requests(path)
    }
}

/// The parties a test opened, closed when it ends (passed or failed).
final class OpenParties {
    private(set) var all: [TestParty] = []

    func add(_ party: TestParty) -> TestParty {
        all.append(party)
        return party
    }
}

extension VoiceHarness {
    /// Runs `body` on a fresh harness; its parties and the harness are closed however `body` ends.
    static func run(clock: any MonotonicClock = SystemClock(), configure: (inout ServerConfiguration) -> Void = { _ in },
                    _ body: (VoiceHarness, OpenParties) async throws -> Void) async throws {
        let h = try await start(clock: clock, configure: configure)
        let parties = OpenParties()
        do {
            try await body(h, parties)
        } catch {
            for party in parties.all { await party.close() }
            await h.stop()
            throw error
        }
        for party in parties.all { await party.close() }
        await h.stop()
    }
}
