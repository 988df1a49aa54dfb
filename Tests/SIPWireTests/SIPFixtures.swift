import Foundation
import Testing
@testable import SIPWire

/// The torture messages of RFC 4475 in `Tests/Fixtures/sip/rfc4475/` (`NAME.dat`, the file names
/// of the RFC's Appendix A archive), byte for byte.
enum SIPFixtures {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/SIPWireTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/sip/rfc4475")

    /// The fixture's bytes; records a failure (not a skip) when the file is missing.
    static func bytes(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let path = directory.appendingPathComponent(name + ".dat").path
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("RFC 4475 fixture missing: \(path)", sourceLocation: sourceLocation)
            throw SIPParseError.empty
        }
        return Array(data)
    }

    /// The fixture parsed as a UDP datagram (syntax only).
    static func parse(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SIPMessage {
        try SIPMessage.parse(datagram: bytes(name, sourceLocation: sourceLocation))
    }

    /// The fixture parsed and validated.
    static func valid(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> SIPMessage {
        let message = try parse(name, sourceLocation: sourceLocation)
        try message.validate()
        return message
    }

    /// The error parsing then validating the fixture throws, nil when it is accepted.
    static func error(_ name: String) throws -> SIPParseError? {
        let bytes = try bytes(name)
        do {
            try SIPMessage.parse(datagram: bytes).validate()
            return nil
        } catch {
            return error
        }
    }

    /// Serializes as received and parses again: the same start line, fields and body.
    static func expectRoundTrip(_ message: SIPMessage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let again = try SIPMessage.parse(datagram: message.serialized(.asReceived))
        #expect(again.startLine == message.startLine, sourceLocation: sourceLocation)
        #expect(again.body == message.body, sourceLocation: sourceLocation)
        #expect(again.headers.fields.filter { $0.key != "content-length" } == message.headers.fields.filter { $0.key != "content-length" },
                sourceLocation: sourceLocation)
        let canonical = try SIPMessage.parse(datagram: message.serialized())
        #expect(canonical.vias == message.vias && canonical.from == message.from && canonical.to == message.to,
                sourceLocation: sourceLocation)
        #expect(canonical.contacts == message.contacts && canonical.cseq == message.cseq && canonical.callID == message.callID,
                sourceLocation: sourceLocation)
    }
}
