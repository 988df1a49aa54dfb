import Foundation
import SDP
import SIPWire
import Testing

/// Offers captured from real SIP UAs in `Tests/Fixtures/sip/offers/` (where each came from:
/// `Tests/Fixtures/README.md`), byte for byte.
enum SIPOfferFixtures {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/SIPTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/sip/offers")

    struct Missing: Error { var path: String }

    /// The file's bytes; records a failure (not a skip) when it is missing.
    static func bytes(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let path = directory.appendingPathComponent(name).path
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("SIP fixture missing: \(path)", sourceLocation: sourceLocation)
            throw Missing(path: path)
        }
        return Array(data)
    }

    static func sdp(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SessionDescription {
        try SessionDescription(parsing: bytes(name, sourceLocation: sourceLocation))
    }

    static func request(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SIPRequest {
        let message = try SIPMessage.parse(datagram: bytes(name, sourceLocation: sourceLocation))
        guard let request = message.request else { throw Missing(path: name) }
        return request
    }
}

/// A parsed request or response written in a test (LF line ends turned into CRLF).
func sipMessage(_ text: String) throws -> SIPMessage {
    let crlf = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    return try SIPMessage.parse(datagram: Array(crlf.utf8))
}

/// A deterministic random source: it counts.
struct CountingGenerator: RandomNumberGenerator {
    var value: UInt64
    mutating func next() -> UInt64 { value &+= 0x9E37_79B9_7F4A_7C15; return value }
}
