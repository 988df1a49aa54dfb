import Testing
@testable import HTTP2Wire

@Suite struct HTTP2WirePlaceholderTests {
    @Test func builds() { #expect(Bool(true)) }
}
