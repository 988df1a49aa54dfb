/// A participant's subscribe rules (Twilio's Video v1 `SubscribeRules`): which published tracks
/// it receives. Rules are read in order; a track is subscribed when the last rule that matches
/// it is an `include` (none matching: not subscribed). The default is `[include all]`.
public struct SubscribeRules: Sendable, Equatable {
    public struct Rule: Sendable, Equatable {
        public enum Action: String, Sendable { case include, exclude }
        public var action: Action
        /// `all: true` matches every track; otherwise every filter given must match.
        public var all: Bool
        /// A publisher's identity (Twilio's `publisher`).
        public var publisher: String?
        /// A track's name or SID (Twilio's `track`).
        public var track: String?
        /// `audio`, `video` or `data`.
        public var kind: String?
        /// `low`, `standard` or `high`.
        public var priority: String?

        public init(action: Action, all: Bool = false, publisher: String? = nil, track: String? = nil,
                    kind: String? = nil, priority: String? = nil) {
            self.action = action
            self.all = all
            self.publisher = publisher
            self.track = track
            self.kind = kind
            self.priority = priority
        }

        /// Whether the rule names this track.
        public func matches(_ track: TrackDescriptor) -> Bool {
            if all { return true }
            guard publisher != nil || self.track != nil || kind != nil || priority != nil else { return false }
            if let publisher, publisher != track.publisherIdentity { return false }
            if let name = self.track, name != track.name, name != track.sid { return false }
            if let kind, kind != track.kind { return false }
            if let priority, priority != track.priority { return false }
            return true
        }
    }

    /// What a rule is matched against.
    public struct TrackDescriptor: Sendable, Equatable {
        public var sid: String
        public var name: String
        public var kind: String
        public var priority: String
        public var publisherIdentity: String

        public init(sid: String, name: String, kind: String, priority: String, publisherIdentity: String) {
            self.sid = sid
            self.name = name
            self.kind = kind
            self.priority = priority
            self.publisherIdentity = publisherIdentity
        }
    }

    public var rules: [Rule]

    public init(rules: [Rule]) { self.rules = rules }

    /// Every track: `[{"type": "include", "all": true}]`.
    public static let subscribeAll = SubscribeRules(rules: [Rule(action: .include, all: true)])
    /// Nothing: `[{"type": "exclude", "all": true}]`.
    public static let subscribeNone = SubscribeRules(rules: [Rule(action: .exclude, all: true)])

    /// Whether the participant receives `track`.
    public func subscribes(to track: TrackDescriptor) -> Bool {
        rules.last { $0.matches(track) }?.action == .include
    }
}
