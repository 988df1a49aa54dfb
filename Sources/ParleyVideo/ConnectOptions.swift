import Foundation
import ParleyAudio
import WebRTC

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
    /// Whose levels we hear with `isNetworkQualityEnabled` (the seed's
    /// `networkQualityConfiguration`; default: ours minimal, the others' none, as Twilio's).
    public var networkQualityConfiguration: NetworkQualityConfiguration
    /// The audio codecs to send and receive, most preferred first (the seed's
    /// `preferredAudioCodecs`; default Opus, PCMU, PCMA): every audio section of our offer lists
    /// these only, in this order; the server answers Opus whenever it is offered (its own
    /// preference), so G.711 is sent when Opus is left out (`[.pcmu]`). The server
    /// forwards a track only to receive slots of the same codec (it does not transcode): a PCMU
    /// publisher is heard by participants whose slots took PCMU. Peer-to-peer rooms use Opus.
    public var preferredAudioCodecs: [AudioCodec]
    /// The video codecs to send, most preferred first (the seed's `preferredVideoCodecs`): VP8,
    /// with three simulcast layers (`q`, `h`, `f`) when asked.
    public var preferredVideoCodecs: [VideoCodec]
    /// The most our audio and video send (nil: no limit but the server's estimate); change it
    /// later with `LocalParticipant.setEncodingParameters(_:)`.
    public var encodingParameters: EncodingParameters?
    /// How the server shares our downlink among the video we receive; nil: its defaults.
    public var bandwidthProfileOptions: BandwidthProfileOptions?
    /// STUN/TURN servers and the transport policy of the room's media (nil: none of our own, all
    /// candidates).
    public var iceOptions: ICEOptions?
    /// Whether this room's SDK events go to the server's Insights (default true, as the seed's;
    /// `Video.isInsightsEnabled` off turns them off for every room).
    public var isInsightsEnabled: Bool
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
        networkQualityConfiguration = NetworkQualityConfiguration()
        preferredAudioCodecs = [.opus, .pcmu, .pcma]
        preferredVideoCodecs = [.vp8(simulcast: false)]
        bandwidthProfileOptions = nil
        encodingParameters = nil
        iceOptions = nil
        isInsightsEnabled = true
        edge = nil
        delegateQueue = nil
        uuid = UUID()
        block(&self)
    }
}

/// An audio codec the SDK sends and receives (the seed's `OpusCodec`, `PcmuCodec`, `PcmaCodec`).
public enum AudioCodec: Sendable, Hashable, CaseIterable {
    /// Opus at 48 kHz (40 kbit/s unless `EncodingParameters` caps it).
    case opus
    /// G.711 µ-law, 64 kbit/s.
    case pcmu
    /// G.711 A-law, 64 kbit/s.
    case pcma
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

extension AudioCodec {
    /// The codec as offered in SDP.
    var wire: WebRTC.AudioCodec {
        switch self {
        case .opus: .opus
        case .pcmu: .pcmu
        case .pcma: .pcma
        }
    }

    /// The audio engine's codec.
    var kind: AudioCodecKind {
        switch self {
        case .opus: .opus
        case .pcmu: .pcmu
        case .pcma: .pcma
        }
    }

    /// The codec an answer chose.
    init(_ negotiated: WebRTC.AudioCodec) {
        switch negotiated {
        case .opus: self = .opus
        case .pcmu: self = .pcmu
        case .pcma: self = .pcma
        }
    }
}
