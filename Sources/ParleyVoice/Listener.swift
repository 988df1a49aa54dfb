import Foundation
import ParleyClientCore
import ParleyCore
import Signaling
import Synchronization

/// A live connection that receives incoming calls for the access token's identity without push
/// (`Voice.listen`): each invite reaches the `NotificationDelegate` as a `CallInvite`, each
/// cancellation as a `CancelledCallInvite`. Calls accepted from its invites use this connection.
/// The listener holds its delegate weakly (as `Call` does): keep both alive while you listen.
public final class Listener: Sendable {
    /// The identity invites are for (from the server's welcome).
    public let identity: String
    private let state: Mutex<State>
    weak let delegate: (any NotificationDelegate)?
    private let delegateQueue: DispatchQueue
    private let edge: String?
    /// The token the connection said hello with: calls accepted from its invites post Insights with it.
    let accessToken: String

    private struct State {
        var channel: SignalingChannel?
        var invites: [String: CallInvite] = [:]
        /// Why the server refused to listen (e.g. 31403 without `incoming.allow`).
        var failure: ParleyError?
    }

    init(channel: SignalingChannel, delegate: any NotificationDelegate, delegateQueue: DispatchQueue, edge: String?,
         accessToken: String) {
        identity = channel.welcome.identity
        self.accessToken = accessToken
        state = Mutex(State(channel: channel))
        self.delegate = delegate
        self.delegateQueue = delegateQueue
        self.edge = edge
    }

    /// Whether the connection is still up.
    public var isListening: Bool { state.withLock { $0.channel != nil } }

    var channel: SignalingChannel? { state.withLock { $0.channel } }

    var failure: ParleyError? { state.withLock { $0.failure } }

    func send(_ message: SignalingMessage) { channel?.send(message) }

    /// Stops receiving invites and closes the connection (calls on it end with 53001).
    public func stop() async {
        let channel = state.withLock { state -> SignalingChannel? in
            defer { state.channel = nil }
            return state.channel
        }
        guard let channel else { return }
        channel.send(.unlisten)
        await channel.close()
    }

    /// Reads the connection's unrouted messages until it closes.
    func run(_ messages: AsyncStream<SignalingEnvelope>, listening: CheckedContinuation<Void, Never>?) async {
        var listening = listening
        for await envelope in messages {
            switch envelope.message {
            case .listening:
                publish("connection", "listening")
                listening?.resume()
                listening = nil
            case .incoming(let incoming):
                let invite = CallInvite(callSid: incoming.callSid, from: incoming.from, to: incoming.to,
                                        customParameters: incoming.params,
                                        callerInfo: incoming.callerInfo.map { CallerInfo(isVerified: $0.isVerified) },
                                        listener: self, edge: edge)
                state.withLock { $0.invites[incoming.callSid] = invite }
                publish("connection", "incoming", callSid: incoming.callSid)
                notify { $0.callInviteReceived(invite) }
            case .cancelled(let cancelled):
                guard let invite = state.withLock({ $0.invites.removeValue(forKey: cancelled.callSid) }) else { continue }
                let gone = CancelledCallInvite(callSid: invite.callSid, from: invite.from, to: invite.to,
                                               customParameters: invite.customParameters)
                let error = ParleyError(ParleyError.Code(rawValue: cancelled.code), reason: cancelled.reason)
                publish("connection", "cancel", callSid: cancelled.callSid, payload: ["code": "\(cancelled.code)"])
                notify { $0.cancelledCallInviteReceived(gone, error: error) }
            case .error(let body):
                Log.warning(.signaling, "listener \(identity): server error \(body.code) \(body.message)")
                if listening != nil {  // refused before listening: `listen` throws this
                    publish("connection", "listening-error", level: .error,
                            payload: ["code": "\(body.code)", "message": body.message])
                    state.withLock { $0.failure = ParleyError(ParleyError.Code(rawValue: body.code), reason: body.message) }
                    listening?.resume()
                    listening = nil
                    await stop()
                }
            default:
                break
            }
        }
        listening?.resume()
        state.withLock { $0.channel = nil }
    }

    /// Runs `body` with the delegate on the delegate queue, if the delegate is still there.
    private func notify(_ body: @escaping @Sendable (any NotificationDelegate) -> Void) {
        delegateQueue.async { [self] in
            guard let delegate else { return }
            body(delegate)
        }
    }

    /// Forgets an invite once it was accepted or rejected.
    func settled(_ callSid: String) {
        state.withLock { _ = $0.invites.removeValue(forKey: callSid) }
    }
}

extension Listener {
    func publish(_ group: String, _ name: String, level: InsightsLevel = .info, callSid: String? = nil,
                 payload: [String: String] = [:]) {
        VoiceSettings.insights.publish(group: group, name: name, level: level, callSid: callSid, payload: payload,
                                       token: accessToken, edge: edge)
    }
}
