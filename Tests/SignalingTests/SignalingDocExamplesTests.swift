import Foundation
import Testing
import Signaling

/// Every ```json block of docs/signaling.md is one message that decodes and round-trips, and
/// together they show every message type.
@Suite struct SignalingDocExamplesTests {
    static let document: String = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/signaling.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The contents of the ```json fenced blocks, in order.
    static func jsonBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```json" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func documentHasExamples() {
        #expect(Self.jsonBlocks(in: Self.document).count >= SignalingMessageType.allCases.count)
    }

    @Test(arguments: jsonBlocks(in: document))
    func exampleDecodesAndRoundTrips(_ example: String) throws {
        let envelope = try SignalingCodec.decode(example)
        #expect(try SignalingCodec.decode(SignalingCodec.encode(envelope)) == envelope)
    }

    @Test func examplesShowEveryType() throws {
        var shown = Set<SignalingMessageType>()
        for example in Self.jsonBlocks(in: Self.document) {
            shown.insert(try SignalingCodec.decode(example).message.type)
        }
        #expect(shown == Set(SignalingMessageType.allCases))
    }

    @Test func messageTableListsEveryType() {
        for type in SignalingMessageType.allCases {
            #expect(Self.document.contains("| `\(type.rawValue)` |"), "\(type.rawValue) missing from the table")
        }
    }
}
