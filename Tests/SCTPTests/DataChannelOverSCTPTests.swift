import DataChannel
import SCTP
import Testing

/// Data channels end to end over two real SCTP associations back to back: DCEP open and ack,
/// messages both ways, a close seen by the other side.
@Suite(.serialized) struct DataChannelOverSCTPTests {
    final class Peer {
        var session: DataChannelSession
        var association: SCTPAssociation!
        var outbox: [[UInt8]] = []
        var delivered: [DataChannelSession.Action] = []
        var up = false

        init(role: DataChannelSession.Role) throws {
            session = DataChannelSession(role: role)
            association = try SCTPAssociation(output: { [unowned self] in outbox.append($0) }, events: { [unowned self] event in
                switch event {
                case .established: up = true
                case .message(let stream, let ppid, let data): run(session.received(stream: stream, ppid: ppid, data: data))
                case .streamsReset(let streams): run(session.streamsReset(streams))
                case .closed: break
                }
            })
        }

        func run(_ actions: [DataChannelSession.Action]) {
            for action in actions {
                switch action {
                case .send(let stream, let ppid, let data, let unordered, let reliability):
                    let mapped: SCTPAssociation.Reliability = switch reliability {
                    case .reliable: .reliable
                    case .maxRetransmits(let n): .maxRetransmits(n)
                    case .maxPacketLifeTime(let ms): .maxPacketLifeTime(ms)
                    }
                    try? association.send(stream: stream, ppid: ppid, data: data, unordered: unordered, reliability: mapped)
                case .resetStreams(let streams):
                    try? association.resetStreams(streams)
                default:
                    delivered.append(action)
                }
            }
        }
    }

    static func pump(_ a: Peer, _ b: Peer, until done: () -> Bool) async {
        for _ in 0..<2000 {
            while !a.outbox.isEmpty || !b.outbox.isEmpty {
                let (fromA, fromB) = (a.outbox, b.outbox)
                a.outbox = []
                b.outbox = []
                for p in fromA { p.withUnsafeBytes { b.association.receive($0) } }
                for p in fromB { p.withUnsafeBytes { a.association.receive($0) } }
            }
            if done() { return }
            try? await Task.sleep(for: .milliseconds(5))
            SCTPAssociation.handleTimers()
        }
    }

    @Test(.timeLimit(.minutes(1))) func openMessageClose() async throws {
        let client = try Peer(role: .dtlsClient), server = try Peer(role: .dtlsServer)
        await Self.pump(client, server) { client.up && server.up }
        let (stream, open) = try client.session.open(label: "chat")
        client.run(open)
        client.run(try client.session.send(stream: stream, data: Array("first".utf8), isBinary: false))
        await Self.pump(client, server) { server.delivered.count == 2 && client.delivered.count == 1 }
        #expect(server.delivered.first.map { if case .opened(let c) = $0 { c.label == "chat" } else { false } } == true)
        #expect(server.delivered.last == .message(stream: stream, data: Array("first".utf8), isBinary: false))
        server.run(try server.session.send(stream: stream, data: [0xFF, 0x00], isBinary: true))
        await Self.pump(client, server) { client.delivered.count == 2 }
        #expect(client.delivered.last == .message(stream: stream, data: [0xFF, 0x00], isBinary: true))
        client.run(client.session.close(stream: stream))
        await Self.pump(client, server) { server.delivered.contains(.closed(stream: stream)) && client.delivered.contains(.closed(stream: stream)) }
        #expect(server.delivered.contains(.closed(stream: stream)))
        #expect(client.delivered.contains(.closed(stream: stream)))
        client.association.close()
        server.association.close()
    }
}
