/// One RFC 4733 telephone-event block (§2.3, Figure 1): four bytes.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     event     |E|R| volume    |          duration             |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
///
/// A payload normally holds one block; §2.5.1.5 lets a sender put several in one packet, so
/// `count(in:)`, `init(parsing:block:)` and `parseAll(_:)` read every block of a payload.
public struct TelephoneEvent: Hashable, Sendable, CustomStringConvertible {
    /// Event code (§3.2 for DTMF: 0–9, 10 `*`, 11 `#`, 12–15 A–D; other codes per the IANA registry).
    public var event: UInt8
    /// The E bit: this packet reports the end of the event (§2.3.3).
    public var isEnd: Bool
    /// The R bit: reserved, sent as 0 and ignored by receivers (§2.3.4); kept for round trips.
    public var reservedBit: Bool
    /// Power level as −dBm0, 0–63 (§2.3.4); larger is quieter. Values above 63 are clamped.
    public var volume: UInt8 {
        didSet { volume = min(volume, Self.maximumVolume) }
    }
    /// Duration of the event so far in RTP timestamp units, measured from the packet's timestamp
    /// (§2.3.5); 0xFFFF is the longest one segment can report (§2.5.1.3).
    public var duration: UInt16

    /// Bytes one block occupies.
    public static let size = 4
    /// The largest value the 6-bit volume field holds.
    public static let maximumVolume: UInt8 = 63

    public init(event: UInt8, isEnd: Bool = false, volume: UInt8 = 10, duration: UInt16, reservedBit: Bool = false) {
        self.event = event
        self.isEnd = isEnd
        self.reservedBit = reservedBit
        self.volume = min(volume, Self.maximumVolume)
        self.duration = duration
    }

    /// Parses the first block of a payload: normally the only one. The payload must be whole
    /// 4-byte blocks (`count(in:)`); read the others with `init(parsing:block:)`.
    public init(parsing payload: UnsafeRawBufferPointer) throws(RTPError) {
        _ = try Self.count(in: payload)
        self.init(unchecked: payload, offset: 0)
    }

    /// Parses the first block of a payload held in an array (see `init(parsing:)`).
    public init(parsing payload: [UInt8]) throws(RTPError) {
        let result = payload.withUnsafeBytes { raw in
            Result { () throws(RTPError) in try TelephoneEvent(parsing: raw) }
        }
        self = try result.get()
    }

    /// Parses block `index` (from 0) of a payload that `count(in:)` accepted.
    public init(parsing payload: UnsafeRawBufferPointer, block index: Int) throws(RTPError) {
        guard index >= 0, index < payload.count / Self.size else {
            let needed = index >= 0 && index < Int.max / Self.size - 1 ? (index + 1) * Self.size : Int.max
            throw .truncated(needed: needed, available: payload.count)
        }
        self.init(unchecked: payload, offset: index * Self.size)
    }

    private init(unchecked payload: UnsafeRawBufferPointer, offset: Int) {
        let flags = payload[offset + 1]
        self.init(event: payload[offset],
                  isEnd: flags & 0x80 != 0,
                  volume: flags & 0x3F,
                  duration: UInt16(payload[offset + 2]) << 8 | UInt16(payload[offset + 3]),
                  reservedBit: flags & 0x40 != 0)
    }

    /// The number of blocks in a telephone-event payload: at least one, and the length must be a
    /// multiple of 4 (§2.3: fixed 4-byte blocks; §2.5.1.5: several in one packet). Throws
    /// `.truncated` for an empty payload or a partial trailing block.
    public static func count(in payload: UnsafeRawBufferPointer) throws(RTPError) -> Int {
        guard !payload.isEmpty else { throw .truncated(needed: size, available: 0) }
        let remainder = payload.count % size
        guard remainder == 0 else { throw .truncated(needed: payload.count - remainder + size, available: payload.count) }
        return payload.count / size
    }

    /// Every block of a payload, in order (allocates; the receive path uses `count(in:)` and
    /// `init(parsing:block:)` instead).
    public static func parseAll(_ payload: [UInt8]) throws(RTPError) -> [TelephoneEvent] {
        let result = payload.withUnsafeBytes { raw in
            Result { () throws(RTPError) -> [TelephoneEvent] in
                let blocks = try count(in: raw)
                var events: [TelephoneEvent] = []
                events.reserveCapacity(blocks)
                for index in 0..<blocks { events.append(try TelephoneEvent(parsing: raw, block: index)) }
                return events
            }
        }
        return try result.get()
    }

    /// The block's four bytes.
    public var bytes: (UInt8, UInt8, UInt8, UInt8) {
        let flags = (isEnd ? 0x80 : 0) | (reservedBit ? 0x40 : 0) | min(volume, Self.maximumVolume)
        return (event, flags, UInt8(truncatingIfNeeded: duration >> 8), UInt8(truncatingIfNeeded: duration))
    }

    /// Writes the block at the start of `buffer`; returns 4.
    @discardableResult
    public func serialize(into buffer: UnsafeMutableRawBufferPointer) throws(RTPError) -> Int {
        guard buffer.count >= Self.size else { throw .bufferTooSmall(needed: Self.size, available: buffer.count) }
        let b = bytes
        buffer[0] = b.0
        buffer[1] = b.1
        buffer[2] = b.2
        buffer[3] = b.3
        return Self.size
    }

    /// Appends the block to `out`.
    public func serialize(into out: inout [UInt8]) {
        let b = bytes
        out.append(b.0)
        out.append(b.1)
        out.append(b.2)
        out.append(b.3)
    }

    /// The block as a new array.
    public var serialized: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.size)
        serialize(into: &out)
        return out
    }

    public var description: String {
        "event \(event)\(isEnd ? " end" : "") volume -\(volume) dBm0 duration \(duration)"
    }
}
