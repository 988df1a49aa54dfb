import DataChannel
import SCTP
import Testing
@testable import WebRTC

/// `DataChannelTransport` back to back (its SCTP packets handed straight to the other, no DTLS):
/// DCEP before the association is up, a channel's backlog behind a full send buffer, drained in
/// order once the peer acknowledges again, and the bound past which a send is not taken.
@Suite(.serialized) struct DataChannelTransportTests {
    final class Pair {
        let client = DataChannelTransport(role: .dtlsClient, remotePort: 5000, sendLimit: 65_536)
        let server = DataChannelTransport(role: .dtlsServer, remotePort: 5000, sendLimit: 65_536)
        var heard: (client: [DataChannelTransport.Notice], server: [DataChannelTransport.Notice]) = ([], [])
        /// While false, what the client sends is lost (its peer is gone).
        var clientToServer = true

        func pump(rounds: Int = 1) {
            for _ in 0..<rounds {
                var moved = true
                while moved {
                    moved = false
                    for packet in client.takePackets() where clientToServer {
                        heard.server += server.receive(packet)
                        moved = true
                    }
                    for packet in server.takePackets() {
                        heard.client += client.receive(packet)
                        moved = true
                    }
                }
                heard.client += client.poll()
                heard.server += server.poll()
            }
        }

        /// Pumps (running usrsctp's timers) until `done` or about 10 s.
        func pump(until done: () -> Bool) async {
            for _ in 0..<2000 where !done() {
                pump()
                try? await Task.sleep(for: .milliseconds(5))
                SCTPAssociation.handleTimers()
            }
            pump()
        }

        func messages(_ notices: [DataChannelTransport.Notice]) -> [[UInt8]] {
            notices.compactMap { if case .message(_, let data, _) = $0 { data } else { nil } }
        }
    }

    @Test(.timeLimit(.minutes(1))) func aChannelOpenedEarlyAndItsBacklogArriveInOrder() async throws {
        let pair = Pair()
        // Opened before the association exists: DATA_CHANNEL_OPEN waits for it.
        let stream = try #require(pair.server.open(label: "MTx", protocol: "", isOrdered: true, reliability: .reliable, priority: 256))
        #expect(stream == 1, "the DTLS server opens odd streams")
        #expect(pair.server.send(stream: stream, data: [1], isBinary: true) == .refused, "nothing is sent before the association is up")
        pair.heard.client += pair.client.start()
        pair.heard.server += pair.server.start()
        await pair.pump { pair.heard.client.contains { if case .opened(let c, true) = $0 { c.label == "MTx" } else { false } } }
        #expect(pair.heard.server.contains(.established))
        #expect(pair.heard.client.contains { if case .opened(let c, true) = $0 { c.stream == 1 && c.label == "MTx" } else { false } })

        // The client's peer goes away: the server's association buffer fills (1 MB), then the
        // channel's backlog (256 KB), then nothing more is taken.
        pair.clientToServer = false
        var outcomes: [DataChannelTransport.SendOutcome] = []
        var sent: [[UInt8]] = []
        for i in 0..<40 {
            let message = [UInt8](repeating: UInt8(i), count: 60_000)
            let outcome = pair.server.send(stream: stream, data: message, isBinary: true)
            outcomes.append(outcome)
            if outcome != .blocked { sent.append(message) }
            pair.pump()
        }
        #expect(outcomes.first == .sent && outcomes.contains(.queued) && outcomes.last == .blocked, "\(outcomes)")
        #expect(pair.server.backlogged > 0 && pair.server.backlogged <= DataChannelTransport.channelBacklogBytes)
        #expect(pair.server.counters.sendsBlocked > 0 && pair.server.counters.messagesQueued > 0)

        // Back: retransmissions, then the backlog, arrive whole and in order.
        pair.clientToServer = true
        await pair.pump { pair.messages(pair.heard.client).count >= sent.count }
        #expect(pair.messages(pair.heard.client) == sent)
        #expect(pair.server.backlogged == 0)
        pair.client.shutdown()
        pair.server.shutdown()
    }

    @Test func closingAChannelWhoseOpenNeverWentOutFreesItsStream() throws {
        let pair = Pair()
        let first = try #require(pair.server.open(label: "a", protocol: "", isOrdered: true, reliability: .reliable, priority: 256))
        pair.server.close(stream: first)
        #expect(pair.server.channels.channels.isEmpty)
        #expect(pair.server.open(label: "b", protocol: "", isOrdered: true, reliability: .reliable, priority: 256) == first)
        pair.server.shutdown()
        pair.client.shutdown()
    }
}
