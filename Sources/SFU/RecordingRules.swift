/// A room's recording rules (Twilio's Video v1 `RecordingRules`): which published tracks the
/// room records. The rule shape and matching are `SubscribeRules`' (`type` include or exclude,
/// `all`, `publisher`, `track`, `kind`; no `priority`): rules are read in order and a track is
/// recorded when the last rule that matches it is an `include`; none matching, it is not.
public struct RecordingRules: Sendable, Equatable {
    public var rules: [SubscribeRules.Rule]

    public init(rules: [SubscribeRules.Rule]) { self.rules = rules }

    /// Every audio and video track: what `RecordParticipantsOnConnect=true` means.
    public static let recordAll = RecordingRules(rules: [.init(action: .include, all: true)])
    /// Nothing: a room's rules when it records nothing.
    public static let recordNone = RecordingRules(rules: [.init(action: .exclude, all: true)])

    /// Whether `track` is recorded. Data tracks never are.
    public func records(_ track: SubscribeRules.TrackDescriptor) -> Bool {
        track.kind != "data" && SubscribeRules(rules: rules).subscribes(to: track)
    }
}
