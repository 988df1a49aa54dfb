import DataChannel
import Testing

/// The session state machine alone: stream parity, the DCEP handshake, messages, close.
@Suite struct DataChannelSessionTests {
    @Test func aChannelOpensIsAcknowledgedCarriesMessagesAndCloses() throws {
        var client = DataChannelSession(role: .dtlsClient), server = DataChannelSession(role: .dtlsServer)
        let (stream, openActions) = try client.open(label: "chat", protocol: "json", isOrdered: false,
                                                    reliability: .maxRetransmits(2))
        #expect(stream == 0)
        guard case .send(let s, let ppid, let data, false, .reliable)? = openActions.first else {
            Issue.record("expected the DCEP open: \(openActions)"); return
        }
        let atServer = server.received(stream: s, ppid: ppid, data: data)
        guard case .send(0, 50, let ack, _, _)? = atServer.first, case .opened(let channel)? = atServer.last else {
            Issue.record("expected ack and opened: \(atServer)"); return
        }
        #expect(channel.label == "chat" && channel.protocol == "json" && !channel.isOrdered && channel.reliability == .maxRetransmits(2))
        #expect(client.received(stream: 0, ppid: 50, data: ack).count == 1)
        #expect(client.channels[0]?.state == .open)

        #expect(try client.send(stream: 0, data: Array("hi".utf8), isBinary: false)
                == [.send(stream: 0, ppid: 51, data: Array("hi".utf8), unordered: true, reliability: .maxRetransmits(2))])
        #expect(try client.send(stream: 0, data: [], isBinary: true).first.map { if case .send(_, 57, _, _, _) = $0 { true } else { false } } == true)
        #expect(server.received(stream: 0, ppid: 53, data: [1, 2]) == [.message(stream: 0, data: [1, 2], isBinary: true)])

        // A second channel from each side takes the next id of its parity.
        #expect(try client.open(label: "b").stream == 2)
        #expect(try server.open(label: "c").stream == 1)

        #expect(client.close(stream: 0) == [.resetStreams([0])])
        #expect(server.streamsReset([0]) == [.resetStreams([0]), .closed(stream: 0)])
        #expect(client.streamsReset([0]) == [.closed(stream: 0)])
        #expect(client.channels[0] == nil && server.channels[0] == nil)
    }

    @Test func badInputIsCountedAndDropped() throws {
        var server = DataChannelSession(role: .dtlsServer)
        #expect(server.received(stream: 5, ppid: 51, data: [1]).isEmpty, "no channel on stream 5")
        #expect(server.received(stream: 0, ppid: 50, data: [0x09]).isEmpty, "not DCEP")
        #expect(server.received(stream: 1, ppid: 50, data: DataChannelMessage.open(DataChannelOpen(label: "x")).serialized).isEmpty,
                "an open on the server's own parity")
        #expect(server.received(stream: 0, ppid: 99, data: [1]).isEmpty, "unknown PPID")
        #expect(server.dropped == 4)
        #expect(throws: DataChannelSession.SessionError.unknownChannel(7)) { _ = try server.send(stream: 7, data: [1], isBinary: true) }
        #expect(throws: DataChannelSession.SessionError.messageTooLarge(300_000)) {
            var s = DataChannelSession(role: .dtlsClient)
            let stream = try s.open(label: "big").stream
            _ = try s.send(stream: stream, data: [UInt8](repeating: 0, count: 300_000), isBinary: true)
        }
    }

    @Test func dataBeforeTheAckOpensTheChannel() throws {
        var client = DataChannelSession(role: .dtlsClient)
        let stream = try client.open(label: "eager").stream
        let actions = client.received(stream: stream, ppid: 51, data: Array("early".utf8))
        #expect(actions.count == 2)
        #expect(client.channels[stream]?.state == .open)
    }
}
