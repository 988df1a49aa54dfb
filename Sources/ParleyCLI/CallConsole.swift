import Foundation
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

    func callDidStartRinging(_ call: Call) { print("ringing") }

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

    /// True once connected; false if the call failed or ended first.
    func waitForConnect() async -> Bool {
        while true {
            if let connected = state.withLock({ $0.connected }) { return connected }
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

    /// Keeps the call up for `seconds` (less if it ends).
    func hold(_ call: Call, seconds: Double) async {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline, state.withLock({ $0.ended == nil }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Keeps the call up until the far end hangs up.
    func holdUntilEnd(_ call: Call) async {
        while state.withLock({ $0.ended == nil }) { try? await Task.sleep(for: .milliseconds(50)) }
    }

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
        console.print("invite \(cancelledCallInvite.callSid) cancelled (\(error.code.rawValue))")
    }

    func next() async -> CallInvite {
        while true {
            if let invite = invites.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return invite }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
