import CSRTP

/// Why a packet could not be protected or unprotected. Cheap to throw on the packet path; the
/// owner usually counts and drops.
public enum SRTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The packet index is older than the replay window (RFC 3711 §3.3.2).
    case replayOld
    /// The packet index was already received (RFC 3711 §3.3.2), or, when protecting, was already sent.
    case replayFailed
    /// The authentication tag did not verify (RFC 3711 §3.4, RFC 7714 §9.2).
    case authenticationFailed
    /// Malformed packet or parameters (e.g. too short, bad header).
    case badParameter
    /// The SRTCP index would wrap: the session needs new keys (RFC 3711 §9.2).
    case keyLimitReached
    /// The buffer lacks room for the trailer; `needed` is the minimum capacity in bytes.
    case bufferTooSmall(needed: Int)
    /// Any other libsrtp2 status (`srtp_err_status_t`).
    case library(status: Int32)

    init(status: srtp_err_status_t) {
        switch status {
        case srtp_err_status_replay_old: self = .replayOld
        case srtp_err_status_replay_fail: self = .replayFailed
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_bad_param, srtp_err_status_parse_err: self = .badParameter
        default: self = .library(status: Int32(truncatingIfNeeded: status.rawValue))
        }
    }

    public var description: String {
        switch self {
        case .replayOld: "SRTP replay check failed (index too old)"
        case .replayFailed: "SRTP replay check failed (index repeated)"
        case .authenticationFailed: "SRTP authentication failed"
        case .badParameter: "SRTP bad parameter or malformed packet"
        case .keyLimitReached: "SRTP key usage limit reached (rekey needed)"
        case .bufferTooSmall(let needed): "SRTP buffer too small (needs \(needed) bytes)"
        case .library(let status): "libsrtp2 status \(status)"
        }
    }
}
