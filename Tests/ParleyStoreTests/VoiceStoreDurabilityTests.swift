import Foundation
import ParleyCore
import ParleyStore
import ParleyTestSupport
import Testing

/// The SQLite store across restarts: reopening, migrating a version-1 file, and `kill -9` of a writer.
@Suite(.tags(.process)) struct VoiceStoreDurabilityTests {
    @Test func everyCommittedCallSurvivesReopen() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        var written: [CallRecord] = []
        do {
            let store = try SQLiteAccountStore(path: path)
            let account = try store.ensureDefaultAccount().account
            for i in 0..<200 {
                var call = CallRecord.sample(account: account.sid, start: Int64(i))
                try store.insertCall(call)
                if i % 3 == 0 {
                    call.status = .completed
                    call.endTime = call.startTime + 9
                    call.duration = 9
                    try store.updateCall(call)
                }
                written.append(call)
            }
        }  // the store (and its connection) is released here, as when a server stops
        let reopened = try SQLiteAccountStore(path: path)
        let account = try reopened.ensureDefaultAccount().account
        let found = try reopened.calls(CallQuery(accountSid: account.sid, limit: 1000))
        #expect(found.count == written.count)
        #expect(Set(found.map(\.sid)) == Set(written.map(\.sid)))
        for call in written.prefix(20) { #expect(try reopened.call(sid: call.sid) == call) }
    }

    @Test func applicationsRecordingsAndBindingsSurviveReopen() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let (account, app, binding, recording) = try {
            let store = try SQLiteAccountStore(path: path)
            let account = try store.ensureDefaultAccount().account
            let app = try store.createApplication(ApplicationDraft(friendlyName: "main", voiceURL: "http://x/voice"),
                                                  accountSid: account.sid)
            let binding = try store.upsertBinding(PushBinding(sid: SID.make("BS"), accountSid: account.sid, identity: "bob",
                                                              provider: "apns", deviceToken: "00ff", createdAt: 10,
                                                              expiresAt: 10 + PushBinding.timeToLive))
            let recording = RecordingRecord.sample(account: account.sid, call: SID.make("CA"), created: 20)
            try store.insertRecording(recording)
            return (account, app, binding, recording)
        }()
        let reopened = try SQLiteAccountStore(path: path)
        #expect(try reopened.ensureDefaultAccount().account == account)
        #expect(try reopened.application(sid: app.sid) == app)
        #expect(try reopened.bindings(accountSid: account.sid, identity: "bob", now: 1000) == [binding])
        #expect(try reopened.recording(sid: recording.sid) == recording)
    }

    @Test func migratesVersionOneFileAndGivesAccountsAuthTokens() throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        do {
            // A file as the previous release left it: schema 1 with one account and key.
            let raw = try SQLiteDatabase(path: path)
            try raw.executeScript("""
                CREATE TABLE accounts (sid TEXT PRIMARY KEY, friendly_name TEXT NOT NULL, created_at INTEGER NOT NULL,
                    is_default INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE api_keys (sid TEXT PRIMARY KEY, account_sid TEXT NOT NULL REFERENCES accounts(sid),
                    friendly_name TEXT NOT NULL, secret TEXT NOT NULL, created_at INTEGER NOT NULL,
                    revoked INTEGER NOT NULL DEFAULT 0);
                CREATE INDEX api_keys_by_account ON api_keys(account_sid);
                INSERT INTO accounts VALUES ('AC00000000000000000000000000000001', 'Old', 5, 1);
                INSERT INTO accounts VALUES ('AC00000000000000000000000000000002', 'Older', 6, 0);
                INSERT INTO api_keys VALUES ('SK00000000000000000000000000000001', 'AC00000000000000000000000000000001',
                    'k', 'secretsecretsecretsecretsecret12', 5, 0);
                """)
            try raw.setUserVersion(1)
        }
        let store = try SQLiteAccountStore(path: path)
        #expect(try store.schemaVersion == SQLiteAccountStore.latestSchemaVersion)
        let accounts = try store.accounts()
        #expect(accounts.map(\.sid) == ["AC00000000000000000000000000000001", "AC00000000000000000000000000000002"])
        for account in accounts {
            #expect(account.authToken.count == 32 && account.authToken.allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(accounts[0].authToken != accounts[1].authToken)
        let defaults = try store.ensureDefaultAccount()
        #expect(!defaults.created && defaults.account == accounts[0] && defaults.apiKey.sid == "SK00000000000000000000000000000001")
        // The voice tables work on the migrated file.
        let app = try store.createApplication(ApplicationDraft(friendlyName: "a"), accountSid: accounts[0].sid)
        #expect(try store.application(sid: app.sid) == app)
    }

    /// A child process inserts calls as fast as it can and reports each SID after `insertCall`
    /// returns; the parent kills it with SIGKILL mid-stream and then finds every reported row.
    @Test func killDashNineLosesNoCommittedCall() async throws {
        let dir = try TempDir(); defer { dir.cleanup() }
        let path = dir.path("parley.db")
        let accountSid = try SQLiteAccountStore(path: path).ensureDefaultAccount().account.sid

        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")  // this test binary
        child.arguments = ["--testing-library", "swift-testing", "--filter", "CrashingWriter"]
        child.environment = ProcessInfo.processInfo.environment.merging([CrashingWriter.environmentKey: path]) { $1 }
        let out = Pipe()
        child.standardOutput = out
        child.standardError = FileHandle.nullDevice
        try child.runWithDefaultSignals()
        let watchdog = DispatchWorkItem { kill(child.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)

        // The blocking reads and the wait run on a thread of their own, never on the test pool
        // (with 2 cores it has 2 threads; blocking one stalls every other async test).
        let reader = out.fileHandleForReading
        let pid = child.processIdentifier
        let reported: [String] = await withCheckedContinuation { done in
            Thread.detachNewThread {
                var reported: [String] = []
                var buffer = ""
                while reported.count < 300 {
                    let data = reader.availableData
                    if data.isEmpty { break }  // the child exited (or the watchdog fired)
                    buffer += String(decoding: data, as: UTF8.self)
                    while let newline = buffer.firstIndex(of: "\n") {
                        let line = buffer[..<newline]
                        if line.hasPrefix(CrashingWriter.linePrefix) {
                            reported.append(String(line.dropFirst(CrashingWriter.linePrefix.count)))
                        }
                        buffer.removeSubrange(...newline)
                    }
                }
                kill(pid, SIGKILL)
                done.resume(returning: reported)
            }
        }
        child.waitUntilExit()  // killed already: returns at once
        watchdog.cancel()
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL)
        #expect(reported.count >= 300, "the writer reported only \(reported.count) rows")

        let store = try SQLiteAccountStore(path: path)
        let stored = Set(try store.calls(CallQuery(accountSid: accountSid, limit: 1_000_000)).map(\.sid))
        let missing = reported.filter { !stored.contains($0) }
        #expect(missing.isEmpty, "\(missing.count) committed calls lost")
        #expect(try SQLiteDatabase(path: path).query("PRAGMA integrity_check") == [[.text("ok")]])
    }
}

/// The child side of `killDashNineLosesNoCommittedCall`: runs only when the parent sets the
/// environment variable, and writes until it is killed (or for at most 30 s).
@Suite struct CrashingWriter {
    static let environmentKey = "PARLEY_CRASHING_WRITER_DB"
    static let linePrefix = "committed "

    @Test(.enabled(if: ProcessInfo.processInfo.environment[environmentKey] != nil))
    func writeUntilKilled() throws {
        let path = try #require(ProcessInfo.processInfo.environment[Self.environmentKey])
        let store = try SQLiteAccountStore(path: path)
        let account = try store.ensureDefaultAccount().account
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let call = CallRecord.sample(account: account.sid, start: Int64(Date().timeIntervalSince1970))
            try store.insertCall(call)
            FileHandle.standardOutput.write(Data("\(Self.linePrefix)\(call.sid)\n".utf8))
        }
    }
}
