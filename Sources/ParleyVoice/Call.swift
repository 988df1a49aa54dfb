import CallQuality
import Foundation
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization

/// One voice call, outgoing (`Voice.connect`) or accepted (`CallInvite.accept`) — the seed's
/// `TVOCall`. State changes reach the `CallDelegate` on the call's delegate queue; the async
/// forms (`Voice.connect(options:) async`, `waitUntilConnected`, `stats()`) wrap the same events.
///
/// The call holds its delegate weakly, as Twilio's and LiveKit's SDKs do: keep the delegate alive
/// yourself (usually it is the object that keeps the call). Once it is gone the call goes on, and
/// tells nobody. Keep the `Call` too: the SDK runs it to its end either way, but only your
/// reference lets you hang up.
public final class Call: Sendable {
    /// The call's UUID (from the options: for CallKit and the like).
    public let uuid: UUID
    /// The caller as the server knows it (`client:alice`), or the invite's `from`.
    public let from: String?
    /// Whom the call is to: the `To` param, or the invite's `to`.
    public let to: String?

    /// Weak: see the type's documentation.
    weak let delegate: (any CallDelegate)?
    let delegateQueue: DispatchQueue
    let options: CallMediaOptions
    /// The access token the call was placed or accepted with (nil when not known): feedback and
    /// Insights events are posted with it. Never logged.
    let accessToken: String?
    let snapshot: Mutex<Snapshot>
    let inputs: AsyncStream<CallStateMachine.Input>.Continuation
    let inputStream: AsyncStream<CallStateMachine.Input>

    struct Snapshot {
        var machine: CallStateMachine
        var channel: SignalingChannel?
        var ownsChannel = true
        var media: CallMedia?
        var isMuted = false
        var isOnHold = false
        var outcome: Result<Void, ParleyError>?
        var waiters: [CheckedContinuation<Result<Void, ParleyError>, Never>] = []
        var warnings: Set<QualityWarning> = []
        var sentMessages: Set<String> = []
        /// The figures as they were when the media closed: what `stats()` answers after the call.
        var finalStats: StatsReport?
    }

    /// A call with no delegate (nil) reports only through its async forms.
    init(uuid: UUID, from: String?, to: String?, sid: String?, options: CallMediaOptions, delegate: (any CallDelegate)?,
         accessToken: String? = nil) {
        self.uuid = uuid
        self.accessToken = accessToken
        self.from = from
        self.to = to
        self.delegate = delegate
        self.options = options
        delegateQueue = options.delegateQueue ?? DelegateQueue.default
        snapshot = Mutex(Snapshot(machine: CallStateMachine(callId: uuid.uuidString.lowercased(), sid: sid)))
        (inputStream, inputs) = AsyncStream.makeStream()
        VoiceSettings.shared.withLock { $0.liveCalls += 1 }
    }

    /// The call SID (`CA…`) once the server assigned it.
    public var sid: String? { snapshot.withLock { $0.machine.sid } }

    public var state: CallState { snapshot.withLock { $0.machine.state } }

    /// Whether the microphone is muted: the far end receives silence (packet timing kept).
    public var isMuted: Bool {
        get { snapshot.withLock { $0.isMuted } }
        set {
            let media = snapshot.withLock { snapshot -> CallMedia? in
                snapshot.isMuted = newValue
                return snapshot.media
            }
            media?.isMuted = newValue
        }
    }

    /// Whether the call is on hold: nothing is sent or played, and the server plays hold music to
    /// the other party.
    public var isOnHold: Bool {
        get { snapshot.withLock { $0.isOnHold } }
        set {
            let (media, channel, sid, changed) = snapshot.withLock { snapshot in
                defer { snapshot.isOnHold = newValue }
                return (snapshot.media, snapshot.channel, snapshot.machine.sid, snapshot.isOnHold != newValue)
            }
            media?.isOnHold = newValue
            if changed, let channel, let sid { channel.send(.hold(Hold(callSid: sid, hold: newValue))) }
        }
    }

    /// Sends DTMF (`0`–`9`, `*`, `#`, `w` for a 500 ms pause) as RFC 4733 events.
    public func sendDigits(_ digits: String) {
        guard let media = snapshot.withLock({ $0.media }) else { return }
        do { try media.sendDigits(digits) } catch {
            Log.warning(.core, "sendDigits: \(error)")
        }
    }

    /// Hangs up (or cancels, before the call is answered). `callDidDisconnect` follows with no error.
    public func disconnect() {
        inputs.yield(.disconnectRequested)
    }

    /// Sends a call message (at most 10 KiB). Returns its `voiceEventSid`, which `messageSent` or
    /// `messageFailed` reports; nil when the call has no SID yet or the body is too large.
    @discardableResult
    public func sendMessage(_ message: CallMessage) -> String? {
        guard message.content.utf8.count <= CallMessage.maximumBodyBytes else { return nil }
        let (channel, sid) = snapshot.withLock { snapshot in
            snapshot.sentMessages.insert(message.voiceEventSid)
            return (snapshot.channel, snapshot.machine.sid)
        }
        guard let channel, let sid else { return nil }
        channel.send(.message(Signaling.CallMessage(callSid: sid, messageId: message.voiceEventSid,
                                                    contentType: message.contentType, messageType: message.messageType,
                                                    body: message.content)))
        return message.voiceEventSid
    }

    /// Waits until the call connects; throws what `callDidFailToConnect` reports, or 31008 if the
    /// call ended before connecting without an error.
    public func waitUntilConnected() async throws(ParleyError) {
        let result: Result<Void, ParleyError> = await withCheckedContinuation { continuation in
            let ready = snapshot.withLock { snapshot -> Result<Void, ParleyError>? in
                if let outcome = snapshot.outcome { return outcome }
                snapshot.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        try result.get()
    }

    /// Runs `body` with the delegate on the delegate queue, if the delegate is still there.
    func notify(_ body: @escaping @Sendable (any CallDelegate, Call) -> Void) {
        delegateQueue.async { [self] in
            guard let delegate else { return }
            body(delegate, self)
        }
    }

    /// Resolves `waitUntilConnected` callers.
    func settle(_ outcome: Result<Void, ParleyError>) {
        let waiters = snapshot.withLock { snapshot -> [CheckedContinuation<Result<Void, ParleyError>, Never>] in
            guard snapshot.outcome == nil else { return [] }
            snapshot.outcome = outcome
            defer { snapshot.waiters = [] }
            return snapshot.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
