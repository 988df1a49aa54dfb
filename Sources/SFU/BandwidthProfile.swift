/// How a subscriber shares its downlink among the video tracks it receives: Twilio's
/// `BandwidthProfileOptions.video` (mode, maxSubscriptionBitrate, dominantSpeakerPriority,
/// trackSwitchOffMode, renderDimensions), applied by `VideoAllocator`.
public struct BandwidthProfile: Sendable, Hashable {
    /// How the budget is shared (Twilio's `mode`).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Every track alike: each gets one step more in turn, by priority.
        case grid
        /// Higher priorities first: a tier gets all it can use before the next one steps up.
        case collaboration
        /// The highest priority present gets all it can use; the others stay at their smallest layer.
        case presentation
    }

    /// When a track is switched off (Twilio's `trackSwitchOffMode`); a track switched off comes
    /// back once its smallest layer fits again.
    public enum SwitchOffMode: String, Sendable, Hashable, CaseIterable {
        /// Only once the subscriber's path showed congestion (`SubscriberBudget.congested`: loss in
        /// its receiver reports or a falling REMB) and the budget cannot carry the smallest layer.
        case detected
        /// As soon as the budget (the estimate of the path, capped by `maxSubscriptionBitrate`)
        /// cannot carry the smallest layer, congestion seen or not.
        case predicted
        /// Never: a track gets its smallest layer however little fits.
        case disabled
    }

    /// The largest picture a track of some priority is worth (Twilio's `renderDimensions`).
    public struct Dimensions: Sendable, Hashable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public var mode: Mode
    /// The most the subscriber receives in video, bits per second (nil: only its path limits it).
    public var maxSubscriptionBitrate: Int?
    /// The dominant speaker's video tracks count at least this priority.
    public var dominantSpeakerPriority: TrackPriority
    public var trackSwitchOffMode: SwitchOffMode
    /// Per priority: the largest layer worth sending is the largest no taller than this.
    public var renderDimensions: [TrackPriority: Dimensions]

    /// Twilio's defaults: grid, no cap, the dominant speaker at standard, predicted switch-off.
    public init(mode: Mode = .grid, maxSubscriptionBitrate: Int? = nil, dominantSpeakerPriority: TrackPriority = .standard,
                trackSwitchOffMode: SwitchOffMode = .predicted, renderDimensions: [TrackPriority: Dimensions] = [:]) {
        self.mode = mode
        self.maxSubscriptionBitrate = maxSubscriptionBitrate
        self.dominantSpeakerPriority = dominantSpeakerPriority
        self.trackSwitchOffMode = trackSwitchOffMode
        self.renderDimensions = renderDimensions
    }

    /// A subscribed track's priority under this profile: at least `dominantSpeakerPriority` while
    /// its publisher is the dominant speaker.
    public func effectivePriority(_ priority: TrackPriority, dominantSpeaker: Bool) -> TrackPriority {
        dominantSpeaker ? max(priority, dominantSpeakerPriority) : priority
    }
}
