import Foundation
import Testing
import Signaling

/// The fuzz seeds (fuzz/corpus/signaling, one per message type) decode, and so does every prefix
/// of them that is valid: the fuzz property (decode → encode → decode is stable) holds on all.
@Suite struct SignalingCorpusTests {
    static let corpus: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz/corpus/signaling")

    static func seeds() -> [(name: String, bytes: [UInt8])] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: corpus.appendingPathComponent(name).path).map { (name, Array($0)) }
        }
    }

    @Test func oneSeedPerType() throws {
        let seeds = Self.seeds()
        #expect(Set(seeds.map(\.name)) == Set(SignalingMessageType.allCases.map(\.rawValue)))
        for seed in seeds {
            #expect(try SignalingCodec.decode(seed.bytes).message.type.rawValue == seed.name)
        }
    }

    @Test func prefixesAndBitFlipsNeverBreakTheRoundTrip() {
        var decoded = 0
        for seed in Self.seeds() {
            var inputs = (0...seed.bytes.count).map { Array(seed.bytes.prefix($0)) }
            for i in seed.bytes.indices where i % 3 == 0 {
                var flipped = seed.bytes
                flipped[i] ^= 0x20
                inputs.append(flipped)
            }
            for input in inputs {
                guard let envelope = try? SignalingCodec.decode(input) else { continue }
                decoded += 1
                let text = SignalingCodec.encode(envelope)
                #expect((try? SignalingCodec.decode(text)) == envelope)
            }
        }
        #expect(decoded > Self.seeds().count)
    }
}
