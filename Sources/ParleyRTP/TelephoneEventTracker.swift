import RTP

/// Turns a stream of RFC 4733 telephone-event packets into keys, each reported once.
///
/// An event is one RTP timestamp (§2.3.5: every packet of an event carries its start); it ends
/// with E-bit packets, sent three times (§2.5.1.4). The key is reported at the first E-bit packet;
/// if every end packet is lost it is reported when a packet of another event arrives, or by
/// `expire(now:)` 2 s after the event's last packet (§2.5.2.2 lets the receiver end it). Only the
/// first block of a packet is read: several events in one packet (§2.5.1.5) are rare for DTMF.
///
/// A value type with no I/O; time (`now`, seconds) is passed in.
public struct TelephoneEventTracker {
    public static let expiry = 2.0

    private var lastReportedTimestamp: UInt32?
    private var pending: (timestamp: UInt32, event: UInt8, lastSeen: Double)?

    /// Keys completed by this packet: none, one, or two (an unfinished previous event and this one).
    public init() {}

    public mutating func receive(payload: UnsafeRawBufferPointer, timestamp: UInt32, now: Double) -> (Character?, Character?) {
        guard let block = try? TelephoneEvent(parsing: payload) else { return (nil, nil) }
        var first: Character?
        if let pending, pending.timestamp != timestamp {
            first = report(pending.event, timestamp: pending.timestamp)
            self.pending = nil
        }
        var second: Character?
        if block.isEnd {
            second = report(block.event, timestamp: timestamp)
            pending = nil
        } else if lastReportedTimestamp != timestamp {
            pending = (timestamp, block.event, now)
        }
        return first == nil ? (second, nil) : (first, second)
    }

    /// The pending key, if its event has been silent for `expiry` seconds.
    public mutating func expire(now: Double) -> Character? {
        guard let pending, now - pending.lastSeen >= Self.expiry else { return nil }
        self.pending = nil
        return report(pending.event, timestamp: pending.timestamp)
    }

    private mutating func report(_ event: UInt8, timestamp: UInt32) -> Character? {
        guard lastReportedTimestamp != timestamp else { return nil }
        lastReportedTimestamp = timestamp
        return Self.key(event)
    }

    /// The DTMF key of an event code (RFC 4733 §3.2: 0–9, 10 `*`, 11 `#`, 12–15 `A`–`D`); nil for
    /// other events (tones, line events).
    public static func key(_ event: UInt8) -> Character? {
        switch event {
        case 0...9: Character(Unicode.Scalar(UInt8(ascii: "0") + event))
        case 10: "*"
        case 11: "#"
        case 12...15: Character(Unicode.Scalar(UInt8(ascii: "A") + event - 12))
        default: nil
        }
    }
}
