import AudioCore
import DataChannel
import Foundation
import Synchronization
import VideoCore

/// A track this client publishes: a name (unique among its tracks, at most 128 bytes) and
/// whether it is enabled (a disabled track's publication says so to everyone).
public protocol LocalTrack: AnyObject, Sendable {
    var name: String { get }
    var isEnabled: Bool { get }
}

/// An audio or video track: disabling it stops what it sends and tells the others
/// (`didDisable`); enabling it starts again.
protocol LocalMediaTrack: LocalTrack {
    var enabled: Flag { get }
}

/// Microphone audio (the seed's `LocalAudioTrack`): what `device` captures (a sound card through
/// `PulseAudioDevice`, a WAV file, a tone), sent as Opus. Without a device the track is published
/// and sends nothing. `isEnabled` false sends nothing either (the others see it disabled).
public final class LocalAudioTrack: LocalMediaTrack {
    public let name: String
    public let device: (any AudioDevice)?
    /// Sending (true), or paused with the others told it is disabled.
    public var isEnabled: Bool {
        get { enabled.value }
        set { enabled.value = newValue }
    }
    let enabled: Flag

    public init(name: String = "microphone", device: (any AudioDevice)? = nil, enabled: Bool = true) {
        self.name = name
        self.device = device
        self.enabled = Flag(enabled)
    }
}

/// Camera or other video (the seed's `LocalVideoTrack(source:)`): what `source` pushes (a
/// `TestPattern`, a Y4M or IVF file through `PacedVideoSource`, a capture device), encoded as VP8.
/// Without a source the track is published and sends nothing.
public final class LocalVideoTrack: LocalMediaTrack {
    public let name: String
    public let source: (any VideoSource)?
    /// Sending (true), or paused with the others told it is disabled.
    public var isEnabled: Bool {
        get { enabled.value }
        set { enabled.value = newValue }
    }
    let enabled: Flag

    public init(name: String = "camera", source: (any VideoSource)? = nil, enabled: Bool = true) {
        self.name = name
        self.source = source
        self.enabled = Flag(enabled)
    }
}

/// Messages to the room's other participants (the seed's `LocalDataTrack`): ordered and reliable
/// by default, or with a lifetime (milliseconds) or retransmission limit (RFC 8831 §6.1).
public final class LocalDataTrack: LocalTrack {
    public let name: String
    public var isEnabled: Bool { true }
    public let isOrdered: Bool
    public let maxPacketLifeTime: Int?
    public let maxRetransmits: Int?

    private struct State {
        var outbox: DataTrackOutbox?
        var pending: [DataTrackMessage] = []
    }

    private let state = Mutex(State())
    /// Messages sent before the track's channel opened wait, up to this many.
    static let maximumPending = 1_024

    public init(name: String = "data", isOrdered: Bool = true, maxPacketLifeTime: Int? = nil, maxRetransmits: Int? = nil) {
        self.name = name
        self.isOrdered = isOrdered
        self.maxPacketLifeTime = maxPacketLifeTime
        self.maxRetransmits = maxRetransmits
    }

    /// Sends a text message to every subscriber (in order, for an ordered track). Before the
    /// track's channel is open messages wait (up to 1,024; later ones are dropped).
    public func send(_ message: String) { enqueue(DataTrackMessage(bytes: Array(message.utf8), isBinary: false)) }

    /// Sends a binary message.
    public func send(_ message: Data) { enqueue(DataTrackMessage(bytes: Array(message), isBinary: true)) }

    var reliability: DataChannelOpen.Reliability {
        if let maxRetransmits { return .maxRetransmits(UInt32(clamping: max(0, maxRetransmits))) }
        if let maxPacketLifeTime { return .maxPacketLifeTime(UInt32(clamping: max(0, maxPacketLifeTime))) }
        return .reliable
    }

    private func enqueue(_ message: DataTrackMessage) {
        let outbox = state.withLock { s -> DataTrackOutbox? in
            if s.outbox == nil, s.pending.count < Self.maximumPending { s.pending.append(message) }
            return s.outbox
        }
        outbox?.send(message)
    }

    /// The track's channel is open: what waited goes first.
    func bind(_ outbox: DataTrackOutbox) {
        let pending = state.withLock { s -> [DataTrackMessage] in
            s.outbox = outbox
            defer { s.pending = [] }
            return s.pending
        }
        for message in pending { outbox.send(message) }
    }

    /// The track was unpublished: its channel, if open, is handed back to be closed; messages
    /// sent from now on wait for a next publication.
    func unbind() -> DataTrackOutbox? {
        state.withLock { s in
            defer { s.outbox = nil }
            return s.outbox
        }
    }
}
