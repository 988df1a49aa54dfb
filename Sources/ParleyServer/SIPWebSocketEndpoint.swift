import ParleyNet
import SIP
import Synchronization

/// SIP over WebSocket (RFC 7118) on the server's HTTP and HTTPS listener, with `--sip`:
/// `GET /sip` upgrading with the `sip` subprotocol (RFC 7118 §4; an upgrade without it is refused
/// 400). Each socket becomes a `ws` (`wss` on HTTPS) peer of the running SIP service's transport.
enum SIPWebSocketEndpoint {
    static let path = "/sip"
    static let subprotocol = "sip"

    static func install(on http: HTTPServer, slot: SIPServiceSlot, secure: Bool) {
        http.addWebSocketRoute(path, subprotocol: subprotocol) { _, socket in
            guard let transport = slot.service.withLock({ $0?.transport }) else { return SIPTransport.refuse(socket) }
            return transport.accept(webSocket: socket, secure: secure)
        }
    }
}
