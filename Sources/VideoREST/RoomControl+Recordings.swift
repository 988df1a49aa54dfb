import ParleyCore
import ParleyStore
import SFU

extension RoomControl {
    /// Without a recorder no room has live rules.
    public func recordingRules(roomSid: String) async -> RecordingRules? { nil }
    public func updateRecordingRules(roomSid: String, _ rules: RecordingRules) async -> RecordingRules? { nil }
}

/// What `POST /v1/Compositions` asks of the composer (`RoomService`'s `CompositionQueue`
/// implements it): store the composition `enqueued`, call back `composition-enqueued`, and make
/// it when its turn comes.
public protocol CompositionControl: Sendable {
    /// - Throws: 53106 when the room is unknown, 31429 when the queue is full.
    func createComposition(_ request: CompositionCreateRequest) async throws(ParleyError) -> CompositionRecord
}

/// `POST /v1/Compositions`, validated.
public struct CompositionCreateRequest: Sendable, Equatable {
    public var accountSid: String
    public var roomSid: String
    public var audioSources: [String]
    public var audioSourcesExcluded: [String]
    /// The VideoLayout as compact JSON (empty: audio only).
    public var videoLayout: String
    /// `WIDTHxHEIGHT`, both even.
    public var resolution: String
    /// `webm` (VP8 and Opus) or `mp4` (H.264 and AAC).
    public var format: String
    public var trim: Bool
    public var statusCallback: String?
    public var statusCallbackMethod: String

    public init(accountSid: String, roomSid: String, audioSources: [String] = [], audioSourcesExcluded: [String] = [],
                videoLayout: String = "", resolution: String = "640x480", format: String = "webm", trim: Bool = true,
                statusCallback: String? = nil, statusCallbackMethod: String = "POST") {
        self.accountSid = accountSid
        self.roomSid = roomSid
        self.audioSources = audioSources
        self.audioSourcesExcluded = audioSourcesExcluded
        self.videoLayout = videoLayout
        self.resolution = resolution
        self.format = format
        self.trim = trim
        self.statusCallback = statusCallback
        self.statusCallbackMethod = statusCallbackMethod
    }

    /// Width and height of `resolution`.
    public var size: (width: Int, height: Int) {
        let parts = resolution.split(separator: "x").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : (640, 480)
    }
}
