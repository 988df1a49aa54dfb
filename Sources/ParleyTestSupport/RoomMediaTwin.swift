import ParleyCore
import ParleyStore
import RoomService
import SFU
import ServerMedia
import Synchronization

/// A `RoomMediaPlane` in memory: an "offer" is lines `send|recv <kind> <mid>`, and `data <mid>`
/// for a data channel section; it records what the service asked of it (opens, routes, data
/// routes, closes) and can fire a session's events.
public final class RoomMediaTwin: RoomMediaPlane {
    public struct Route: Equatable, CustomStringConvertible, Sendable {
        public let source: RoomTrackAddress?
        public let slot: RoomTrackAddress
        public var priority: TrackPriority = .standard
        public var description: String { "\(source.map { "\($0.session)/\($0.mid)" } ?? "-")→\(slot.session)/\(slot.mid)" }
    }

    /// A data route: a publisher's channel into a channel toward a subscriber.
    public struct DataRoute: Equatable, CustomStringConvertible, Sendable {
        public let source: RoomDataChannelAddress?
        public let sink: RoomDataChannelAddress
        public var description: String { "\(source.map { "\($0.session)/\($0.label)" } ?? "-")⇒\(sink.session)/\(sink.label)" }
    }

    private struct State {
        var next = 0
        public var routes: [Route] = []
        var dataRoutes: [DataRoute] = []
        public var closed: [String] = []
        public var profiles: [String: BandwidthProfile] = [:]
        var events: [String: @Sendable (RoomMediaEvent) -> Void] = [:]
        var taps: [RoomTrackAddress: @Sendable (TappedRTPPacket) -> Void] = [:]
        var codecs: [String: String] = [:]
        var keyframeRequests: [RoomTrackAddress] = []
        var played: [RoomTrackAddress: [[UInt8]]] = [:]
        var videoCodecs: [String: [[String]]] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public var routes: [Route] { state.withLock { $0.routes } }
    public var closed: [String] { state.withLock { $0.closed } }
    /// The bandwidth profile the service set for each session.
    public var profiles: [String: BandwidthProfile] { state.withLock { $0.profiles } }

    /// The routes as `source→slot` strings, `-` for an emptied slot.
    public var routeLog: [String] { routes.map(\.description) }

    /// The data routes as `session/label⇒session/label` strings, `-` for a closed channel.
    public var dataRouteLog: [String] { state.withLock { $0.dataRoutes.map(\.description) } }

    public func open(offer: String, events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription {
        let session = state.withLock { s -> String in
            s.next += 1
            s.events["S\(s.next)"] = events
            return "S\(s.next)"
        }
        return try Self.describe(offer, session: session)
    }

    public func open(offer: String, videoCodecs: [String], events: @escaping @Sendable (RoomMediaEvent) -> Void)
        async throws(ParleyError) -> RoomMediaDescription {
        let description = try await open(offer: offer, events: events)
        state.withLock { $0.videoCodecs[description.session, default: []].append(videoCodecs) }
        return description
    }

    public func renegotiate(session: String, offer: String, videoCodecs: [String]) async throws(ParleyError) -> RoomMediaDescription {
        let description = try await renegotiate(session: session, offer: offer)
        state.withLock { $0.videoCodecs[session, default: []].append(videoCodecs) }
        return description
    }

    /// The video codecs each session's offers were answered with (open, then each re-offer).
    public var videoCodecs: [String: [[String]]] { state.withLock { $0.videoCodecs } }

    public func renegotiate(session: String, offer: String) async throws(ParleyError) -> RoomMediaDescription {
        guard state.withLock({ $0.events[session] != nil }) else {
            throw ParleyError(.mediaServerRemoteDescFailed, reason: "no session \(session)")
        }
        return try Self.describe(offer, session: session)
    }

    public func route(_ source: RoomTrackAddress?, to slot: RoomTrackAddress, priority: TrackPriority) async -> Bool {
        state.withLock { $0.routes.append(Route(source: source, slot: slot, priority: priority)) }
        return true
    }

    public func routeData(_ source: RoomDataChannelAddress?, to sink: RoomDataChannelAddress) async -> Bool {
        state.withLock { $0.dataRoutes.append(DataRoute(source: source, sink: sink)) }
        return true
    }

    public func setBandwidthProfile(_ profile: BandwidthProfile, session: String) async {
        state.withLock { $0.profiles[session] = profile }
    }

    public func close(session: String) async {
        state.withLock {
            $0.closed.append(session)
            $0.events[session] = nil
        }
    }

    public func tap(_ section: RoomTrackAddress, _ tap: (@Sendable (TappedRTPPacket) -> Void)?) async -> String? {
        state.withLock { s in
            s.taps[section] = tap
            return s.events[section.session] == nil ? nil : s.codecs[section.mid] ?? "opus"
        }
    }

    public func requestKeyframe(_ section: RoomTrackAddress, ssrc: UInt32?) async {
        state.withLock { $0.keyframeRequests.append(section) }
    }

    public func play(_ payload: [UInt8], samples: Int, to slot: RoomTrackAddress) {
        state.withLock { $0.played[slot, default: []].append(payload) }
    }

    /// The frames the service played into each slot (the room's mix), in order.
    public var played: [RoomTrackAddress: [[UInt8]]] { state.withLock { $0.played } }

    /// The codec `tap` reports for sections with this mid (`opus` when not set).
    public func setCodec(_ codec: String, mid: String) { state.withLock { $0.codecs[mid] = codec } }

    /// The sections tapped now.
    public var tapped: [RoomTrackAddress] { state.withLock { Array($0.taps.keys) } }

    public var keyframeRequests: [RoomTrackAddress] { state.withLock { $0.keyframeRequests } }

    /// Delivers a packet to the tap of `section`, as the media loop would; false when none is set.
    @discardableResult
    public func deliver(_ packet: TappedRTPPacket, to section: RoomTrackAddress) -> Bool {
        guard let tap = state.withLock({ $0.taps[section] }) else { return false }
        tap(packet)
        return true
    }

    /// Fires an event of `session` as the media loop would.
    public func fire(_ event: RoomMediaEvent, session: String) {
        state.withLock { $0.events[session] }?(event)
    }

    /// An offer: `send audio 0`, `recv video 3`, … one a line.
    public static func offer(_ lines: String...) -> String { lines.joined(separator: "\n") }

    private static func describe(_ offer: String, session: String) throws(ParleyError) -> RoomMediaDescription {
        var sending: [RoomMediaDescription.Section] = []
        var receiving: [RoomMediaDescription.Section] = []
        var application: String?
        for line in offer.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words.count == 2, words[0] == "data" {
                application = words[1]
                continue
            }
            guard words.count == 3, let kind = TrackKind(rawValue: words[1]) else {
                throw ParleyError(.mediaServerRemoteDescFailed, reason: "bad offer line \(line)")
            }
            let section = RoomMediaDescription.Section(mid: words[2], kind: kind)
            if words[0] == "send" { sending.append(section) } else { receiving.append(section) }
        }
        return RoomMediaDescription(session: session, answer: "answer of \(session)", sending: sending, receiving: receiving,
                                    application: application)
    }
}

