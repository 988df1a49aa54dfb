import CallQuality
import Foundation
import ParleyCore
import ParleyVoice
import Synchronization

/// Prints a call's life on standard output (`+1.234s call: connected`) and lets the command wait
/// for its milestones.
final class CallConsole: CallDelegate, Sendable {
    let queue = DispatchQueue(label: "parley-cli-call")
    private let name: String
    private let started = ContinuousClock.now
    private let state = Mutex<(connected: Bool?, ended: Int32?)>((nil, nil))
    private let received = Mutex("")

    init(name: String) { self.name = name }

    func print(_ line: String) {
        let elapsed = (ContinuousClock.now - started).milliseconds / 1000
        FileHandle.standardOutput.write(Data((String(format: "+%.3fs ", elapsed) + "\(name): \(line)\n").utf8))
    }

    func callDidStartRinging(_ call: Call) { print("ringing \(call.sid ?? "")") }

    func callDidConnect(_ call: Call) {
        print("connected \(call.sid ?? "")")
        state.withLock { $0.connected = true }
    }

    func callDidFailToConnect(_ call: Call, error: ParleyError) {
        print("failed to connect: \(error.code.rawValue) \(error.name): \(error.failureReason ?? error.code.text)")
        state.withLock { $0 = (false, 1) }
    }

    func callDidDisconnect(_ call: Call, error: ParleyError?) {
        if let error {
            print("disconnected: \(error.code.rawValue) \(error.name): \(error.failureReason ?? error.code.text)")
        } else {
            print("disconnected")
        }
        state.withLock { $0.ended = error == nil ? 0 : 1; if $0.connected == nil { $0.connected = false } }
    }

    func call(_ call: Call, isReconnectingWithError error: ParleyError) { print("reconnecting (\(error.code.rawValue))") }

    func call(_ call: Call, didReceiveDigit digit: String) {
        received.withLock { $0 += digit }
        print("received digit \(digit)")
    }

    /// The digits the far end sent, in order.
    var digits: String { received.withLock { $0 } }
    func callDidReconnect(_ call: Call) { print("reconnected") }

    func call(_ call: Call, didReceiveQualityWarnings currentWarnings: Set<QualityWarning>,
              previousWarnings: Set<QualityWarning>) {
        let raised = currentWarnings.subtracting(previousWarnings).map(\.rawValue).sorted()
        let cleared = previousWarnings.subtracting(currentWarnings).map(\.rawValue).sorted()
        if !raised.isEmpty { print("quality warning raised: \(raised.joined(separator: ", "))") }
        if !cleared.isEmpty { print("quality warning cleared: \(cleared.joined(separator: ", "))") }
    }

    /// Waits until the call connects, fails or ends, a signal arrives, or `deadline` passes.
    func waitForConnect(until deadline: ContinuousClock.Instant? = nil) async -> ConnectOutcome {
        while true {
            if let connected = state.withLock({ $0.connected }) { return connected ? .connected : .failed }
            if let signal = Interruption.shared.caughtSignal { return .interrupted(signal) }
            if let deadline, ContinuousClock.now >= deadline { return .timedOut }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The exit status once the call ended (0 normal, 1 with an error).
    func waitForEnd(timeout: Duration = .seconds(10)) async -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let ended = state.withLock({ $0.ended }) { return ended }
            try? await Task.sleep(for: .milliseconds(10))
        }
        print("no disconnect within \(timeout)")
        return 1
    }

    var hasEnded: Bool { state.withLock { $0.ended != nil } }

    /// Keeps the call up until it ends, a signal arrives, or `deadline` passes (nil: no deadline).
    func hold(until deadline: ContinuousClock.Instant?) async -> HoldOutcome {
        while true {
            if hasEnded { return .ended }
            if let signal = Interruption.shared.caughtSignal { return .interrupted(signal) }
            if let deadline, ContinuousClock.now >= deadline { return .elapsed }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Ends a connected call the way `outcome` says (hangs up unless the call ended by itself),
    /// prints its figures and returns the exit status: the call's, or 128 + the signal.
    func finish(_ call: Call, _ outcome: HoldOutcome) async -> Int32 {
        switch outcome {
        case .ended: break
        case .elapsed:
            print("hanging up (--duration)")
            call.disconnect()
        case .interrupted(let signal):
            print("\(Interruption.name(of: signal)): hanging up")
            call.disconnect()
        }
        let status = await waitForEnd()
        await printStats(call)
        if case .interrupted(let signal) = outcome { return Interruption.status(for: signal) }
        return status
    }

    /// Cancels a call that did not connect in time or was interrupted while connecting.
    func cancel(_ call: Call, _ outcome: ConnectOutcome, waited: String) async -> Int32 {
        switch outcome {
        case .interrupted(let signal): print("\(Interruption.name(of: signal)): canceling")
        default: print("not connected within \(waited): canceling")
        }
        call.disconnect()
        _ = await waitForEnd()
        if case .interrupted(let signal) = outcome { return Interruption.status(for: signal) }
        return 1
    }

    /// The call's figures; after it ended, as they were when it ended.
    func printStats(_ call: Call) async {
        let report = await call.stats()
        if let local = report.localAudioTrackStats.first {
            print("sent \(local.packetsSent) packets (\(local.codec))"
                  + (local.roundTripTimeMs.map { String(format: ", RTT %.1f ms", $0) } ?? ""))
        }
        if let remote = report.remoteAudioTrackStats.first {
            print("received \(remote.packetsReceived) packets, lost \(remote.packetsLost), "
                  + String(format: "jitter %.1f ms", remote.jitterMs)
                  + (remote.mos.map { String(format: ", MOS %.2f", $0) } ?? ""))
        }
        if let local = report.iceCandidateStats.first(where: { !$0.isRemote }),
           let remote = report.iceCandidateStats.first(where: { $0.isRemote }) {
            print("selected pair \(local.ip):\(local.port) (\(local.candidateType)) ↔ \(remote.ip):\(remote.port) (\(remote.candidateType))")
        }
    }
}

/// The first incoming invite of `parley listen`.
final class ListenInbox: NotificationDelegate, Sendable {
    private let invites = Mutex<[CallInvite]>([])
    private let console: CallConsole

    init(console: CallConsole) { self.console = console }

    func callInviteReceived(_ callInvite: CallInvite) { invites.withLock { $0.append(callInvite) } }

    func cancelledCallInviteReceived(_ cancelledCallInvite: CancelledCallInvite, error: ParleyError) {
        invites.withLock { $0.removeAll { $0.callSid == cancelledCallInvite.callSid } }
        console.print("invite \(cancelledCallInvite.callSid) cancelled (\(error.code.rawValue))")
    }

    /// The next invite, or why there is none: a signal, or `deadline` passed.
    func next(until deadline: ContinuousClock.Instant?) async -> Result<CallInvite, ConnectOutcome> {
        while true {
            if let invite = invites.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return .success(invite) }
            if let signal = Interruption.shared.caughtSignal { return .failure(.interrupted(signal)) }
            if let deadline, ContinuousClock.now >= deadline { return .failure(.timedOut) }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// How waiting for a call to connect ended.
enum ConnectOutcome: Error, Equatable {
    case connected, failed, interrupted(Int32), timedOut
}

/// How a connected call's time ended: it ended by itself, its time ran out, or a signal came.
enum HoldOutcome: Equatable {
    case ended, elapsed, interrupted(Int32)
}
