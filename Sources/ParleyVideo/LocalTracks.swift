import Foundation

/// A track this client publishes: a name (unique among its tracks, at most 128 bytes) and
/// whether it is enabled (a disabled track's publication says so to everyone).
public protocol LocalTrack: AnyObject, Sendable {
    var name: String { get }
    var isEnabled: Bool { get }
}

/// Microphone audio (the seed's `LocalAudioTrack`). Media comes in the SDK's next step; today the
/// track is published and announced to the room.
public final class LocalAudioTrack: LocalTrack {
    public let name: String
    public var isEnabled: Bool { enabled.value }
    let enabled: Flag

    public init(name: String = "microphone", enabled: Bool = true) {
        self.name = name
        self.enabled = Flag(enabled)
    }
}

/// Camera or other video (the seed's `LocalVideoTrack`).
public final class LocalVideoTrack: LocalTrack {
    public let name: String
    public var isEnabled: Bool { enabled.value }
    let enabled: Flag

    public init(name: String = "camera", enabled: Bool = true) {
        self.name = name
        self.enabled = Flag(enabled)
    }
}

/// Messages to the room's other participants (the seed's `LocalDataTrack`): ordered and reliable
/// by default, or with a lifetime or retransmission limit.
public final class LocalDataTrack: LocalTrack {
    public let name: String
    public var isEnabled: Bool { true }
    public let isOrdered: Bool
    public let maxPacketLifeTime: Int?
    public let maxRetransmits: Int?

    public init(name: String = "data", isOrdered: Bool = true, maxPacketLifeTime: Int? = nil, maxRetransmits: Int? = nil) {
        self.name = name
        self.isOrdered = isOrdered
        self.maxPacketLifeTime = maxPacketLifeTime
        self.maxRetransmits = maxRetransmits
    }
}
