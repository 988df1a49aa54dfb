import STUN
import Testing

/// A deterministic, in-process stand-in for the libFuzzer target (`parley-fuzz`'s STUNFuzz):
/// mutated RFC 5769 vectors and a message with every attribute kind must never trap, and whatever
/// parses must serialize and parse back to the same value.
@Suite struct RandomInputTests {
    /// SplitMix64, so failures reproduce.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func seeds() throws -> [[UInt8]] {
        let everything = STUNMessage(type: .bindingSuccess, transactionID: rfc5769TransactionID,
                                     attributes: RoundTripTests.attributes)
        return [RFC5769Tests.sampleRequest, RFC5769Tests.ipv4Response, RFC5769Tests.ipv6Response,
                RFC5769Tests.longTermRequest, try everything.serialized()]
    }

    @Test func mutatedMessagesRoundTrip() throws {
        var g = SeededGenerator(state: 5769)
        let seeds = try Self.seeds()
        var parsedCount = 0
        for _ in 0..<10_000 {
            var bytes = seeds[Int.random(in: 0..<seeds.count, using: &g)]
            for _ in 0..<Int.random(in: 1...4, using: &g) {
                let i = Int.random(in: 0..<bytes.count, using: &g)
                switch Int.random(in: 0..<4, using: &g) {
                case 0: bytes[i] = UInt8.random(in: 0...255, using: &g)
                case 1: bytes[i] ^= 1 << UInt8.random(in: 0..<8, using: &g)
                case 2: bytes.removeSubrange(i...)
                default: bytes.insert(UInt8.random(in: 0...255, using: &g), at: i)
                }
                if bytes.isEmpty { break }
            }
            _ = bytes.withUnsafeBytes { PacketKind.classify($0) }
            _ = try? bytes.withUnsafeBytes { try STUNMessage.verifyFingerprint(of: $0) }
            _ = try? ChannelData(parsing: bytes)
            guard let m = try? STUNMessage(parsing: bytes) else { continue }
            parsedCount += 1
            let out = try m.serialized()
            #expect(out.count == m.serializedSize)
            #expect(try STUNMessage(parsing: out) == m)
        }
        #expect(parsedCount > 50)
    }
}
