import ParleyCore
import ParleyStore
import PlatformCore
import TwiML

/// After a crash: the calls a previous process left `queued`, `initiated`, `ringing` or
/// `in-progress` are settled when the server starts, before it accepts a connection, and the
/// status callbacks they still owe are sent, once. While running, the server records a heartbeat
/// every `livenessInterval`, so a settled call ends when the server was last known alive rather
/// than when it came back.
extension VoiceService {
    /// How often the running server records that it is alive.
    static let livenessInterval: Duration = .seconds(5)

    /// What a call the server stopped under ends with: 31503, the code a graceful shutdown uses.
    static let stoppedUnderCall = ParleyError(.serviceUnavailable,
                                              reason: "the server stopped before the call ended (settled when it restarted)")

    /// Settles every unfinished call in the store: an answered one `completed`, any other
    /// `failed`, both with error 31503, the end time the server's last heartbeat (never before the
    /// row's last update, never after now). Runs before the server serves, so no call it touches
    /// is live in this process. Returns how many it settled.
    package nonisolated func settleUnfinishedCalls() -> Int {
        let records: [CallRecord]
        let lastAlive: Int64?
        do {
            records = try store.unfinishedCalls()
            lastAlive = try store.lastLiveness()
        } catch {
            Log.error(.platform, "cannot read unfinished calls: \(error)")
            return 0
        }
        let now = wallClock
        var settled = 0
        for record in records {
            let final = Self.settled(record, lastAlive: lastAlive, now: now)
            do {
                try store.updateCall(final)  // final first: a second crash cannot send the callback twice
            } catch {
                Log.error(.platform, "call \(record.sid): cannot settle: \(error)")
                continue
            }
            settled += 1
            sendOwedCallback(final, wasAnswered: record.answerTime != nil)
        }
        if settled > 0 {
            Log.warning(.platform, "settled \(settled) call(s) the previous server process left unfinished (31503)")
        }
        return settled
    }

    /// The final row of a call the server stopped under.
    static func settled(_ record: CallRecord, lastAlive: Int64?, now: Int64) -> CallRecord {
        var final = record
        let end = min(now, max(record.updatedAt, lastAlive ?? record.updatedAt))
        final.status = record.answerTime != nil || record.status == .inProgress ? .completed : .failed
        final.endTime = end
        final.duration = record.answerTime.map { max(0, end - $0) } ?? 0
        final.errorCode = stoppedUnderCall.code.rawValue
        final.errorMessage = stoppedUnderCall.failureReason
        final.updatedAt = now
        return final
    }

    /// The `completed` status callback of a settled call, signed with its account's current auth
    /// token. Its `SequenceNumber` is the one it would have had after every earlier event.
    private nonisolated func sendOwedCallback(_ record: CallRecord, wasAnswered: Bool) {
        guard let url = record.statusCallback, !url.isEmpty,
              let account = try? store.account(sid: record.accountSid) else { return }
        let method = TwiMLMethod(rawValue: (record.statusCallbackMethod ?? "POST").uppercased()) ?? .post
        let parameters = CallParameters.statusCallback(record, customParameters: [], sequence: wasAnswered ? 3 : 2,
                                                       timestamp: RESTTime.rfc2822(wallClock))
        callbacks.enqueue(.init(url: url, method: method, parameters: parameters, authToken: account.authToken), key: record.sid)
    }

    /// Records the heartbeat now and every `livenessInterval` until cancelled.
    package nonisolated func recordLiveness() async {
        while !Task.isCancelled {
            do { try store.recordLiveness(at: wallClock) } catch { Log.warning(.platform, "cannot record liveness: \(error)") }
            try? await clock.sleep(for: Self.livenessInterval)
        }
    }
}
