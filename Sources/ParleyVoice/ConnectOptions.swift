import AudioCore
import Foundation
import ICE

/// An ICE server for calls (the seed's `TVOIceServer`, W3C `RTCIceServer` with one URL): STUN
/// (`stun:IP:PORT`) or TURN (`turn:IP:PORT[?transport=udp]`). Which candidates a call may use is
/// ICE's `ICETransportPolicy` (`.all`, or `.relay` for TURN relays only, which hides the device's
/// addresses).
public struct ICEServer: Sendable, Hashable {
    public var urlString: String
    public var username: String?
    public var password: String?

    public init(urlString: String, username: String? = nil, password: String? = nil) {
        self.urlString = urlString
        self.username = username
        self.password = password
    }
}

/// An audio codec the app prefers, in order (the seed's `TVOAudioCodec`s).
public enum AudioCodecPreference: Sendable, Hashable {
    /// Opus; `maxAverageBitrate` (bits per second, 6,000…510,000) asks the far end to send at most that.
    case opus(maxAverageBitrate: Int? = nil)
    case pcmu
    case pcma
}

/// Audio processing options of a call.
public struct AudioOptions: Sendable, Hashable {
    /// Bounds of the jitter buffer's target delay (20 ms and 400 ms by default; each is taken
    /// within 0…10 s, and a maximum below the minimum is raised to it).
    public var minimumJitterBufferDelay: Duration = .milliseconds(20)
    public var maximumJitterBufferDelay: Duration = .milliseconds(400)
    /// Noise suppression where the platform has it. Parley on Linux has none yet: the flag is kept
    /// and ignored.
    public var noiseSuppression = true

    public init() {}
}

/// What every call has, outgoing or accepted: codecs, ICE, edge, QoS, audio, where callbacks go.
public struct CallMediaOptions: Sendable {
    /// Codecs in preference order (default Opus, PCMU, PCMA).
    public var preferredAudioCodecs: [AudioCodecPreference] = [.opus(), .pcmu, .pcma]
    public var iceServers: [ICEServer] = []
    public var iceTransportPolicy: ICETransportPolicy = .all
    /// The edge for this call (a name in `Voice.servers`); nil uses `Voice.edge`.
    public var edge: String?
    /// Mark media packets with DSCP EF (46). Kept for API parity; Parley does not set it yet.
    public var enableDSCP = true
    public var audioOptions = AudioOptions()
    /// Receives call messages of this call (received, sent, failed); held weakly, like the call's
    /// delegate.
    public weak var callMessageDelegate: (any CallMessageDelegate)?
    /// The queue delegate methods run on; nil means the main queue on Apple platforms (as in the
    /// seed) and the SDK's own serial queue on Linux, where nothing runs the main queue.
    public var delegateQueue: DispatchQueue?
    /// This call's audio device instead of `Voice.audioDevice` (a Parley addition: two calls in one
    /// process, as in tests and `parley demo`, each with its own device).
    public var audioDevice: (any AudioDevice)?

    public init() {}
}

/// How to place an outgoing call (the seed's `TVOConnectOptions`), built with a block:
///
///     let options = ConnectOptions(accessToken: token) { builder in
///         builder.params = ["To": "bob"]
///         builder.uuid = UUID()
///     }
@dynamicMemberLookup
public struct ConnectOptions: Sendable {
    public var accessToken: String
    /// Parameters for the application's webhook (TwiML); `To` names whom to call.
    public var params: [String: String] = [:]
    /// The call's UUID (for CallKit and the like); random by default.
    public var uuid = UUID()
    public var media = CallMediaOptions()

    public init(accessToken: String, block: (inout ConnectOptions) -> Void = { _ in }) {
        self.accessToken = accessToken
        block(&self)
    }

    public subscript<T>(dynamicMember keyPath: WritableKeyPath<CallMediaOptions, T>) -> T {
        get { media[keyPath: keyPath] }
        set { media[keyPath: keyPath] = newValue }
    }
}

/// How to accept an incoming call (the seed's `TVOAcceptOptions`), built with a block from the
/// invite. `accessToken` is needed only for an invite that came through push (`handleNotification`)
/// and not through a live `listen` connection: the SDK then connects with it to answer.
@dynamicMemberLookup
public struct AcceptOptions: Sendable {
    public let callInvite: CallInvite
    public var accessToken: String?
    public var uuid: UUID
    public var media = CallMediaOptions()

    public init(callInvite: CallInvite, block: (inout AcceptOptions) -> Void = { _ in }) {
        self.callInvite = callInvite
        uuid = callInvite.uuid
        block(&self)
    }

    public subscript<T>(dynamicMember keyPath: WritableKeyPath<CallMediaOptions, T>) -> T {
        get { media[keyPath: keyPath] }
        set { media[keyPath: keyPath] = newValue }
    }
}
