import ParleyRTP
import RTP

/// Keys sent to the peer as RFC 4733 telephone events: each key is 100 ms of event packets every
/// 20 ms (the same timestamp, a growing duration, the marker on the first, §2.5.1.1–§2.5.1.3),
/// then its end packet three times (§2.5.1.4), then 40 ms of pause; `w` pauses 500 ms. Audio the
/// server plays meanwhile is dropped, so the event's timestamp is not overtaken.
struct DigitSender {
    private var queue: [Character] = []
    private var current: (event: UInt8, packet: Int)?
    private var pauseTicks = 0

    static let tonePackets = 5
    static let endPackets = 3
    static let gapTicks = 2
    static let maxQueued = 64

    var isBusy: Bool { current != nil || pauseTicks > 0 || !queue.isEmpty }
    /// An event is being sent: played audio waits.
    var holdsAudio: Bool { current != nil }

    /// Queues `digits`; false if any is not a key (`0-9*#A-D`, `w`) or the queue is full.
    mutating func enqueue(_ digits: String) -> Bool {
        let keys = digits.uppercased().filter { !$0.isWhitespace }
        guard keys.allSatisfy({ Self.event(for: $0) != nil || $0 == "W" }), queue.count + keys.count <= Self.maxQueued else { return false }
        queue.append(contentsOf: keys)
        return true
    }

    /// The packet due this 20 ms tick: its event, its duration in packets, whether it is an end
    /// packet, the event's first or its very last packet; nil when nothing is due.
    mutating func tick() -> (event: UInt8, packets: Int, end: Bool, first: Bool, last: Bool)? {
        if pauseTicks > 0 {
            pauseTicks -= 1
            return nil
        }
        if current == nil {
            guard !queue.isEmpty else { return nil }
            let key = queue.removeFirst()
            guard let event = Self.event(for: key) else {
                pauseTicks = 25
                return nil
            }
            current = (event, 0)
        }
        guard var (event, packet) = current else { return nil }
        defer { current = packet >= Self.tonePackets + Self.endPackets ? nil : (event, packet) }
        packet += 1
        if packet >= Self.tonePackets + Self.endPackets { pauseTicks = Self.gapTicks }
        return (event, min(packet, Self.tonePackets), packet > Self.tonePackets, packet == 1, packet == Self.tonePackets + Self.endPackets)
    }

    /// RFC 4733 §3.2 event codes.
    static func event(for key: Character) -> UInt8? {
        switch key {
        case "0"..."9": key.asciiValue.map { $0 - UInt8(ascii: "0") }
        case "*": 10
        case "#": 11
        case "A"..."D": key.asciiValue.map { $0 - UInt8(ascii: "A") + 12 }
        default: nil
        }
    }
}

extension SIPMediaLeg {
    /// Sends this tick's telephone-event packet, if one is due. False when nothing is left to send.
    func sendDigitTick(now: Double) -> Bool {
        guard let due = digits.tick() else { return digits.isBusy }
        guard let eventType = parameters?.telephoneEventPayloadType, let clockRate = parameters?.clockRate else { return digits.isBusy }
        let step = clockRate / 50
        let duration = UInt16(clamping: UInt32(due.packets) * step)
        // Every packet of the event keeps its timestamp; the last moves the stream past the event.
        var update = track.play(samples: due.last ? UInt32(duration) : 0, now: now)
        update.payloadType = eventType
        update.marker = due.first
        update.payload = .unchanged
        let payload = TelephoneEvent(event: due.event, isEnd: due.end, volume: 10, duration: duration).serialized
        _ = payload.withUnsafeBytes { queue(update, payload: $0, now: now) }
        return true
    }
}
