import AudioCore
import RTP

/// One RFC 4733 telephone-event packet the audio send stream should send in place of audio.
public struct DTMFEventPacket: Hashable, Sendable {
    /// The key being sent.
    public var digit: DTMFDigit
    /// The 4-byte payload (event, E bit, volume, duration so far).
    public var event: TelephoneEvent
    /// RTP timestamp: the event's start, the same in every packet of the event (§2.5.1.2).
    public var timestamp: UInt32
    /// RTP marker bit: set on the first packet of the event only (§2.5.1.2).
    public var marker: Bool
    /// True for the second and third copies of the final packet (§2.5.1.4); they take new
    /// sequence numbers like any packet.
    public var isRetransmission: Bool

    /// Writes the payload at the start of `buffer`; returns its length (4).
    @discardableResult
    public func serializePayload(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        try event.serialize(into: buffer)
    }
}

/// What the audio send stream does on one packetization tick.
public enum DTMFSendAction: Hashable, Sendable {
    /// Send the normal audio frame (nothing to send, a gap between keys, or a `w` pause).
    case audio
    /// Send this telephone-event packet instead of the audio frame.
    case event(DTMFEventPacket)
}

/// Sends dial strings as RFC 4733 telephone events, interleaved with a stream's audio packets.
///
/// A value-type state machine: the send stream calls `tick(at:rtpTimestamp:)` once per packet
/// interval (20 ms by default) with the monotonic time and the RTP timestamp its audio frame would
/// carry, and sends either that frame or the event packet it gets back (§2.5.1):
/// - all packets of a key carry the RTP timestamp of the key's start, the first one the marker;
/// - the duration field grows by a packet interval each time, up to the tone length;
/// - the final packet has the E bit and goes out three times on consecutive ticks (§2.5.1.4);
/// - then audio resumes for the inter-key gap (counted from the end of the tone), and `w` lets
///   audio through for the pause.
///
/// Tones are capped at 0xFFFF timestamp units (8.19 s at 8 kHz, 1.36 s at 48 kHz), the longest
/// one packet can describe, so keys never need the segmenting of §2.5.1.3.
/// For legs without telephone-event, `DTMFToneGenerator` (AudioCore) plays the keys in-band.
public struct DTMFSender: Sendable {
    public struct Configuration: Hashable, Sendable {
        /// RTP clock rate of the negotiated telephone-event format: the stream's audio clock
        /// (8 000 beside G.711, 48 000 beside Opus), since events share the stream's timestamps.
        public var clockRate: Int
        /// Time between two ticks (the audio packetization interval).
        public var packetIntervalMilliseconds: Int
        /// Length of each key's tone; at least 40 ms, at most 0xFFFF timestamp units.
        public var toneMilliseconds: Int
        /// Audio between two keys, counted from the end of a tone.
        public var gapMilliseconds: Int
        /// What `w` waits.
        public var pauseMilliseconds: Int
        /// Volume field: the tone's power as −dBm0 (0–63).
        public var volume: UInt8
        /// Copies of the final packet (§2.5.1.4 says three).
        public var endPacketCopies: Int

        public init(clockRate: Int = 8_000, packetIntervalMilliseconds: Int = 20, toneMilliseconds: Int = 100,
                    gapMilliseconds: Int = 70, pauseMilliseconds: Int = 500, volume: UInt8 = 10, endPacketCopies: Int = 3) {
            self.clockRate = max(1, clockRate)
            self.packetIntervalMilliseconds = max(1, packetIntervalMilliseconds)
            let longest = Int(UInt16.max) * 1_000 / self.clockRate
            self.toneMilliseconds = min(max(40, toneMilliseconds), longest)
            self.gapMilliseconds = max(0, gapMilliseconds)
            self.pauseMilliseconds = max(0, pauseMilliseconds)
            self.volume = min(volume, TelephoneEvent.maximumVolume)
            self.endPacketCopies = max(1, endPacketCopies)
        }

        /// The tone length in RTP timestamp units (never above 0xFFFF).
        public var toneDuration: UInt16 {
            UInt16(clamping: toneMilliseconds * clockRate / 1_000)
        }

        /// One packet interval in RTP timestamp units.
        public var packetDuration: UInt32 {
            UInt32(clamping: packetIntervalMilliseconds * clockRate / 1_000)
        }
    }

    private enum State: Hashable, Sendable {
        /// Nothing in progress: start the next queued element on this tick.
        case ready
        /// Audio flows until `until` (a gap or a pause).
        case waiting(until: Int64)
        /// A key's event is being reported.
        case sending(KeyInProgress)
        /// The final packet has gone once; `copiesLeft` more to go, then the gap until `gapEnd`.
        case ending(packet: DTMFEventPacket, copiesLeft: Int, gapEnd: Int64)
    }

