import Foundation

/// How to connect to a room (the seed's `ConnectOptions`), made with a builder:
///
/// ```swift
/// let options = ConnectOptions(token: token) { builder in
///     builder.roomName = "my-room"
///     builder.audioTracks = [LocalAudioTrack(name: "mic")]
/// }
/// ```
public struct ConnectOptions: Sendable {
    /// The access token (its video grant names the room, or any room).
    public var token: String
    /// The room to join; created (as a `group` room) when none by that name is in progress.
    public var roomName: String?
    public var audioTracks: [LocalAudioTrack]
    public var videoTracks: [LocalVideoTrack]
    public var dataTracks: [LocalDataTrack]
    /// Subscribe to every track the others publish (default true); off, nothing is received.
    public var isAutomaticSubscriptionEnabled: Bool
    /// Hear `dominantSpeakerDidChange` (default false, as in Twilio's SDK).
    public var isDominantSpeakerEnabled: Bool
    /// Hear network quality levels (default false).
    public var isNetworkQualityEnabled: Bool
    /// The video codecs to send, most preferred first (the seed's `preferredVideoCodecs`): VP8,
    /// with three simulcast layers (`q`, `h`, `f`) when asked.
    public var preferredVideoCodecs: [VideoCodec]
    /// The most our audio and video send (nil: no limit but the server's estimate); change it
    /// later with `LocalParticipant.setEncodingParameters(_:)`.
    public var encodingParameters: EncodingParameters?
    /// How the server shares our downlink among the video we receive; nil: its defaults.
    public var bandwidthProfileOptions: BandwidthProfileOptions?
    /// The edge (a name in `Video.servers`); nil: `Video.edge`.
    public var edge: String?
    /// Where delegate methods run; nil: the SDK's default queue.
    public var delegateQueue: DispatchQueue?
    public var uuid: UUID

    /// Options with `token`, then changed by `block` (the builder).
    public init(token: String, block: (inout ConnectOptions) -> Void = { _ in }) {
        self.token = token
        roomName = nil
        audioTracks = []
        videoTracks = []
        dataTracks = []
        isAutomaticSubscriptionEnabled = true
        isDominantSpeakerEnabled = false
        isNetworkQualityEnabled = false
        preferredVideoCodecs = [.vp8(simulcast: false)]
        bandwidthProfileOptions = nil
        encodingParameters = nil
        edge = nil
        delegateQueue = nil
        uuid = UUID()
        block(&self)
    }
}

/// A video codec the SDK sends (the seed's `Vp8Codec`).
public enum VideoCodec: Sendable, Hashable {
    case vp8(simulcast: Bool)

    var isSimulcast: Bool {
        switch self {
        case .vp8(let simulcast): simulcast
        }
    }
}
