/// What a track carries.
public enum TrackKind: String, Sendable, Hashable {
    case audio, video, data
}

/// How much a track matters to the subscribers' bandwidth allocation (Twilio's `Track.Priority`).
public enum TrackPriority: String, Sendable, Hashable {
    case low, standard, high
}
