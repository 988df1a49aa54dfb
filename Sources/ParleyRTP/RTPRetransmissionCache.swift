import RTCP

/// The last packets one stream sent, as they went on the wire (SRTP-protected: a retransmission is
/// the same datagram, RFC 4585 §6.2.1 NACK answered without RTX, as libwebrtc does for audio), so
/// a NACK can be answered by sending them again. A fixed ring of fixed slots indexed by sequence
/// number: storing and finding allocate nothing; a packet longer than a slot is not kept.
public struct RTPRetransmissionCache: Sendable {
    /// Audio packets of 20 ms: 64 cover 1.28 s, longer than any retransmission is still useful.
    public static let defaultCapacity = 64
    /// Opus with three RED blocks and the SRTP trailer fits.
    public static let defaultSlotBytes = 640

    private var bytes: [UInt8]
    private var lengths: [Int]
    private var sequenceNumbers: [UInt16]
    private var sentAt: [Double]
    public let capacity: Int
    public let slotBytes: Int
    /// How long a packet stays worth resending.
    public var maxAge: Double = 1.0
    /// Packets stored, and those too long to store.
    public private(set) var stored = 0
    public private(set) var tooLong = 0

    public init(capacity: Int = defaultCapacity, slotBytes: Int = defaultSlotBytes) {
        self.capacity = max(capacity, 1)
        self.slotBytes = max(slotBytes, 12)
        bytes = [UInt8](repeating: 0, count: self.capacity * self.slotBytes)
        lengths = [Int](repeating: 0, count: self.capacity)
        sequenceNumbers = [UInt16](repeating: 0, count: self.capacity)
        sentAt = [Double](repeating: -.infinity, count: self.capacity)
    }

    /// Keeps the datagram of packet `sequenceNumber`, sent at `now` (seconds).
    public mutating func store(_ datagram: UnsafeRawBufferPointer, sequenceNumber: UInt16, now: Double) {
        guard datagram.count <= slotBytes, let source = datagram.baseAddress else {
            tooLong += 1
            return
        }
        let slot = Int(sequenceNumber) % capacity
        let offset = slot * slotBytes
        bytes.withUnsafeMutableBytes { ($0.baseAddress! + offset).copyMemory(from: source, byteCount: datagram.count) }
        lengths[slot] = datagram.count
        sequenceNumbers[slot] = sequenceNumber
        sentAt[slot] = now
        stored += 1
    }

    /// Calls `body` with the datagram of packet `sequenceNumber` if it is kept and not older than
    /// `maxAge`; returns whether it was.
    @discardableResult
    public func withPacket(_ sequenceNumber: UInt16, now: Double, _ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let slot = Int(sequenceNumber) % capacity
        guard sequenceNumbers[slot] == sequenceNumber, lengths[slot] > 0, now - sentAt[slot] <= maxAge else { return false }
        let offset = slot * slotBytes, length = lengths[slot]
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset..<offset + length])) }
        return true
    }
}

extension RTPRetransmissionCache {
    /// Calls `send` with every kept datagram that `nacks` ask for on `mediaSSRC` (RFC 4585 §6.2.1),
    /// in the order asked; returns how many.
    @discardableResult
    public func answer(_ nacks: [TransportLayerNACK], mediaSSRC: UInt32, now: Double,
                       send: (UnsafeRawBufferPointer) -> Void) -> Int {
        var sent = 0
        for nack in nacks where nack.mediaSSRC == mediaSSRC {
            for pair in nack.pairs {
                pair.forEachSequenceNumber { sequence in
                    if withPacket(sequence, now: now, send) { sent += 1 }
                }
            }
        }
        return sent
    }
}
