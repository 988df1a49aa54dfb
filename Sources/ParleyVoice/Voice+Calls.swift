import Foundation
import ParleyClientCore
import ParleyCore
import Signaling

extension Voice {
    /// Places an outgoing call with default options. Always returns a `Call`; failures arrive as
    /// `callDidFailToConnect`. The call holds `delegate` weakly (see `Call`).
    @discardableResult
    public static func connect(accessToken: String, delegate: any CallDelegate) -> Call {
        connect(options: ConnectOptions(accessToken: accessToken), delegate: delegate)
    }

    /// Places an outgoing call (the seed's `connect(with:delegate:)`); `delegate` is held weakly.
    @discardableResult
    public static func connect(options: ConnectOptions, delegate: any CallDelegate) -> Call {
        Call.outgoing(options: options, delegate: delegate)
    }

    /// Places an outgoing call and returns it once connected; throws what `callDidFailToConnect`
    /// would report. (Use the delegate form to hear of the rest of the call.)
    public static func connect(options: ConnectOptions) async throws(ParleyError) -> Call {
        let call = Call.outgoing(options: options, delegate: nil)
        try await call.waitUntilConnected()
        return call
    }

    /// Opens a live connection that receives incoming calls for the token's identity (no push
    /// needed while it is open). Returns once the server confirms `listening`. The listener holds
    /// `delegate` weakly; callbacks run on `delegateQueue` (nil: the main queue
    /// on Apple platforms, the SDK's own serial queue on Linux).
    public static func listen(accessToken: String, delegate: any NotificationDelegate,
                              delegateQueue: DispatchQueue? = nil) async throws(ParleyError) -> Listener {
        let edge = Voice.edge
        let server = try VoiceSettings.server(for: edge)
        let channel = try await VoiceSignaling.open(server: server, token: accessToken)
        let listener = Listener(channel: channel, delegate: delegate, delegateQueue: delegateQueue ?? DelegateQueue.default,
                                edge: edge, accessToken: accessToken)
        listener.publish("connection", "listen")
        let messages = channel.unrouted
        await withCheckedContinuation { (listening: CheckedContinuation<Void, Never>) in
            Task.detached { await listener.run(messages, listening: listening) }
            channel.send(.listen)
        }
        if let failure = listener.failure { throw failure }
        guard listener.isListening else {
            throw ParleyError(.signalingConnectionDisconnected, reason: "the connection closed before listening")
        }
        return listener
    }

    /// The completion-handler form of `listen`.
    public static func listen(accessToken: String, delegate: any NotificationDelegate, delegateQueue: DispatchQueue? = nil,
                              completion: @escaping @Sendable (Listener?, ParleyError?) -> Void) {
        Task.detached {
            do throws(ParleyError) {
                completion(try await listen(accessToken: accessToken, delegate: delegate, delegateQueue: delegateQueue), nil)
            } catch {
                completion(nil, error)
            }
        }
    }
}
