/// What one forwarding track sent, by its own sequence number, so that a packet a receiver asks
/// for again (Generic NACK, RFC 4585 §6.2.1) can be rebuilt exactly as it went from its source's
/// packet cache: per receiver only these few values are kept, and the bytes once per source
/// (LiveKit's sequencer). The same bytes again, so the same SRTP packet again (RFC 3711 §3.3: the
/// index is the same, and so is the plaintext).
///
/// A fixed ring, allocated once; recording and lookups allocate nothing.
public struct RTPForwardLog: Sendable {
    /// How one packet left.
    public struct Entry: Sendable, Hashable {
        /// The header we wrote (our SSRC, sequence number, timestamp, payload type, marker).
        public var update: RTPHeaderUpdate
        /// The source packet it came from.
        public var sourceSSRC: UInt32
        public var sourceSequence: UInt16
        /// The abs-send-time value stamped on it, if any.
        public var absSendTime: UInt32?
        /// The VP8 picture ID and TL0PICIDX written (RFC 7741 §4.2), if rewritten.
        public var pictureID: UInt16?
        public var tl0PictureIndex: UInt8?
        public var sentAt: Double
        /// When it was last sent again.
        public var resentAt = -Double.infinity

        public init(update: RTPHeaderUpdate, sourceSSRC: UInt32, sourceSequence: UInt16, absSendTime: UInt32? = nil,
                    pictureID: UInt16? = nil, tl0PictureIndex: UInt8? = nil, sentAt: Double) {
            self.update = update
            self.sourceSSRC = sourceSSRC
            self.sourceSequence = sourceSequence
            self.absSendTime = absSendTime
            self.pictureID = pictureID
            self.tl0PictureIndex = tl0PictureIndex
            self.sentAt = sentAt
        }
    }

    public static let defaultCapacity = 512
    /// Entries older than this (seconds) are not sent again: a retransmission that late misses
    /// the receiver's playout anyway.
    public var maxAge: Double = 1.0
    private var entries: [Entry?]

    public init(capacity: Int = defaultCapacity) {
        entries = Array(repeating: nil, count: max(capacity, 1))
    }

    /// Notes a packet sent.
    public mutating func record(_ entry: Entry) {
        entries[Int(entry.update.sequenceNumber) % entries.count] = entry
    }

    /// How packet `sequenceNumber` left, when it is kept and not older than `maxAge`.
    public func entry(_ sequenceNumber: UInt16, now: Double) -> Entry? {
        guard let entry = entries[Int(sequenceNumber) % entries.count], entry.update.sequenceNumber == sequenceNumber,
              now - entry.sentAt <= maxAge else { return nil }
        return entry
    }

    /// Why a packet asked for again is not sent.
    public enum Refusal: Error, Sendable, Hashable {
        /// Not kept (never sent, overwritten, or older than `maxAge`).
        case notKept
        /// Sent again less than `interval` ago: that copy may still be on its way (a receiver
        /// that lists every packet still missing in each NACK asks again before it could arrive).
        case recentlyResent
    }

    /// The entry of packet `sequenceNumber` to send again at `now`, noted as resent; a packet is
    /// sent again at most once per `interval` (a round trip).
    public mutating func resend(_ sequenceNumber: UInt16, now: Double, interval: Double) -> Result<Entry, Refusal> {
        let slot = Int(sequenceNumber) % entries.count
        guard let entry = entry(sequenceNumber, now: now) else { return .failure(.notKept) }
        guard now - entry.resentAt >= interval else { return .failure(.recentlyResent) }
        entries[slot]?.resentAt = now
        return .success(entry)
    }
}
