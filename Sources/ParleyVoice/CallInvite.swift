import Foundation
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization

/// An incoming call (the seed's `TVOCallInvite`), from a live `listen` connection or a push
/// payload given to `Voice.handleNotification`. Keep it until you accept or reject it, so that a
/// cancellation can be reported.
public final class CallInvite: Sendable {
    public let callSid: String
    /// The caller (`client:alice`, a number, a SIP URI).
    public let from: String?
    public let to: String
    /// The `<Parameter>`s of the `<Dial><Client>` that rang this client, or the caller's params.
    public let customParameters: [String: String]
    public let callerInfo: CallerInfo?
    /// The UUID the accepted `Call` will have.
    public let uuid: UUID
    /// Where the invite came from: the listener that received it, or push (then nil).
    let listener: Listener?
    let edge: String?

    init(callSid: String, from: String?, to: String, customParameters: [String: String], callerInfo: CallerInfo?,
         listener: Listener?, edge: String?) {
        self.callSid = callSid
        self.from = from
        self.to = to
        self.customParameters = customParameters
        self.callerInfo = callerInfo
        self.listener = listener
        self.edge = edge
        uuid = UUID()
    }

    /// Answers the call; state changes reach `delegate`, which the call holds weakly (see `Call`).
    @discardableResult
    public func accept(options: AcceptOptions? = nil, delegate: any CallDelegate) -> Call {
        answer(options: options, delegate: delegate)
    }

    /// Answers the call and returns it once connected (throws what `callDidFailToConnect` would report).
    public func accept(options: AcceptOptions? = nil) async throws(ParleyError) -> Call {
        let call = answer(options: options, delegate: nil)
        try await call.waitUntilConnected()
        return call
    }

    private func answer(options: AcceptOptions?, delegate: (any CallDelegate)?) -> Call {
        listener?.settled(callSid)
        return Call.accepting(self, options: options ?? AcceptOptions(callInvite: self), delegate: delegate)
    }

    /// Declines the call: the caller gets 31603 (`reject`) — the seed's `reject`.
    public func reject() {
        send(.reject(Reject(callSid: callSid, reason: .rejected)))
    }

    /// Declines as busy: the caller gets 31486.
    public func rejectBusy() {
        send(.reject(Reject(callSid: callSid, reason: .busy)))
    }

    /// On the listener's connection; for a pushed invite, on a short-lived one opened with the
    /// token of the last `Voice.register`.
    private func send(_ message: SignalingMessage) {
        if let listener {
            listener.settled(callSid)
            listener.send(message)
            return
        }
        let callSid = self.callSid, edge = self.edge
        Task.detached {
            do throws(ParleyError) {
                guard let token = VoiceSettings.shared.withLock({ $0.registeredToken }) else {
                    throw ParleyError(.authorization, reason: "no token: call Voice.register first")
                }
                let channel = try await VoiceSignaling.open(server: try VoiceSettings.server(for: edge), token: token)
                channel.send(message)
                await channel.close()   // the close frame follows the message in order (RFC 6455 §5.4)
            } catch {
                Log.warning(.signaling, "invite \(callSid): \(message.type.rawValue) not sent: \(error)")
            }
        }
    }
}

/// The caller's identity as the server vouches for it (SHAKEN/STIR in the seed).
public struct CallerInfo: Sendable, Hashable {
    /// Whether the caller's number was verified; nil when unknown.
    public let isVerified: Bool?
}

/// An incoming call that went away before it was answered (the seed's `TVOCancelledCallInvite`).
public struct CancelledCallInvite: Sendable, Hashable {
    public let callSid: String
    public let from: String?
    public let to: String
    public let customParameters: [String: String]
}
