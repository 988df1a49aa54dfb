import SIPWire

/// An RFC 4028 session timer for one dialog, on a clock the owner passes in (seconds): what we
/// answer an INVITE that asks for one, when the session must be refreshed and by whom, and when a
/// session nobody refreshed is over. A value: the owner asks ``due(now:)`` at ``nextCheck`` and
/// does what it says (send a refresh, or BYE).
public struct SIPSessionTimer: Sendable, Hashable {
    /// Who refreshes: us, or the peer (RFC 4028 §7.1's `refresher`, seen from our side).
    public enum Refresher: Sendable, Hashable { case local, remote }

    /// What to do now.
    public enum Action: Sendable, Hashable {
        /// We refresh: a re-INVITE (or UPDATE) with ``refreshHeaders(allowsUpdate:)`` (§7.4, at half the interval).
        case refresh
        /// The peer should have refreshed and did not (§10): send BYE.
        case expired
    }

    /// Answering an INVITE (§9).
    public enum Negotiation: Sendable, Hashable {
        /// Go on with this timer; put ``responseHeaders`` in the 2xx.
        case accept(SIPSessionTimer)
        /// The asked interval is below our minimum: answer `422` with `Min-SE` of this many seconds.
        case tooSmall(minSE: UInt32)
        /// No session timer for this dialog.
        case none
    }

    /// RFC 4028 §4's floor for Min-SE.
    public static let minimumFloor: UInt32 = 90

    public private(set) var interval: UInt32
    public private(set) var refresher: Refresher
    /// When the session was last refreshed (the 2xx to the INVITE or to the last refresh).
    public private(set) var refreshedAt: Double
    /// The peer said `Supported: timer` (it may then be asked to refresh, and takes `Require: timer`).
    public let peerSupportsTimer: Bool

    public init(interval: UInt32, refresher: Refresher, refreshedAt: Double, peerSupportsTimer: Bool) {
        self.interval = interval
        self.refresher = refresher
        self.refreshedAt = refreshedAt
        self.peerSupportsTimer = peerSupportsTimer
    }

    /// Our answer to `request` (an INVITE, or a refreshing re-INVITE/UPDATE) as UAS (§9): an
    /// interval under `minSE` (ours, and the request's `Min-SE` if larger) is refused 422;
    /// otherwise the asked interval (or `preferred` when none is asked and `preferred` is set)
    /// with the refresher the request names, else the peer when it supports `timer`, else us.
    public static func negotiate(_ request: SIPRequest, now: Double, minSE: UInt32 = minimumFloor,
                                 preferred: UInt32? = 1800) -> Negotiation {
        let supports = request.supported.contains { $0.lowercased() == "timer" }
        let floor = max(minSE, minimumFloor, request.minSE ?? 0)
        guard let asked = request.sessionExpires else {
            guard let preferred else { return .none }
            // §9: without Session-Expires in the request the UAS may still use one, refreshing
            // itself when the UAC does not support timer.
            return .accept(SIPSessionTimer(interval: max(preferred, floor), refresher: supports ? .remote : .local,
                                           refreshedAt: now, peerSupportsTimer: supports))
        }
        guard asked.seconds >= floor else { return .tooSmall(minSE: floor) }
        let refresher: Refresher = switch asked.refresher {
        case .uac: .remote
        case .uas: .local
        case nil: supports ? .remote : .local
        }
        return .accept(SIPSessionTimer(interval: asked.seconds, refresher: supports ? refresher : .local, refreshedAt: now,
                                       peerSupportsTimer: supports))
    }

    /// The timer of a dialog we opened as UAC, from the 2xx to our INVITE (§7.2): none unless it
    /// carries `Session-Expires` (at least the floor); `refresher=uac` is us, `uas` the peer, and
    /// with no refresher named we refresh (§7.2: the UAC then decides, and we do).
    public static func accepted(_ response: SIPResponse, now: Double) -> SIPSessionTimer? {
        guard let expires = response.sessionExpires, expires.seconds >= minimumFloor else { return nil }
        let supports = (response.supported + response.require).contains { $0.lowercased() == "timer" }
        return SIPSessionTimer(interval: expires.seconds, refresher: expires.refresher == .uas ? .remote : .local,
                               refreshedAt: now, peerSupportsTimer: supports)
    }

    /// Headers for our 2xx to the request we answered (§9): `Session-Expires` with the refresher
    /// in that transaction's roles, and `Require: timer` when the peer (the UAC) refreshes.
    public var responseHeaders: SIPHeaders {
        var headers = SIPHeaders()
        headers.add("Session-Expires", SIPSessionExpires(seconds: interval, refresher: refresher == .remote ? .uac : .uas).headerValue)
        if refresher == .remote { headers.add("Require", "timer") }
        return headers
    }

    /// Headers for a refresh we send (§7.4): we are its UAC and stay the refresher; `Supported`
    /// so the peer may answer with its own Session-Expires.
    public var refreshHeaders: SIPHeaders {
        var headers = SIPHeaders()
        headers.add("Session-Expires", SIPSessionExpires(seconds: interval, refresher: .uac).headerValue)
        headers.add("Supported", "timer")
        return headers
    }

    /// When ``due(now:)`` may next say something: half the interval for us (§7.4); for the peer,
    /// the interval less a third of it or 32 s, whichever is smaller (§10).
    public var nextCheck: Double {
        switch refresher {
        case .local: refreshedAt + Double(interval) / 2
        case .remote: refreshedAt + Double(interval) - min(32, Double(interval) / 3)
        }
    }

    /// What to do at `now`: nil before ``nextCheck``; when we refresh and no refresh has
    /// succeeded within the whole interval, the session is over all the same.
    public func due(now: Double) -> Action? {
        guard now >= nextCheck else { return nil }
        guard refresher == .local, now < refreshedAt + Double(interval) else { return .expired }
        return .refresh
    }

    /// A refresh succeeded at `now`: the peer's (a 2xx we sent to its re-INVITE or UPDATE, with
    /// the timer that request negotiated) or ours (a 2xx to it, whose `Session-Expires` may
    /// change the interval and refresher, §7.4: in our refresh we were the UAC).
    public mutating func refreshed(now: Double, negotiated: SIPSessionTimer? = nil, response: SIPResponse? = nil) {
        refreshedAt = now
        if let negotiated {
            interval = negotiated.interval
            refresher = negotiated.refresher
        } else if let expires = response?.sessionExpires, expires.seconds >= Self.minimumFloor {
            interval = expires.seconds
            refresher = expires.refresher == .uas ? .remote : .local
        }
    }

    /// Our refresh was answered 422 (§7.4): try again with the peer's Min-SE as the interval.
    public mutating func raise(toMinSE minSE: UInt32) {
        interval = max(interval, minSE)
    }
}
