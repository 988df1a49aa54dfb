import JSONWire

/// `room.join`'s `bandwidthProfile.video`: how the server shares the participant's downlink
/// among the video tracks it receives, in the shape of Twilio's `BandwidthProfileOptions.video`.
/// Absent members take Twilio's defaults (grid, no cap, dominant speaker standard, predicted).
public struct RoomBandwidthProfile: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable, CaseIterable { case grid, collaboration, presentation }
    public enum SwitchOffMode: String, Sendable, Equatable, CaseIterable { case detected, predicted, disabled }

    public struct Dimensions: Sendable, Equatable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    public var mode: Mode?
    /// Bits per second, 1 kbit/s to 1 Gbit/s.
    public var maxSubscriptionBitrate: Int?
    public var dominantSpeakerPriority: RoomTrackPriority?
    public var trackSwitchOffMode: SwitchOffMode?
    /// By track priority (`low`, `standard`, `high`), each at most 16384 × 16384.
    public var renderDimensions: [RoomTrackPriority: Dimensions]

    public init(mode: Mode? = nil, maxSubscriptionBitrate: Int? = nil, dominantSpeakerPriority: RoomTrackPriority? = nil,
                trackSwitchOffMode: SwitchOffMode? = nil, renderDimensions: [RoomTrackPriority: Dimensions] = [:]) {
        self.mode = mode
        self.maxSubscriptionBitrate = maxSubscriptionBitrate
        self.dominantSpeakerPriority = dominantSpeakerPriority
        self.trackSwitchOffMode = trackSwitchOffMode
        self.renderDimensions = renderDimensions
    }

    static let bitrates = 1_000...1_000_000_000
    static let sides = 1...16_384
}

extension RoomBandwidthProfile {
    /// Reads `bandwidthProfile` (its `video` member); nil when absent.
    init?(reading f: SignalingFieldReader) throws(SignalingError) {
        guard let profile = try f.optionalObject("bandwidthProfile"), let video = try profile.optionalObject("video") else {
            return nil
        }
        var dimensions: [RoomTrackPriority: Dimensions] = [:]
        if let render = try video.optionalObject("renderDimensions") {
            for priority in RoomTrackPriority.allCases {
                guard let size = try render.optionalObject(priority.rawValue) else { continue }
                dimensions[priority] = Dimensions(width: try size.int("width", in: Self.sides),
                                                  height: try size.int("height", in: Self.sides))
            }
        }
        let bitrate = try video.optionalInt("maxSubscriptionBitrate")
        if let bitrate, !Self.bitrates.contains(bitrate) {
            throw video.bad("\"maxSubscriptionBitrate\" must be within \(Self.bitrates)")
        }
        self.init(mode: try video.optionalEnumeration("mode"), maxSubscriptionBitrate: bitrate,
                  dominantSpeakerPriority: try video.optionalEnumeration("dominantSpeakerPriority"),
                  trackSwitchOffMode: try video.optionalEnumeration("trackSwitchOffMode"), renderDimensions: dimensions)
    }

    var json: JSONObject {
        var video = JSONObject()
        video.set("mode", mode?.rawValue)
        video.set("maxSubscriptionBitrate", maxSubscriptionBitrate)
        video.set("dominantSpeakerPriority", dominantSpeakerPriority?.rawValue)
        video.set("trackSwitchOffMode", trackSwitchOffMode?.rawValue)
        if !renderDimensions.isEmpty {
            var render = JSONObject()
            for priority in RoomTrackPriority.allCases {
                guard let size = renderDimensions[priority] else { continue }
                var object = JSONObject()
                object.set("width", size.width)
                object.set("height", size.height)
                render[priority.rawValue] = .object(object)
            }
            video["renderDimensions"] = .object(render)
        }
        var profile = JSONObject()
        profile["video"] = .object(video)
        return profile
    }
}
