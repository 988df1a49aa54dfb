import AccessToken
import ParleyCore
import PlatformCore
import Signaling

/// Who serves room signaling (the `room.*` messages clients send) on the signaling connection.
/// Rooms live beside the voice engine, so the engine defines what it needs here and the
/// server's wiring implements it over the room service. Without one, room messages are
/// answered with 31100.
package protocol RoomSignalingHandler: Sendable {
    /// A client's room message, from a token with a video grant; the connection's next message
    /// waits until this returns, so one connection's requests are handled in order.
    /// - Parameter ref: the request's `id`, for the reply's `ref`.
    func handle(_ message: SignalingMessage, ref: String?, from connection: RoomSignalingConnection) async
    /// The signaling session `id` ended (its client closed it, or its resume window passed).
    func ended(connection id: String) async
    /// The session's socket dropped (`reachable` false: it may resume within the window) or the
    /// client resumed it (true).
    func connection(_ id: String, reachable: Bool) async
}

/// A signaling session as room signaling sees it: who it is, and how to send to it.
package struct RoomSignalingConnection: Sendable {
    /// The signaling session's id (kept across resumes).
    package let id: String
    package let accountSid: String
    package let identity: String
    package let video: VideoGrant
    /// Whom the session's media charges (room joins take a media-session quota unit).
    package let quotaOwner: QuotaOwner
    /// Sends a message on the session (queued while its socket is away for a resume); one
    /// caller's messages arrive in the order it awaited them.
    package let send: @Sendable (SignalingMessage, String?) async -> Void

    package init(id: String, accountSid: String, identity: String, video: VideoGrant, apiKeySid: String = "",
                 send: @escaping @Sendable (SignalingMessage, String?) async -> Void) {
        self.id = id
        self.accountSid = accountSid
        self.identity = identity
        self.video = video
        quotaOwner = QuotaOwner(accountSid: accountSid, identity: identity, apiKeySid: apiKeySid)
        self.send = send
    }
}

extension SignalingEndpoint {
    /// A client's `room.*` message with a room handler installed: a token without a video grant
    /// is answered with 20106, a `room.join` of another `roomV` with 31426 (the codec refuses
    /// those already; this guards joins built otherwise), the rest goes to the handler.
    func roomRequest(_ envelope: SignalingEnvelope, sessionID: String, handler: any RoomSignalingHandler,
                     socket: SignalingSocket) async {
        guard let caller = await service.roomCaller(sessionID: sessionID) else { return }
        guard let video = caller.video else {
            metrics.countSignalingError(code: 20106)
            return socket.sendError(ParleyError(.accessTokenGrantsInvalid, reason: "the access token has no video grant"),
                                    ref: envelope.id)
        }
        if case .roomJoin(let join) = envelope.message, join.roomV != RoomProtocol.version {
            metrics.countSignalingError(code: 31426)
            return socket.sendError(ParleyError(.upgradeRequired, reason: "roomV \(join.roomV) is not supported"),
                                    ref: envelope.id)
        }
        let service = self.service
        let connection = RoomSignalingConnection(id: sessionID, accountSid: caller.accountSid, identity: caller.identity,
                                                 video: video, apiKeySid: caller.apiKeySid) { message, ref in
            await service.sendRoomMessage(message, ref: ref, sessionID: sessionID)
        }
        await handler.handle(envelope.message, ref: envelope.id, from: connection)
    }

    /// Whether a message is a room request from a client (the relayed `room.peer*` go both ways).
    static func isRoomRequest(_ message: SignalingMessage) -> Bool {
        message.sender != .server && message.type.rawValue.hasPrefix("room.")
    }
}

extension VoiceService {
    /// Who a live session's token says it is, for room signaling.
    func roomCaller(sessionID: String) -> (accountSid: String, identity: String, video: VideoGrant?, apiKeySid: String)? {
        guard let session = sessions[sessionID] else { return nil }
        return (session.accountSid, session.identity, session.token.video, session.token.apiKeySid)
    }

    /// Sends a room message on a live session.
    func sendRoomMessage(_ message: SignalingMessage, ref: String?, sessionID: String) {
        sessions[sessionID]?.send(message, ref: ref)
    }
}
