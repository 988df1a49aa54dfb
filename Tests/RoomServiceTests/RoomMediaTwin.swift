import ParleyCore
import ParleyStore
import RoomService
import Signaling
import Synchronization

/// A `RoomMediaPlane` in memory: an "offer" is lines `send|recv <kind> <mid>`; it records what
/// the service asked of it (opens, routes, closes) and can fire a session's events.
final class RoomMediaTwin: RoomMediaPlane {
    struct Route: Equatable, CustomStringConvertible {
        let source: RoomTrackAddress?
        let slot: RoomTrackAddress
        var description: String { "\(source.map { "\($0.session)/\($0.mid)" } ?? "-")→\(slot.session)/\(slot.mid)" }
    }

    private struct State {
        var next = 0
        var routes: [Route] = []
        var closed: [String] = []
        var events: [String: @Sendable (RoomMediaEvent) -> Void] = [:]
    }

    private let state = Mutex(State())

    var routes: [Route] { state.withLock { $0.routes } }
    var closed: [String] { state.withLock { $0.closed } }

    /// The routes as `source→slot` strings, `-` for an emptied slot.
    var routeLog: [String] { routes.map(\.description) }

    func open(offer: String, events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription {
        let session = state.withLock { s -> String in
            s.next += 1
            s.events["S\(s.next)"] = events
            return "S\(s.next)"
        }
        return try Self.describe(offer, session: session)
    }

    func renegotiate(session: String, offer: String) async throws(ParleyError) -> RoomMediaDescription {
        guard state.withLock({ $0.events[session] != nil }) else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "no session \(session)")
        }
        return try Self.describe(offer, session: session)
    }

    func route(_ source: RoomTrackAddress?, to slot: RoomTrackAddress) async -> Bool {
        state.withLock { $0.routes.append(Route(source: source, slot: slot)) }
        return true
    }

    func close(session: String) async {
        state.withLock {
            $0.closed.append(session)
            $0.events[session] = nil
        }
    }

    /// Fires an event of `session` as the media loop would.
    func fire(_ event: RoomMediaEvent, session: String) {
        state.withLock { $0.events[session] }?(event)
    }

    /// An offer: `send audio 0`, `recv video 3`, … one a line.
    static func offer(_ lines: String...) -> String { lines.joined(separator: "\n") }

    private static func describe(_ offer: String, session: String) throws(ParleyError) -> RoomMediaDescription {
        var sending: [RoomMediaDescription.Section] = []
        var receiving: [RoomMediaDescription.Section] = []
        for line in offer.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 3, let kind = TrackKind(rawValue: words[1]) else {
                throw ParleyError(.mediaServerRemoteDescFailed, reason: "bad offer line \(line)")
            }
            let section = RoomMediaDescription.Section(mid: words[2], kind: kind)
            if words[0] == "send" { sending.append(section) } else { receiving.append(section) }
        }
        return RoomMediaDescription(session: session, answer: "answer of \(session)", sending: sending, receiving: receiving)
    }
}

/// A participant's link that records what it is sent, in order.
final class RecordingLink: RoomParticipantLink {
    private let log = Mutex<(all: [(SignalingMessage, String?)], taken: Int)>(([], 0))
    private let reasons = Mutex<[ParleyError.Code]>([])

    func send(_ message: SignalingMessage, ref: String?) async { log.withLock { $0.all.append((message, ref)) } }
    func removed(_ reason: ParleyError) async { reasons.withLock { $0.append(reason.code) } }

    /// Everything sent, and each message's `ref`.
    var messages: [SignalingMessage] { log.withLock { $0.all.map(\.0) } }
    var refs: [String?] { log.withLock { $0.all.map(\.1) } }
    var removals: [ParleyError.Code] { reasons.withLock { $0 } }

    /// The messages sent since the last call.
    func take() -> [SignalingMessage] {
        log.withLock { log in
            defer { log.taken = log.all.count }
            return log.all[log.taken...].map(\.0)
        }
    }
}
