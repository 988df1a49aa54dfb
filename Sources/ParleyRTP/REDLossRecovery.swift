import RTP

/// Which redundant blocks of an arriving RED packet (RFC 2198) stand for packets of the stream that
/// never arrived, so that a forwarder can send them on as packets of their own to a receiver
/// without RED (or to a recorder or a mixer). A value: each packet's sequence number goes in.
///
/// A packet `gap` numbers past the highest seen means `gap − 1` packets were lost; block `age`
/// (1 for the newest redundant block) is the frame of packet `sequence − age` when its timestamp
/// offset is `age` whole frames (§3 carries no sequence numbers; senders repeat the frames just
/// before, as browsers do).
public struct REDLossRecovery: Sendable {
    /// One block to send as a packet of its own.
    public struct Recovered: Sendable, Hashable {
        /// Index of the block in the RED payload (0 = the oldest).
        public var block: Int
        public var sequenceNumber: UInt16
        public var timestamp: UInt32

        public init(block: Int, sequenceNumber: UInt16, timestamp: UInt32) {
            self.block = block
            self.sequenceNumber = sequenceNumber
            self.timestamp = timestamp
        }
    }

    private var highest: UInt16?

    public init() {}

    /// Notes a packet without redundancy (or of another payload type) of the stream.
    public mutating func observe(sequenceNumber: UInt16) {
        _ = gap(to: sequenceNumber)
    }

    /// Notes a RED packet; returns the blocks that fill the gap before it, oldest first, in
    /// `into` (cleared first; bounded by the view's blocks, so it never grows past `REDPayloadView.maxBlocks`).
    public mutating func recover(sequenceNumber: UInt16, timestamp: UInt32, red: REDPayloadView,
                                 into recovered: inout [Recovered]) {
        recovered.removeAll(keepingCapacity: true)
        let missing = gap(to: sequenceNumber) - 1
        let redundant = red.count - 1
        guard missing > 0, redundant > 0 else { return }
        // The frame step: the newest redundant block's offset is one frame.
        let step = UInt32(red[redundant - 1].timestampOffset)
        guard step > 0 else { return }
        for index in 0..<redundant {
            let age = redundant - index
            let block = red[index]
            guard age <= missing, UInt32(block.timestampOffset) == step * UInt32(age), !block.data.isEmpty else { continue }
            recovered.append(Recovered(block: index, sequenceNumber: sequenceNumber &- UInt16(age),
                                       timestamp: block.timestamp(packetTimestamp: timestamp)))
        }
    }

    /// How far `sequenceNumber` lies past the highest seen (serial order, RFC 1982); 0 for an old,
    /// repeated or first packet, whose predecessors are not known to be lost.
    private mutating func gap(to sequenceNumber: UInt16) -> Int {
        guard let highest else {
            self.highest = sequenceNumber
            return 0
        }
        let ahead = Int(Int16(bitPattern: sequenceNumber &- highest))
        guard ahead > 0 else { return 0 }
        self.highest = sequenceNumber
        return ahead
    }
}
