import Signaling

/// How the server shares this client's downlink among the video it receives (the seed's
/// `BandwidthProfileOptions` / `VideoBandwidthProfileOptions`), sent in `room.join`.
public struct BandwidthProfileOptions: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable { case grid, collaboration, presentation }
    /// When the server switches off a track nothing fits: when loss or the estimate shows it
    /// (`detected`), before (`predicted`), or never (`disabled`).
    public enum TrackSwitchOffMode: String, Sendable, Equatable { case detected, predicted, disabled }

    public var mode: Mode?
    /// Bits per second for all video received together; nil: the estimate alone decides.
    public var maxSubscriptionBitrate: Int?
    /// The dominant speaker's video is treated with this priority.
    public var dominantSpeakerPriority: TrackPriority?
    public var trackSwitchOffMode: TrackSwitchOffMode?
    /// The size each priority's video is shown at: a layer larger than it is not sent.
    public var renderDimensions: [TrackPriority: (width: Int, height: Int)] = [:]

    public init(mode: Mode? = nil, maxSubscriptionBitrate: Int? = nil, dominantSpeakerPriority: TrackPriority? = nil,
                trackSwitchOffMode: TrackSwitchOffMode? = nil) {
        self.mode = mode
        self.maxSubscriptionBitrate = maxSubscriptionBitrate
        self.dominantSpeakerPriority = dominantSpeakerPriority
        self.trackSwitchOffMode = trackSwitchOffMode
    }

    public static func == (a: Self, b: Self) -> Bool { a.wire == b.wire }

    /// As `room.join` carries it (docs/signaling.md §12, bandwidthProfile).
    var wire: RoomBandwidthProfile {
        var dimensions: [RoomTrackPriority: RoomBandwidthProfile.Dimensions] = [:]
        for (priority, size) in renderDimensions {
            if let key = RoomTrackPriority(rawValue: priority.rawValue) { dimensions[key] = .init(width: size.width, height: size.height) }
        }
        return RoomBandwidthProfile(mode: mode.flatMap { RoomBandwidthProfile.Mode(rawValue: $0.rawValue) },
                                    maxSubscriptionBitrate: maxSubscriptionBitrate,
                                    dominantSpeakerPriority: dominantSpeakerPriority.flatMap { RoomTrackPriority(rawValue: $0.rawValue) },
                                    trackSwitchOffMode: trackSwitchOffMode.flatMap { RoomBandwidthProfile.SwitchOffMode(rawValue: $0.rawValue) },
                                    renderDimensions: dimensions)
    }
}
