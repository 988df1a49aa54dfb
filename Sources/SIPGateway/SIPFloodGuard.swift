import ParleyCore
import ParleyNet
import SIP
import SIPWire
import Synchronization

/// The server's INVITE/REGISTER flood limit (`SIPFloodLimiter` per source address, behind a
/// lock), applied before either reaches the registrar or the B2BUA, and its counters for `/metrics`.
package final class SIPFloodGuard: Sendable {
    private struct State {
        var limiter: SIPFloodLimiter
        var refused = 0
        var dropped = 0
    }

    private let state: Mutex<State>
    private let transport = Mutex<SIPTransport?>(nil)
    private let clock: @Sendable () -> Double

    /// - Parameters: `rate`: INVITEs and REGISTERs a second one address may start (0: no limit); `burst`: at once.
    package init(rate: Double = 50, burst: Double = 100, clock: @escaping @Sendable () -> Double = { Double(SystemClock.now.nanoseconds) / 1e9 }) {
        state = Mutex(State(limiter: SIPFloodLimiter(rate: rate, burst: burst)))
        self.clock = clock
    }

    /// Where refusals are answered.
    package func attach(_ transport: SIPTransport) { self.transport.withLock { $0 = transport } }

    /// Requests answered 503 and requests dropped for going over the limit.
    package var counts: (refused: Int, dropped: Int) { state.withLock { ($0.refused, $0.dropped) } }

    /// Whether `message` is over its source's limit; if so it has been answered (503 with
    /// `Retry-After`) or dropped, and the caller does nothing more with it. Only new INVITEs
    /// (no To tag) and REGISTERs count.
    package func refuses(_ message: SIPMessage, from peer: SIPPeer) -> Bool {
        guard let request = message.request,
              request.method == .register || (request.method == .invite && request.to?.tag == nil) else { return false }
        let now = clock()
        let verdict = state.withLock { s -> SIPFloodLimiter.Verdict in
            let verdict = s.limiter.admit(peer.address.ipBytes, now: now)
            switch verdict {
            case .allow: break
            case .refuse: s.refused += 1
            case .drop: s.dropped += 1
            }
            return verdict
        }
        switch verdict {
        case .allow: return false
        case .drop: return true
        case .refuse(let seconds):
            transport.withLock { $0 }?.send(.response(SIPResponse(replyingTo: request, statusCode: 503, headers: ["Retry-After": "\(seconds)"])), to: peer)
            return true
        }
    }
}
