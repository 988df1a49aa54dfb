import Foundation
import ParleyCore
import ParleyNet
import ServerMedia
import SIP
import SIPMedia
import SIPWire
import Synchronization
import VoiceEngine

/// Responses to the INVITEs of calls we place, fork by fork (a fork is found by its top Via's
/// branch, RFC 3261 §17.1.3), and what the engine asks of a call before its answer.
extension SIPOutboundCalls {
    /// A response to one of our INVITEs (false: not ours).
    func handle(_ response: SIPResponse, from peer: SIPPeer) -> Bool {
        guard let callID = response.callID else { return false }
        let branch = response.via?.branch
        if let branch, lateResponse(response, branch: branch) { return true }
        guard let call = calls.withLock({ $0[callID] }) else { return false }
        // A BYE's or CANCEL's answer, or one to an INVITE we since sent again with credentials.
        guard response.cseq?.method == .invite,
              let fork = call.forks.first(where: { $0.branch == branch && $0.invite.cseq?.number == response.cseq?.number }),
              fork.failure == nil else { return true }
        switch response.statusCode {
        case 100..<200:
            // 100 only stops the retransmissions; the first of 180/183 (or any other 1xx) of any fork alerts the caller once.
            let alerts = calls.withLock { table -> Bool in
                guard var call = table[callID], let index = call.forks.firstIndex(where: { $0.branch == branch }) else { return false }
                call.forks[index].provisional = true
                let alerts = response.statusCode > 100 && !call.alerted
                if alerts { call.alerted = true }
                table[callID] = call
                return alerts
            }
            if alerts { call.progress.alerted() }
        case 200..<300:
            answered(call, fork: fork, callID: callID, response: response)
        case 401, 407:
            if let ack = fork.invite.makeACK(for: response) { send(.request(ack), to: fork.peer) }
            challenged(call, fork: fork, callID: callID, response: response)
        default:
            if let ack = fork.invite.makeACK(for: response) { send(.request(ack), to: fork.peer) }
            let failure = Failure(error: Self.error(for: response), code: Int(response.statusCode))
            forkFailed(callID: callID, branch: branch, failure, global: response.statusCode >= 600)
        }
        return true
    }

    /// A 401/407: answered once with the target's credentials (RFC 3261 §22.2); without
    /// credentials, or challenged again after answering, the fork fails as forbidden.
    private func challenged(_ call: Call, fork: Fork, callID: String, response: SIPResponse) {
        let code = Int(response.statusCode)
        guard !fork.authenticated, let username = call.target.username, let password = call.target.password else {
            let why = fork.authenticated ? "the far end refused our credentials" : "the far end wants credentials and the call has none"
            let failure = Failure(error: ParleyError(.forbidden, reason: "\(code) \(response.reasonPhrase): \(why)"), code: code)
            return forkFailed(callID: callID, branch: fork.branch, failure)
        }
        guard let next = SIPOutboundHeaders.authorized(fork.invite, after: response, username: username, password: password,
                                                       sentBy: context.sentBy(fork.peer)) else {
            let failure = Failure(error: ParleyError(.forbidden, reason: "\(code): no digest challenge we can answer"), code: code)
            return forkFailed(callID: callID, branch: fork.branch, failure)
        }
        let current = calls.withLock { table -> Bool in
            guard var call = table[callID], let index = call.forks.firstIndex(where: { $0.branch == fork.branch }) else { return false }
            call.forks[index].invite = next
            call.forks[index].authenticated = true
            call.forks[index].provisional = false
            table[callID] = call
            return true
        }
        guard current else { return }
        Log.info(.platform, "SIP call \(callID): answering a \(code) challenge as \(username)")
        sendInvite(next, callID: callID, to: fork.peer)
    }

