import Foundation
import Testing

/// The real-world SDP captures in `Tests/Fixtures/sdp/` (where each came from:
/// `Tests/Fixtures/README.md`).
enum SDPFixtures {
    static let names = [
        "chromium-156-audio-offer.sdp",
        "chromium-156-av-data-offer.sdp",
        "chromium-156-av-data-answer.sdp",
        "aiortc-1.16-av-data-offer.sdp",
        "aiortc-1.16-av-data-answer.sdp",
    ]

    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/SDPTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/sdp")

    /// The fixture's bytes; records a clear failure (not a skip) when the file is missing.
    static func bytes(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let path = directory.appendingPathComponent(name).path
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("SDP fixture missing: \(path)",
                         sourceLocation: sourceLocation)
            throw FixtureMissing(path: path)
        }
        return Array(data)
    }

    /// The fixture as text.
    static func text(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        String(decoding: try bytes(name, sourceLocation: sourceLocation), as: UTF8.self)
    }

    struct FixtureMissing: Error { var path: String }
}

/// `text` with CRLF turned into LF, for comparisons modulo line endings.
func normalizedLineEndings(_ text: String) -> String {
    text.replacingOccurrences(of: "\r\n", with: "\n")
}