    private struct KeyInProgress: Hashable, Sendable {
        var digit: DTMFDigit
        /// RTP timestamp of the key's first tick.
        var timestamp: UInt32
        /// Monotonic time of the key's first tick.
        var startedAt: Int64
        var sentFirst = false
        /// `cancel()` asked for the final packet on the next tick.
        var endRequested = false
    }

    public let configuration: Configuration
    private var queue = DTMFDialQueue()
    private var state = State.ready

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Queues the keys and pauses of `dialString` after what is already queued.
    public mutating func enqueue(_ dialString: DTMFDialString) {
        queue.enqueue(dialString)
    }

    /// Validates and queues a dial string: `0`–`9`, `*`, `#`, and `w` for a pause. Any other
    /// character throws, naming it and its position, and nothing is queued.
    public mutating func enqueue(_ string: String) throws(DTMFDialStringError) {
        try queue.enqueue(string)
    }

    /// True while keys, end packets, gaps or pauses remain.
    public var isActive: Bool {
        if case .ready = state { return queue.hasPending }
        return true
    }

    /// True while telephone-event packets replace audio (a key or its final packets).
    public var isSendingEvent: Bool {
        switch state {
        case .sending, .ending: true
        case .ready, .waiting: false
        }
    }

    /// Drops the queue and any pending gap or pause. A key in progress is ended properly: the next
    /// tick sends its final packet (E bit, duration so far) and the copies, so the far end never
    /// waits on an event that stops without an end.
    public mutating func cancel() {
        queue.removeAll()
        switch state {
        case .waiting: state = .ready
        case .sending(var key):
            key.endRequested = true
            state = .sending(key)
        case .ready, .ending: break
        }
    }

    /// Decides what to send on the tick at `now` (microseconds, monotonic), where `rtpTimestamp`
    /// is the timestamp the audio frame of this tick would carry (it keeps advancing by one packet
    /// interval per tick while events are sent, so the audio after them continues in step).
    public mutating func tick(at now: Int64, rtpTimestamp: UInt32) -> DTMFSendAction {
        while true {
            switch state {
            case .ready:
                guard let element = queue.next() else { return .audio }
                switch element {
                case .digit(let digit):
                    state = .sending(KeyInProgress(digit: digit, timestamp: rtpTimestamp, startedAt: now))
                case .pause:
                    state = .waiting(until: now + Int64(configuration.pauseMilliseconds) * 1_000)
                }
            case .waiting(let until):
                guard now >= until else { return .audio }
                state = .ready
            case .sending(let key):
                return .event(nextEventPacket(key, rtpTimestamp: rtpTimestamp))
            case .ending(let packet, let copiesLeft, let gapEnd):
                var copy = packet
                copy.marker = false
                copy.isRetransmission = true
                state = copiesLeft > 1 ? .ending(packet: packet, copiesLeft: copiesLeft - 1, gapEnd: gapEnd)
                                       : .waiting(until: gapEnd)
                return .event(copy)
            }
        }
    }

    /// The packet for a key in progress; moves to `.ending` when it is the final one.
    private mutating func nextEventPacket(_ key: KeyInProgress, rtpTimestamp: UInt32) -> DTMFEventPacket {
        let tone = UInt64(configuration.toneDuration)
        // Duration so far: from the key's start to the end of this tick's packet interval (§2.3.5).
        let elapsed = UInt64(rtpTimestamp &- key.timestamp) + UInt64(configuration.packetDuration)
        let duration = UInt16(min(elapsed, tone))
        let isEnd = UInt64(duration) >= tone || key.endRequested
        let packet = DTMFEventPacket(
            digit: key.digit,
            event: TelephoneEvent(event: key.digit.eventCode, isEnd: isEnd, volume: configuration.volume, duration: duration),
            timestamp: key.timestamp, marker: !key.sentFirst, isRetransmission: false)
        if isEnd {
            let toneEnd = key.startedAt + Int64(duration) * 1_000_000 / Int64(configuration.clockRate)
            let gapEnd = toneEnd + Int64(configuration.gapMilliseconds) * 1_000
            state = configuration.endPacketCopies > 1
                ? .ending(packet: packet, copiesLeft: configuration.endPacketCopies - 1, gapEnd: gapEnd)
                : .waiting(until: gapEnd)
        } else {
            var next = key
            next.sentFirst = true
            state = .sending(next)
        }
        return packet
    }
}