    /// The first 2xx: the other forks are cancelled, the 2xx acknowledged, and the dialog handed to
    /// the answered-dialog table (which also acknowledges the 2xx again if it is repeated, §13.2.2.4).
    private func answered(_ call: Call, fork: Fork, callID: String, response: SIPResponse) {
        guard let dialog = try? SIPDialog(uac: fork.invite, response: response) else {
            return forkFailed(callID: callID, branch: fork.branch, Failure(error: ParleyError(.internalServer, reason: "the 2xx opens no dialog")))
        }
        guard let call = calls.withLock({ $0.removeValue(forKey: callID) }) else { return }
        abandon(call.forks.filter { $0.branch != fork.branch && $0.failure == nil })
        let ack = dialog.ack(for: response, sentBy: context.sentBy(fork.peer))
        context.dialogs.adoptDialed(.init(callID: callID, invite: fork.invite, response: response, ack: ack, dialog: dialog,
                                          peer: fork.peer, mediaID: call.mediaID, callSid: call.callSid))
        send(.request(ack), to: fork.peer)
        let body = response.bodyText
        Task {
            do throws(ParleyError) {
                try await context.media.acceptAnswer(call.mediaID, sdp: body, events: call.progress.media)
                let codec = await context.media.audioCodec(of: call.mediaID) ?? .opus
                call.progress.answered(CallMediaAnswer(id: call.mediaID, sdp: "", codec: codec))
                // `sendDigits`: RFC 4733 events once answered; `w` pauses 0.5 s, `W` 1 s.
                // (INFO requests instead when the callee has no telephone-event.)
                if let digits = call.target.sendDigits, !digits.isEmpty {
                    Log.info(.platform, "SIP call \(callID): sendDigits \(digits)")
                    context.dialogs.sendDigits(digits.replacingOccurrences(of: "W", with: "ww"), callID: callID)
                }
            } catch {
                context.dialogs.hungUp(callID: callID, error: error)
                await context.media.close(call.mediaID)
                call.progress.failed(error, nil)
            }
        }
    }

    /// Timer A: a fork's INVITE again at 0.5, 1, 2, … s until a response; Timer B (32 s) fails
    /// the fork (408). Stops when the fork's INVITE is another one (sent again with credentials).
    func retransmit(callID: String, branch: String, interval: Double, elapsed: Double, resend: Bool = true) {
        context.transport.loop.schedule(after: .milliseconds(Int(interval * 1000))) { [self] in
            guard let fork = calls.withLock({ $0[callID]?.forks.first { $0.branch == branch } }),
                  !fork.provisional, fork.failure == nil else { return }
            guard resend, elapsed + interval < 32 else {
                return forkFailed(callID: callID, branch: branch, Failure(error: ParleyError(.requestTimeout, reason: "no response to the INVITE")))
            }
            send(.request(fork.invite), to: fork.peer)
            retransmit(callID: callID, branch: branch, interval: interval * 2, elapsed: elapsed + interval)
        }
    }

    /// A TCP/TLS connection we opened closed (refused, a certificate not trusted, the far end
    /// gone): a fork on it still unanswered fails at once (31005) instead of waiting for Timer B.
    func connectionClosed(_ peer: SIPPeer) {
        let stranded = calls.withLock { table in
            table.flatMap { callID, call in call.forks.filter { $0.peer == peer && $0.failure == nil }.map { (callID, $0.branch) } }
        }
        for (callID, branch) in stranded {
            forkFailed(callID: callID, branch: branch, Failure(error: Self.closed(peer)))
        }
    }

    static func closed(_ peer: SIPPeer) -> ParleyError {
        ParleyError(.connection, reason: "the \(peer.transport.rawValue) connection to \(peer.address) closed")
    }

    /// Keys the other party pressed, to the callee as RFC 4733 events.
    func sendDigits(_ digits: String, callID: String) {
        guard let id = calls.withLock({ $0[callID]?.mediaID }) else { return context.dialogs.sendDigits(digits, callID: callID) }
        let media = context.media
        Task { _ = await media.server.sendDigits(digits, to: id.rawValue) }
    }

    /// The engine ended the leg: every fork cancelled before the answer (§9.1); after it the dialog's table sends BYE.
    func hungUp(callID: String, error: ParleyError?) {
        guard let call = calls.withLock({ $0.removeValue(forKey: callID) }) else {
            return context.dialogs.hungUp(callID: callID, error: error)
        }
        abandon(call.forks.filter { $0.failure == nil })
        Task { await context.media.close(call.mediaID) }
    }

    /// The other party held or resumed the callee: a re-INVITE `a=sendonly`/`a=sendrecv` once answered.
    func held(_ hold: Bool, callID: String) { context.dialogs.holdPhone(hold, callID: callID) }

    /// The engine's error for a final SIP failure (the call's status follows from it: 31486 busy,
    /// 31480 and 31408 no-answer, others failed); the table is in docs/sip.md.
    static func error(for response: SIPResponse) -> ParleyError {
        let reason = "\(response.statusCode) \(response.reasonPhrase)"
        return switch response.statusCode {
        case 486, 600: ParleyError(.busyHere, reason: reason)
        case 404, 480, 604: ParleyError(.temporarilyUnavailable, reason: reason)
        case 408: ParleyError(.requestTimeout, reason: reason)
        case 603: ParleyError(.decline, reason: reason)
        case 487: ParleyError(.requestTerminated, reason: reason)
        default: ParleyError(.connection, reason: reason)
        }
    }
}
