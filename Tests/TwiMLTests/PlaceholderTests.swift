import Testing
@testable import TwiML

@Suite struct TwiMLPlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
