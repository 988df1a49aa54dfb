/// How much network quality information is reported for a participant (the seed's
/// `NetworkQualityVerbosity`). Parley's server sends levels only (0–5, `room.networkQuality`,
/// docs/signaling.md §12), never the seed's detailed statistics, so `minimal` is all there is.
public enum NetworkQualityVerbosity: Sendable, Hashable {
    /// Nothing: no levels for the participant. For the local participant it means `minimal`
    /// (as in Twilio's SDK, where `none` is not valid there).
    case none
    /// The level only (`networkQualityLevel` and `networkQualityLevelDidChange`).
    case minimal
}

/// Whose network quality levels a participant hears (the seed's `NetworkQualityConfiguration`),
/// with `ConnectOptions.isNetworkQualityEnabled`. The server sends every level to a participant
/// that asked; with `remoteVerbosity` `.none` the SDK drops the others' levels (their
/// `networkQualityLevel` stays `.unknown` and `networkQualityLevelDidChange` is never called).
public struct NetworkQualityConfiguration: Sendable, Hashable {
    public var localVerbosity: NetworkQualityVerbosity
    public var remoteVerbosity: NetworkQualityVerbosity

    /// Twilio's defaults: our own level, none of the others'.
    public init(localVerbosity: NetworkQualityVerbosity = .minimal, remoteVerbosity: NetworkQualityVerbosity = .none) {
        self.localVerbosity = localVerbosity
        self.remoteVerbosity = remoteVerbosity
    }
}
