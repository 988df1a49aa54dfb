import Testing
@testable import Signaling

@Suite struct SignalingPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
