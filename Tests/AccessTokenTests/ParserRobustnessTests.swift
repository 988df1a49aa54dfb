import AccessToken
import ParleyCore
import ParleyCrypto
import Testing

/// A small in-process stand-in for the libFuzzer harness: mutated tokens must only ever produce a
/// `ParleyError` with one of the verifier's codes, never a trap.
@Suite struct ParserRobustnessTests {
    static let codes: Set<Int> = [20101, 20102, 20103, 20104, 20105, 20106, 20157]

    @Test func mutatedTokensFailCleanly() throws {
        let valid = Array(try Fixture.builder().mint(now: Fixture.now).utf8)
        var rng = SystemRandomNumberGenerator()
        let verifier = Fixture.verifier()
        for _ in 0..<3000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[i] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: i)
                default: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: i)
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            _ = try? JWT.parse(text)
            do {
                _ = try verifier.verify(text)
            } catch {
                #expect(Self.codes.contains(error.code.rawValue))
            }
        }
    }

    @Test func mutatedJSONPayloadsFailCleanly() {
        let json = Array(#"{"grants":{"identity":"a","voice":{"outgoing":{"params":{"x":[1,{"y":"\u00e9"}]}}}},"exp":1e3}"#.utf8)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var bytes = json
            let i = Int.random(in: 0..<bytes.count, using: &rng)
            bytes[i] = UInt8.random(in: 0...255, using: &rng)
            let token = "eyJhbGciOiJIUzI1NiJ9." + Base64URL.encode(bytes) + ".AA"
            if let parsed = try? JWT.parse(token) { _ = try? AccessTokenClaims(json: parsed.claims) }
        }
    }
}
