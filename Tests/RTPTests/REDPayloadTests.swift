import RTP
import Testing

/// RFC 2198 redundant audio payloads: the §3 example layout, round trips through the builder,
/// and malformed input refused with a specific error.
@Suite struct REDPayloadTests {
    /// A parsed block as plain values, so tests can compare whole payloads.
    struct Block: Equatable {
        var payloadType: UInt8
        var timestampOffset: UInt16
        var isPrimary: Bool
        var data: [UInt8]
    }

    static func blocks(_ bytes: [UInt8]) throws -> [Block] {
        try bytes.withUnsafeBytes { raw in
            try REDPayloadView(raw).map {
                Block(payloadType: $0.payloadType, timestampOffset: $0.timestampOffset, isPrimary: $0.isPrimary,
                      data: Array($0.data))
            }
        }
    }

    static func parseError(_ bytes: [UInt8]) -> REDError? {
        bytes.withUnsafeBytes { raw in
            do throws(REDError) {
                _ = try REDPayloadView(raw)
                return nil
            } catch {
                return error
            }
        }
    }

    /// §3's example: one redundant LPC block (PT 7, 14 bytes) before a DVI4 primary (PT 5). The
    /// offset is one 20 ms packet at 8 kHz.
    @Test func rfc2198Section3Example() throws {
        let lpc = [UInt8](1...14)
        let dvi4 = [UInt8](repeating: 0xD5, count: 84)
        // F=1 PT=7 | offset 160 (14 bits) | length 14 (10 bits); then F=0 PT=5.
        let header: [UInt8] = [0x87, 0x02, 0x80, 0x0E, 0x05]
        let payload = header + lpc + dvi4
        let parsed = try Self.blocks(payload)
        #expect(parsed == [
            Block(payloadType: 7, timestampOffset: 160, isPrimary: false, data: lpc),
            Block(payloadType: 5, timestampOffset: 0, isPrimary: true, data: dvi4),
        ])
        try payload.withUnsafeBytes { raw in
            let view = try REDPayloadView(raw)
            #expect(view.redundantCount == 1)
            #expect(view.primary.payloadType == 5)
            #expect(view[0].timestamp(packetTimestamp: 1000) == 840)
            #expect(view[0].timestamp(packetTimestamp: 100) == 100 &- 160)  // wraps below 0
        }
        let rebuilt = try REDPayload.serialize(redundant: [REDEncodedBlock(payloadType: 7, timestampOffset: 160, data: lpc)],
                                               primary: REDEncodedBlock(payloadType: 5, data: dvi4))
        #expect(rebuilt == payload)
    }

    @Test func primaryOnly() throws {
        let payload: [UInt8] = [111, 0xAA, 0xBB]
        #expect(try Self.blocks(payload) == [Block(payloadType: 111, timestampOffset: 0, isPrimary: true, data: [0xAA, 0xBB])])
        #expect(try REDPayload.serialize(redundant: [], primary: REDEncodedBlock(payloadType: 111, data: [0xAA, 0xBB])) == payload)
    }

    /// Two redundant Opus blocks as browsers send with distance 2, extreme field values included.
    @Test func roundTripTwoRedundantBlocks() throws {
        let older = REDEncodedBlock(payloadType: 111, timestampOffset: 0x3FFF, data: [UInt8](repeating: 0x11, count: 1023))
        let newer = REDEncodedBlock(payloadType: 111, timestampOffset: 960, data: [])
        let primary = REDEncodedBlock(payloadType: 111, data: [0x78, 0x01, 0x02])
        let bytes = try REDPayload.serialize(redundant: [older, newer], primary: primary)
        #expect(bytes.count == REDPayloadBuilder.serializedSize(redundantLengths: [1023, 0], primaryLength: 3))
        #expect(bytes.count == 4 + 4 + 1 + 1023 + 3)
        #expect(try Self.blocks(bytes) == [
            Block(payloadType: 111, timestampOffset: 0x3FFF, isPrimary: false, data: older.data),
            Block(payloadType: 111, timestampOffset: 960, isPrimary: false, data: []),
            Block(payloadType: 111, timestampOffset: 0, isPrimary: true, data: primary.data),
        ])
    }

    @Test func emptyPrimaryIsAllowed() throws {
        let bytes: [UInt8] = [0xEF, 0x00, 0x0C, 0x02, 0x6F, 0x01, 0x02]
        #expect(try Self.blocks(bytes) == [
            Block(payloadType: 111, timestampOffset: 3, isPrimary: false, data: [1, 2]),
            Block(payloadType: 111, timestampOffset: 0, isPrimary: true, data: []),
        ])
    }

    @Test func builderWritesIntoCallerBufferWithoutArrays() throws {
        var buffer = [UInt8](repeating: 0xFF, count: 32)
        let previous: [UInt8] = [9, 8, 7]
        let current: [UInt8] = [1, 2]
        let length = try buffer.withUnsafeMutableBytes { raw in
            var builder = try REDPayloadBuilder(into: raw, redundantCount: 1)
            try previous.withUnsafeBytes { p in
                try builder.appendRedundant(payloadType: 111, timestampOffset: 960, data: p)
            }
            return try current.withUnsafeBytes { c in
                try builder.finish(primaryPayloadType: 111, primary: c)
            }
        }
        #expect(length == 10)
        #expect(Array(buffer.prefix(length)) == [0xEF, 0x0F, 0x00, 0x03, 0x6F, 9, 8, 7, 1, 2])
    }

    struct MalformedCase: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let error: REDError
        var testDescription: String { name }
    }

    static let malformed: [MalformedCase] = [
        MalformedCase(name: "empty", bytes: [], error: .empty),
        MalformedCase(name: "F=1 header cut short", bytes: [0x87, 0x02, 0x80], error: .truncatedHeader(offset: 0)),
        MalformedCase(name: "no final F=0 header", bytes: [0x87, 0x02, 0x80, 0x00], error: .truncatedHeader(offset: 4)),
        MalformedCase(name: "second header cut short", bytes: [0x87, 0x02, 0x80, 0x00, 0x87, 0x00],
                      error: .truncatedHeader(offset: 4)),
        MalformedCase(name: "block longer than data", bytes: [0x87, 0x02, 0x80, 0x0E, 0x05, 1, 2, 3],
                      error: .blocksPastEnd(declared: 14, available: 3)),
        MalformedCase(name: "two blocks longer than data", bytes: [0x80, 0, 0, 2, 0x80, 0, 0, 2, 0x00, 1, 2, 3],
                      error: .blocksPastEnd(declared: 4, available: 3)),
        MalformedCase(name: "too many blocks", bytes: [UInt8](repeating: 0x80, count: 4 * 8) + [0],
                      error: .tooManyBlocks(limit: 8)),
    ]

    @Test(arguments: malformed)
    func malformedInputIsRefused(_ c: MalformedCase) {
        #expect(Self.parseError(c.bytes) == c.error)
    }

    @Test func sevenRedundantBlocksIsTheLimit() throws {
        let bytes: [UInt8] = (0..<4 * 7).map { $0 % 4 == 0 ? UInt8(0x80) : 0 } + [0x00]
        #expect(try Self.blocks(bytes).count == 8)
    }

    @Test func builderRefusesWhatTheFormatCannotCarry() {
        func error(_ body: (inout REDPayloadBuilder, UnsafeRawBufferPointer) throws(REDError) -> Void) -> REDError? {
            var buffer = [UInt8](repeating: 0, count: 2048)
            let data = [UInt8](repeating: 0, count: 1024)
            return buffer.withUnsafeMutableBytes { raw in
                data.withUnsafeBytes { d in
                    do throws(REDError) {
                        var builder = try REDPayloadBuilder(into: raw, redundantCount: 1)
                        try body(&builder, d)
                        return nil
                    } catch {
                        return error
                    }
                }
            }
        }
        #expect(error { b, d throws(REDError) in
            try b.appendRedundant(payloadType: 1, timestampOffset: 0x4000, data: UnsafeRawBufferPointer(rebasing: d[0..<1]))
        } == .timestampOffsetTooLarge(0x4000))
        #expect(error { b, d throws(REDError) in try b.appendRedundant(payloadType: 1, timestampOffset: 0, data: d) }
            == .blockTooLong(1024))
        #expect(error { b, d throws(REDError) in
            try b.appendRedundant(payloadType: 128, timestampOffset: 0, data: UnsafeRawBufferPointer(rebasing: d[0..<1]))
        } == .invalidPayloadType(128))
        #expect(error { b, d throws(REDError) in _ = try b.finish(primaryPayloadType: 1, primary: d) }
            == .blockCountMismatch(expected: 1, added: 0))
    }

    @Test func builderRefusesSmallBuffer() {
        var buffer = [UInt8](repeating: 0, count: 6)
        let data: [UInt8] = [1, 2, 3]
        let caught: REDError? = buffer.withUnsafeMutableBytes { raw in
            data.withUnsafeBytes { d in
                do throws(REDError) {
                    var builder = try REDPayloadBuilder(into: raw, redundantCount: 1)
                    try builder.appendRedundant(payloadType: 1, timestampOffset: 1, data: d)
                    return nil
                } catch {
                    return error
                }
            }
        }
        #expect(caught == .bufferTooSmall(needed: 8, available: 6))
    }
}
