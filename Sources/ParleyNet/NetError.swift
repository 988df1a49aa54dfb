import Glibc

/// Errors from sockets, connections and protocols in ParleyNet.
public enum NetError: Error, Sendable, CustomStringConvertible {
    /// A system call failed with `errno`.
    case system(String, Int32)
    /// The host name did not resolve.
    case resolve(String)
    /// The URL is not `http(s)://` or `ws(s)://` with a host.
    case badURL(String)
    /// The operation did not finish in time.
    case timeout
    /// The connection closed before the operation finished.
    case connectionClosed
    /// TLS setup or handshake failed.
    case tls(String)
    /// The peer violated HTTP or WebSocket.
    case protocolViolation(String)
    /// The WebSocket opening handshake failed.
    case handshakeFailed(String)
    /// More bytes waited for a slow peer than the connection's cap allows.
    case outputOverflow(Int)
    /// The peer took no byte of our output for the stall timeout.
    case writeStalled

    public var description: String {
        switch self {
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .resolve(let host): "cannot resolve \(host)"
        case .badURL(let url): "bad URL \(url)"
        case .timeout: "timed out"
        case .connectionClosed: "connection closed"
        case .tls(let message): "TLS: \(message)"
        case .protocolViolation(let message): "protocol violation: \(message)"
        case .handshakeFailed(let message): "WebSocket handshake failed: \(message)"
        case .outputOverflow(let bytes): "peer not reading: \(bytes) bytes queued"
        case .writeStalled: "peer not reading: output stalled"
        }
    }
}
