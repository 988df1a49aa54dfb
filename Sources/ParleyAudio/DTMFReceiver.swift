import AudioCore
import RTP

/// A key received as RFC 4733 telephone events.
public struct ReceivedDTMFDigit: Hashable, Sendable, CustomStringConvertible {
    public var digit: DTMFDigit
    /// RTP timestamp of the key's start (identifies the event).
    public var timestamp: UInt32
    /// Longest duration reported so far, in RTP timestamp units (summed over §2.5.1.3 segments).
    public var duration: UInt32
    /// `duration` in milliseconds at the receiver's clock rate.
    public var durationMilliseconds: Int
    /// The volume field: power as −dBm0.
    public var volume: UInt8
    /// True when the event closed on a packet with the E bit; false when it closed because a newer
    /// event began or no packet came for the timeout (all end packets lost).
    public var endReceived: Bool

    public var description: String { "\(digit) (\(durationMilliseconds) ms)" }
}

/// What the receiver reports: each event begins once and ends once.
public enum DTMFReceiverEvent: Hashable, Sendable {
    /// The first packet of a key arrived (or the first one that survived): report the digit now.
    case began(ReceivedDTMFDigit)
    /// The key is over; `duration` is final.
    case ended(ReceivedDTMFDigit)
}

/// Turns received telephone-event packets into keys, each reported exactly once (§2.5.2).
///
/// Events are told apart by their RTP timestamp (every packet of one event carries its start,
/// §2.5.1.2), so the E packet's three copies, duplicates and reordered packets of a known event
/// change nothing; a key whose first packets were lost begins with the first that arrives; a key
/// whose end packets were all lost ends when a newer event begins or after `timeoutMicroseconds`
/// without packets (call `poll(at:)` from a timer). A value type driven by the arrival time.
public struct DTMFReceiver: Sendable {
    /// RTP clock rate of the negotiated telephone-event format.
    public let clockRate: Int
    /// Silence after which an event without an end packet is closed.
    public let timeoutMicroseconds: Int64

    private struct OpenEvent: Sendable {
        var key: ReceivedDTMFDigit
        /// Start and reported duration of the current segment (§2.5.1.3).
        var segmentStart: UInt32
        var segmentDuration: UInt16
        var lastPacketAt: Int64
    }

    private var open: OpenEvent?
    /// Identities (timestamp, event code) of recently closed events, newest last, as a ring.
    private var closed: [UInt64]
    private var closedNext = 0
    private static let closedCapacity = 16
    /// Start (segment) and last packet time of the newest event closed in order: a packet of an
    /// unknown event older than it, arriving within `lateHorizon`, is a late key reported whole.
    private var newestClosed: (start: UInt32, at: Int64)?
    private static let lateHorizon: Int64 = 5_000_000

    public init(clockRate: Int = 8_000, timeoutMicroseconds: Int64 = 250_000) {
        self.clockRate = max(1, clockRate)
        self.timeoutMicroseconds = timeoutMicroseconds
        closed = [UInt64](repeating: .max, count: Self.closedCapacity)
    }

    /// The key currently sounding, if any.
    public var currentDigit: ReceivedDTMFDigit? { open?.key }

    /// Takes one received telephone-event packet (its RTP timestamp, marker bit and payload) at
    /// `now` (microseconds, monotonic) and reports what it changes. A malformed payload throws
    /// and changes nothing. Event codes above 15 (not DTMF) are ignored.
    public mutating func receive(timestamp: UInt32, marker: Bool, payload: UnsafeRawBufferPointer, at now: Int64,
                                 onEvent: (DTMFReceiverEvent) -> Void) throws(RTPError) {
        let blocks = try TelephoneEvent.count(in: payload)
        poll(at: now, onEvent: onEvent)
        // §2.5.1.5: several blocks in one packet follow each other; each starts where the
        // previous one's duration ends, counted from the packet's timestamp.
        var start = timestamp
        for index in 0..<blocks {
            let block = try TelephoneEvent(parsing: payload, block: index)
            handle(block, timestamp: start, marker: marker && index == 0, at: now, onEvent: onEvent)
            start &+= UInt32(block.duration)
        }
    }

    /// `receive` for a payload held in an array (allocation-free too; for tests and tools).
    public mutating func receive(timestamp: UInt32, marker: Bool, payload: [UInt8], at now: Int64,
                                 onEvent: (DTMFReceiverEvent) -> Void) throws(RTPError) {
        let result = payload.withUnsafeBytes { raw in
            Result { () throws(RTPError) in
                try receive(timestamp: timestamp, marker: marker, payload: raw, at: now, onEvent: onEvent)
            }
        }
        try result.get()
    }

    /// Closes the open event when no packet of it came for the timeout.
    public mutating func poll(at now: Int64, onEvent: (DTMFReceiverEvent) -> Void) {
        guard let event = open, now - event.lastPacketAt >= timeoutMicroseconds else { return }
        close(endReceived: false, onEvent: onEvent)
    }

