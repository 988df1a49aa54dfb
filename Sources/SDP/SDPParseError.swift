/// Why a session description, or a standalone candidate, could not be parsed.
///
/// `line` is the 1-based line number of the offending line, or 0 when the problem concerns the
/// input as a whole (size, encoding, missing mandatory lines at the end).
public struct SDPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number, or 0 for the whole input.
    public var line: Int
    /// What was wrong.
    public var reason: Reason

    /// Creates an error for `line` (1-based, 0 for the whole input).
    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    /// The specific problem.
    public enum Reason: Sendable, Hashable {
        /// The input is larger than `SDPLimits.maxBytes`.
        case inputTooLarge(limit: Int)
        /// The input has more lines than `SDPLimits.maxLines`.
        case tooManyLines(limit: Int)
        /// The input has more `m=` sections than `SDPLimits.maxMediaSections`.
        case tooManyMediaSections(limit: Int)
        /// The bytes are not valid UTF-8 (JSEP, RFC 8829 §5.8, exchanges UTF-8 text).
        case invalidUTF8
        /// The input is empty.
        case empty
        /// A NUL or stray CR byte inside a line (RFC 8866 §9, `byte-string` excludes them).
        case invalidCharacter
        /// The line is not of the form `<lowercase letter>=<value>` (RFC 8866 §5).
        case malformedLine
        /// A type letter RFC 8866 §5 does not define.
        case unknownLineType(Character)
        /// A line of a known type where RFC 8866 §5 does not allow it (or a repeated one-only line).
        case unexpectedLine(Character)
        /// The first line is not `v=` (RFC 8866 §5.1).
        case missingVersion
        /// `v=` is not `0` (RFC 8866 §5.1).
        case unsupportedVersion
        /// A mandatory line is absent: `o=` and `s=` must follow `v=`, and at least one `t=` is
        /// required before the first `m=` (RFC 8866 §5).
        case missingLine(Character)
        /// `o=` does not have six fields with numeric session id and version (RFC 8866 §5.2).
        case invalidOrigin
        /// `c=` does not have three fields (RFC 8866 §5.7).
        case invalidConnection
        /// `b=` is not `<bwtype>:<bandwidth>` (RFC 8866 §5.8).
        case invalidBandwidth
        /// `t=` is not two decimal times (RFC 8866 §5.9).
        case invalidTiming
        /// `r=` is malformed or has no preceding `t=` (RFC 8866 §5.10).
        case invalidRepeat
        /// `z=` is not pairs of adjustment time and offset (RFC 8866 §5.11).
        case invalidTimeZone
        /// `m=` lacks media, port, proto or at least one format (RFC 8866 §5.14).
        case invalidMedia
        /// A port or port count is not a decimal integer in 0...65535.
        case invalidPort
        /// An attribute line has an empty name (RFC 8866 §5.13).
        case malformedAttribute
        /// A known attribute's value does not match its grammar; the associated value is the
        /// attribute name, e.g. `rtpmap` or `candidate`.
        case invalidAttributeValue(String)
    }

    /// A readable summary, e.g. `SDP line 6: invalidAttributeValue("rtpmap")`.
    public var description: String {
        line == 0 ? "SDP: \(reason)" : "SDP line \(line): \(reason)"
    }
}
