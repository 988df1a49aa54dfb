import WireKit

/// The 96-bit transaction ID that pairs a STUN response with its request (RFC 8489 §5).
///
/// It also keys the XOR of IPv6 addresses in XOR-MAPPED-ADDRESS and friends (§14.2).
public struct STUNTransactionID: Sendable, Hashable, CustomStringConvertible {
    /// The first 4 bytes, big-endian.
    public var high: UInt32
    /// The last 8 bytes, big-endian.
    public var low: UInt64

    public init(high: UInt32, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// From exactly 12 bytes; nil for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        var h: UInt32 = 0
        var l: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 4 { h = h << 8 | UInt32(b) } else { l = l << 8 | UInt64(b) }
        }
        self.init(high: h, low: l)
    }

    /// A fresh ID from the caller's generator (RFC 8489 §5: "uniformly and randomly chosen";
    /// pass a cryptographically secure generator). The codec itself draws no randomness.
    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(high: generator.next(), low: generator.next())
    }

    /// The 12 bytes in wire order.
    public var bytes: [UInt8] {
        var w = ByteWriter(capacity: 12)
        w.writeUInt32(high)
        w.writeUInt64(low)
        return w.take()
    }

    public var description: String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
