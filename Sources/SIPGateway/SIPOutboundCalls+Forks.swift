import ParleyCore
import ParleyNet
import SIP
import SIPWire
import Synchronization
import VoiceEngine

/// Forks that fail, and forks that lose. A call fails once every fork has failed, or at once on a
/// 6xx (RFC 3261 §16.7 step 5), with the best failure (§16.7 step 6: a 6xx first, then busy, then
/// the lowest status class). A fork that lost — another answered, the engine hung up, a 6xx ended
/// the call — is cancelled when it has had a provisional response and otherwise as soon as one
/// arrives (§9.1); a 2xx it sends anyway is acknowledged and ended with BYE (§15).
extension SIPOutboundCalls {
    /// A fork that lost, until its INVITE transaction is over.
    struct AbandonedFork {
        var fork: Fork
        var callID: String
        /// No provisional response yet: the CANCEL waits for one (§9.1).
        var cancelPending: Bool
    }

    /// Losing forks kept at most (the oldest are simply forgotten past it).
    static let maxAbandoned = 10_000

    /// Fork `branch` of `callID` ended with `failure`; the call fails when it was the last one
    /// alive, or at once when `global` (a 6xx).
    func forkFailed(callID: String, branch: String?, _ failure: Failure, global: Bool = false) {
        let ended = calls.withLock { table -> Call? in
            guard var call = table[callID], let index = call.forks.firstIndex(where: { $0.branch == branch }),
                  call.forks[index].failure == nil else { return nil }
            call.forks[index].failure = failure
            guard global || call.forks.allSatisfy({ $0.failure != nil }) else {
                table[callID] = call
                return nil
            }
            table.removeValue(forKey: callID)
            return call
        }
        guard let call = ended else { return }
        abandon(call.forks.filter { $0.failure == nil })
        let best = call.forks.compactMap(\.failure).min { Self.rank($0) < Self.rank($1) } ?? failure
        if call.forks.count > 1 { Log.info(.platform, "SIP call \(callID): all \(call.forks.count) forks failed; best \(best.code.map(String.init) ?? "-")") }
        Task { await context.media.close(call.mediaID) }
        call.progress.failed(best.error, best.code)
    }

    /// §16.7 step 6, for the status the call reports: a 6xx, then busy (486), then the lowest
    /// class (4xx before 5xx), then failures without a status (timeouts, closed connections).
    static func rank(_ failure: Failure) -> Int {
        guard let code = failure.code else { return 10_000 }
        if code >= 600 { return code - 600 }
        if code == 486 { return 100 }
        return code
    }

    /// Cancels forks that lost: at once when they had a provisional response, else when one comes.
    func abandon(_ forks: [Fork]) {
        for fork in forks {
            if fork.provisional, let cancel = fork.invite.makeCancel() { send(.request(cancel), to: fork.peer) }
            guard let branch = fork.branch, let callID = fork.invite.callID else { continue }
            let kept = abandoned.withLock { table -> Bool in
                guard table.count < Self.maxAbandoned else { return false }
                table[branch] = AbandonedFork(fork: fork, callID: callID, cancelPending: !fork.provisional)
                return true
            }
            // Timer B's span: after it no response to the INVITE is expected (§17.1.1.2).
            if kept { context.transport.loop.schedule(after: .seconds(32)) { [self] in _ = abandoned.withLock { $0.removeValue(forKey: branch) } } }
        }
    }

    /// A response to a fork that lost (false: `branch` is no such fork).
    func lateResponse(_ response: SIPResponse, branch: String) -> Bool {
        guard response.cseq?.method == .invite, let entry = abandoned.withLock({ $0[branch] }) else { return false }
        switch response.statusCode {
        case 100..<200:
            let owed = abandoned.withLock { table -> Bool in
                guard table[branch]?.cancelPending == true else { return false }
                table[branch]?.cancelPending = false
                return true
            }
            if owed, let cancel = entry.fork.invite.makeCancel() { send(.request(cancel), to: entry.fork.peer) }
        case 200..<300:
            // It answered after all: acknowledged and hung up at once (its 2xx is not retransmitted for long).
            _ = abandoned.withLock { $0.removeValue(forKey: branch) }
            guard var dialog = try? SIPDialog(uac: entry.fork.invite, response: response) else { return true }
            let by = context.sentBy(entry.fork.peer)
            send(.request(dialog.ack(for: response, sentBy: by)), to: entry.fork.peer)
            send(.request(dialog.bye(sentBy: by)), to: entry.fork.peer)
            Log.info(.platform, "SIP call \(entry.callID): a losing fork answered; acknowledged and hung up")
        default:
            _ = abandoned.withLock { $0.removeValue(forKey: branch) }
            if let ack = entry.fork.invite.makeACK(for: response) { send(.request(ack), to: entry.fork.peer) }
        }
        return true
    }
}
