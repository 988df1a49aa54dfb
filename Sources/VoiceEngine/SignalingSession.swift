import AccessToken
import ParleyCore
import PlatformCore
import Signaling

/// One client's signaling session: who it is (from its access token), the socket it speaks on,
/// and the calls it takes part in. It outlives a dropped socket for the resume window, so a client
/// that reconnects with `hello.resume` picks its calls back up. Owned by `VoiceService`.
final class SignalingSession {
    let id: String
    /// What the session needs of its verified token (the whole token, with its header and claims
    /// objects, would cost every idle connection a few kB): the hello's, or the latest resume's.
    var token: SessionCredentials
    /// The session's unit of its identity's and key's connection quota, released when it ends.
    let connectionLease: QuotaLease
    private(set) var socket: SignalingSocket?
    var listening = false
    /// Calls (any leg SID) this session is a party to.
    var callSids: Set<String> = []
    /// Messages for the client while it has no socket; sent on resume (bounded).
    private var queued: [(SignalingMessage, String?)] = []
    var detachedAt: MonotonicInstant?
    var expiryTask: Task<Void, Never>?
    var rateLimiter = MessageRateLimiter()
    static let maxQueued = 256

    init(id: String, token: VerifiedToken, socket: SignalingSocket, connectionLease: QuotaLease) {
        self.id = id
        self.token = SessionCredentials(token)
        self.connectionLease = connectionLease
        self.socket = socket
    }

    var identity: String { token.identity }
    var accountSid: String { token.accountSid }
    var listenKey: ListenKey { ListenKey(accountSid: accountSid, identity: identity) }
    /// Whom the session's calls and media are charged to.
    var quotaOwner: QuotaOwner { QuotaOwner(accountSid: accountSid, identity: identity, apiKeySid: token.apiKeySid) }

    func send(_ message: SignalingMessage, ref: String? = nil) {
        if let socket {
            socket.send(message, ref: ref)
        } else if queued.count < Self.maxQueued {
            queued.append((message, ref))
        }
    }

    /// The socket went away: keep the session for the resume window.
    func detach() {
        socket = nil
        detachedAt = SystemClock.now
    }

    /// A new socket resumed the session: flush what queued up meanwhile.
    func attach(_ socket: SignalingSocket) {
        self.socket = socket
        detachedAt = nil
        expiryTask?.cancel()
        expiryTask = nil
        for (message, ref) in queued { socket.send(message, ref: ref) }
        queued.removeAll()
    }
}

/// An identity within an account: whom an invite for `client:<identity>` reaches.
struct ListenKey: Hashable, Sendable {
    var accountSid: String
    var identity: String
}

/// The parts of a verified access token a signaling session keeps.
struct SessionCredentials {
    let accountSid: String
    let identity: String
    /// The API key that signed the token (`iss`): revoking it ends the session.
    let apiKeySid: String
    let voice: VoiceGrant?
    /// What room signaling checks (`room.*` need a video grant).
    let video: VideoGrant?

    init(_ token: VerifiedToken) {
        accountSid = token.accountSid
        identity = token.identity
        apiKeySid = token.apiKeySid
        voice = token.voice
        video = token.video
    }
}
