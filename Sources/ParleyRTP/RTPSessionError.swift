import ParleySRTP
import RTP

/// Why an RTP session refused a packet. Cheap to throw on the packet path: owners count and drop.
public enum RTPSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The session needs SRTP and has no keys yet (DTLS not finished).
    case notKeyed
    /// SRTP or SRTCP refused the packet (authentication, replay, no room for the trailer).
    case srtp(SRTPError)
    /// Not a valid RTP packet once unprotected (RFC 3550 §5.1).
    case malformedRTP(RTPError)
    /// The packet does not fit the buffer with its SRTP trailer.
    case tooLarge(needed: Int, available: Int)
    /// A send stream index the session does not have.
    case noSuchStream(Int)

    public var description: String {
        switch self {
        case .notKeyed: "rtp session: SRTP not keyed yet"
        case .srtp(let error): "rtp session: \(error)"
        case .malformedRTP(let error): "rtp session: \(error)"
        case .tooLarge(let needed, let available): "rtp session: packet needs \(needed) bytes, buffer has \(available)"
        case .noSuchStream(let index): "rtp session: no send stream \(index)"
        }
    }
}