    /// Closes any open event at once (the stream stops); reports its end.
    public mutating func finish(onEvent: (DTMFReceiverEvent) -> Void) {
        if open != nil { close(endReceived: false, onEvent: onEvent) }
    }

    /// Forgets every event without reporting (for a new SSRC, whose timestamps start afresh).
    public mutating func reset() {
        open = nil
        for i in closed.indices { closed[i] = .max }
        closedNext = 0
        newestClosed = nil
    }

    private mutating func handle(_ block: TelephoneEvent, timestamp: UInt32, marker: Bool, at now: Int64,
                                 onEvent: (DTMFReceiverEvent) -> Void) {
        guard let digit = DTMFDigit(eventCode: block.event) else { return }
        let identity = Self.identity(timestamp, block.event)
        if isClosed(identity) { return }   // E copies, duplicates and late packets of a closed event

        if var event = open {
            if event.key.digit == digit, timestamp == event.segmentStart {
                // Another packet of the open event (in order, duplicated or reordered).
                if block.duration > event.segmentDuration {
                    event.key.duration += UInt32(block.duration - event.segmentDuration)
                    event.segmentDuration = block.duration
                }
                event.key.volume = block.volume
                event.lastPacketAt = now
                open = event
                if block.isEnd { close(endReceived: true, onEvent: onEvent) }
                return
            }
            if event.key.digit == digit, !marker, timestamp == event.segmentStart &+ UInt32(UInt16.max) {
                // §2.5.1.3: the next segment of a long event, not a new key.
                remember(Self.identity(event.segmentStart, block.event))
                event.key.duration += UInt32(UInt16.max - event.segmentDuration) + UInt32(block.duration)
                event.segmentStart = timestamp
                event.segmentDuration = block.duration
                event.lastPacketAt = now
                open = event
                if block.isEnd { close(endReceived: true, onEvent: onEvent) }
                return
            }
            if Self.isOlder(timestamp, than: event.segmentStart) {
                // A key older than the open one that never showed before: report it whole.
                reportLate(digit, block, timestamp: timestamp, onEvent: onEvent)
                return
            }
            close(endReceived: false, onEvent: onEvent)   // a newer event began: the open one is over
        } else if let newest = newestClosed, now - newest.at < Self.lateHorizon, Self.isOlder(timestamp, than: newest.start) {
            reportLate(digit, block, timestamp: timestamp, onEvent: onEvent)
            return
        }

        let key = makeKey(digit, block, timestamp: timestamp, endReceived: false)
        open = OpenEvent(key: key, segmentStart: timestamp, segmentDuration: block.duration, lastPacketAt: now)
        onEvent(.began(key))
        if block.isEnd { close(endReceived: true, onEvent: onEvent) }
    }

    private mutating func close(endReceived: Bool, onEvent: (DTMFReceiverEvent) -> Void) {
        guard var event = open else { return }
        open = nil
        event.key.endReceived = endReceived
        event.key.durationMilliseconds = milliseconds(event.key.duration)
        remember(Self.identity(event.segmentStart, event.key.digit.eventCode))
        newestClosed = (event.segmentStart, event.lastPacketAt)
        onEvent(.ended(event.key))
    }

    private mutating func reportLate(_ digit: DTMFDigit, _ block: TelephoneEvent, timestamp: UInt32,
                                     onEvent: (DTMFReceiverEvent) -> Void) {
        let key = makeKey(digit, block, timestamp: timestamp, endReceived: block.isEnd)
        remember(Self.identity(timestamp, block.event))
        onEvent(.began(key))
        onEvent(.ended(key))
    }

    private func makeKey(_ digit: DTMFDigit, _ block: TelephoneEvent, timestamp: UInt32, endReceived: Bool) -> ReceivedDTMFDigit {
        ReceivedDTMFDigit(digit: digit, timestamp: timestamp, duration: UInt32(block.duration),
                          durationMilliseconds: milliseconds(UInt32(block.duration)), volume: block.volume,
                          endReceived: endReceived)
    }

    /// A plain loop: the generic `contains` allocates when left unspecialized (debug builds).
    private func isClosed(_ identity: UInt64) -> Bool {
        for index in 0..<Self.closedCapacity where closed[index] == identity { return true }
        return false
    }

    private mutating func remember(_ identity: UInt64) {
        closed[closedNext] = identity
        closedNext = (closedNext + 1) % Self.closedCapacity
    }

    private func milliseconds(_ duration: UInt32) -> Int { Int(UInt64(duration) * 1_000 / UInt64(clockRate)) }

    private static func identity(_ timestamp: UInt32, _ event: UInt8) -> UInt64 { UInt64(timestamp) << 8 | UInt64(event) }

    /// RFC 3550 timestamps wrap: `a` is older than `b` when it is less than half the range behind.
    private static func isOlder(_ a: UInt32, than b: UInt32) -> Bool { Int32(bitPattern: a &- b) < 0 }
}
