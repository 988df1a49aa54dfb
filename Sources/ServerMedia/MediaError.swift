/// Why server media (speech, fetched audio, playback, recording) could not be made. The engine
/// logs `description` and falls back (a short tone instead of `<Say>`, skipping a `<Play>`).
public struct MediaError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// `espeak-ng` is not installed (or not executable): `<Say>` has no voice.
        case speechUnavailable
        /// The synthesizer ran but failed, timed out or produced no audio.
        case speechFailed
        /// The URL is not `http(s)`, the request failed, or the status was not 200.
        case fetchFailed
        /// The response is not a WAV this server can play (MP3 and other formats are refused).
        case unsupportedFormat
        /// The body or the decoded audio exceeds the configured limit.
        case tooLarge
        /// Text or a digit string the source cannot play.
        case invalidInput
        /// A codec, resampler or file operation failed.
        case internalFailure
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
