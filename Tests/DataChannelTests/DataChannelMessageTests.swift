import DataChannel
import Testing

/// RFC 8832 §5 messages: what aiortc writes (its `pack("!BBHLHH", …)` of `_data_channel_open`,
/// reproduced byte for byte), every channel type, and truncations.
@Suite struct DataChannelMessageTests {
    /// aiortc's DATA_CHANNEL_OPEN for label "chat", protocol "json", unordered, maxRetransmits 5,
    /// priority 512 (struct.pack output).
    static let aiortcOpen: [UInt8] = [3, 129, 2, 0, 0, 0, 0, 5, 0, 4, 0, 4, 99, 104, 97, 116, 106, 115, 111, 110]

    @Test func aiortcsOpenParsesAndSerializesBack() throws {
        let message = try DataChannelMessage(parsing: Self.aiortcOpen[...])
        guard case .open(let open) = message else { Issue.record("not an open: \(message)"); return }
        #expect(open.label == "chat" && open.protocol == "json")
        #expect(!open.isOrdered && open.reliability == .maxRetransmits(5) && open.priority == 512)
        #expect(message.serialized == Self.aiortcOpen)
    }

    @Test(arguments: [
        (DataChannelOpen.Reliability.reliable, true, UInt8(0x00)),
        (.reliable, false, 0x80),
        (.maxRetransmits(3), true, 0x01),
        (.maxPacketLifeTime(1500), false, 0x82),
    ])
    func everyChannelType(reliability: DataChannelOpen.Reliability, ordered: Bool, type: UInt8) throws {
        let open = DataChannelOpen(label: "données", protocol: "", isOrdered: ordered, reliability: reliability)
        let bytes = DataChannelMessage.open(open).serialized
        #expect(bytes[1] == type)
        #expect(bytes[8] == 0 && Int(bytes[9]) == "données".utf8.count, "the label length counts bytes, not characters")
        #expect(try DataChannelMessage(parsing: bytes[...]) == .open(open))
    }

    @Test func ackAndRefusals() throws {
        #expect(try DataChannelMessage(parsing: [0x02]) == .ack)
        #expect(DataChannelMessage.ack.serialized == [0x02])
        #expect(throws: DataChannelParseError.unknownMessageType(0x04)) { _ = try DataChannelMessage(parsing: [0x04]) }
        #expect(throws: DataChannelParseError.truncated(needed: 1, available: 0)) { _ = try DataChannelMessage(parsing: []) }
        for cut in 1..<Self.aiortcOpen.count {
            #expect(throws: DataChannelParseError.self) { _ = try DataChannelMessage(parsing: Self.aiortcOpen.prefix(cut)) }
        }
        var badType = Self.aiortcOpen
        badType[1] = 0x03
        #expect(throws: DataChannelParseError.unknownChannelType(0x03)) { _ = try DataChannelMessage(parsing: badType[...]) }
        var badUTF8 = Self.aiortcOpen
        badUTF8[12] = 0xFF
        #expect(throws: DataChannelParseError.invalidUTF8) { _ = try DataChannelMessage(parsing: badUTF8[...]) }
        let huge: [UInt8] = [3, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]
        #expect(throws: DataChannelParseError.stringTooLong(65_535)) { _ = try DataChannelMessage(parsing: huge[...]) }
    }
}
