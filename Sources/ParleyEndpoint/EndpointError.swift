/// Why a login, a call or a request failed: `code` is the SIP status when the far end or the
/// registrar answered one (401/403 credentials, 404, 486, 408 for no answer, 503 for a transport
/// failure), or one of the SDK's own below; `reason` says what happened. The seed's `NSError`
/// given to `onLoginFailedWithError` and the `error:` of `call(_:headers:error:)`.
public struct EndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var reason: String

    public init(code: Int, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The SDK's own codes (not SIP statuses).
    public static let invalidArgument = 1001
    public static let notLoggedIn = 1002
    public static let invalidState = 1003
    public static let mediaFailed = 1004

    static func invalid(_ reason: String) -> EndpointError { EndpointError(code: invalidArgument, reason: reason) }

    public var description: String { "\(reason) (\(code))" }
}
