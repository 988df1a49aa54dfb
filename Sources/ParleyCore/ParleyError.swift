import Foundation

/// The one error type of Parley's libraries.
///
/// Codes and names are those of the Voice SDK error table (see `ErrorCodes.swift`), so app code
/// written against the vendor SDK can keep switching on `code`. `failureReason` says what went
/// wrong in this case; `description` is the code's fixed text. Bridged to `NSError` with
/// `localizedDescription` and `localizedFailureReason`.
public struct ParleyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A numeric error code. A struct rather than an enum, so codes can be added without breaking
    /// exhaustive switches in app code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The seed's name for the code, e.g. `AccessTokenExpiredError`; `UnknownError` if not in the table.
        public var name: String { ParleyError.catalog[rawValue]?.name ?? "UnknownError" }
        /// The seed's fixed description of the code.
        public var text: String { ParleyError.catalog[rawValue]?.description ?? "Unknown error" }
        public var description: String { "\(rawValue) \(name)" }
    }

    /// The error domain used when bridged to `NSError`.
    public static let domain = "com.parley.error"

    public let code: Code
    /// What went wrong in this particular case (never contains secrets).
    public let failureReason: String?

    public init(_ code: Code, reason: String? = nil) {
        self.code = code
        self.failureReason = reason
    }

    public var name: String { code.name }
    /// The code's fixed description (the NSError `localizedDescription`).
    public var errorDescription: String { code.text }

    public var description: String {
        if let failureReason { return "\(code.rawValue) \(code.name): \(code.text) (\(failureReason))" }
        return "\(code.rawValue) \(code.name): \(code.text)"
    }
}

extension ParleyError: LocalizedError {
    public var recoverySuggestion: String? { nil }
}

extension ParleyError: CustomNSError {
    public static var errorDomain: String { domain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: code.text, "ParleyErrorName": code.name]
        if let failureReason { info[NSLocalizedFailureReasonErrorKey] = failureReason }
        return info
    }
}
