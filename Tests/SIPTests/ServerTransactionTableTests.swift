import ParleyNet
import SIP
import SIPWire
import Testing

/// `SIPServerTransactions`' bounds (RFC 3261 §17.2.2): requests still being worked on are capped
/// per source, answered ones waiting out Timer J are not, and the oldest answered ones are
/// forgotten first when their table is full.
@Suite struct ServerTransactionTableTests {
    static func register(branch: Int) throws -> SIPRequest {
        let text = "REGISTER sip:parley SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bK-\(branch)\r\n"
            + "From: <sip:alice@parley>;tag=1\r\nTo: <sip:alice@parley>\r\nCall-ID: c\(branch)\r\nCSeq: 1 REGISTER\r\n"
            + "Content-Length: 0\r\n\r\n"
        guard case .request(let request) = try SIPMessage.parse(datagram: Array(text.utf8)) else { throw ParseFailure() }
        return request
    }

    struct ParseFailure: Error {}

    static func table(perSource: Int, answeredCapacity: Int, timers: TransactionTimerValues = .rfc3261) throws
        -> (SIPServerTransactions, SIPPeer, EventLoop) {
        let loop = try EventLoop(name: "sip-test")
        let transport = SIPTransport(configuration: .init(host: "127.0.0.1", port: 0), loop: loop) { _, _ in }
        let peer = SIPPeer(transport: .udp, address: try SocketAddress.resolve(host: "127.0.0.1", port: 5062))
        return (SIPServerTransactions(transport: transport, capacity: 1000, perSource: perSource, answeredCapacity: answeredCapacity,
                                     timers: timers), peer, loop)
    }

    @Test func answeredTransactionsDoNotCountAgainstTheSourceButPendingOnesDo() throws {
        let (table, peer, loop) = try Self.table(perSource: 3, answeredCapacity: 100)
        defer { loop.stop() }
        // Far more than `perSource` requests from one address, each answered: all admitted.
        for branch in 0..<50 {
            let request = try Self.register(branch: branch)
            #expect(table.admit(request, from: peer) == .new)
            table.respond(SIPResponse(replyingTo: request, statusCode: 200), to: request, peer: peer)
        }
        // A retransmission of an answered one is absorbed.
        #expect(table.admit(try Self.register(branch: 49), from: peer) == .retransmission)
        // Three unanswered ones fill the source's share; the fourth is refused until one is answered.
        let pending = try (100..<103).map(Self.register)
        for request in pending { #expect(table.admit(request, from: peer) == .new) }
        #expect(table.admit(try Self.register(branch: 103), from: peer) == .overloaded)
        table.respond(SIPResponse(replyingTo: pending[0], statusCode: 401), to: pending[0], peer: peer)
        #expect(table.admit(try Self.register(branch: 104), from: peer) == .new)
    }

    @Test func theOldestAnsweredTransactionsAreForgottenFirst() throws {
        let (table, peer, loop) = try Self.table(perSource: 10, answeredCapacity: 20)
        defer { loop.stop() }
        for branch in 0..<30 {
            let request = try Self.register(branch: branch)
            #expect(table.admit(request, from: peer) == .new)
            table.respond(SIPResponse(replyingTo: request, statusCode: 200), to: request, peer: peer)
        }
        #expect(table.count == 20)
        #expect(table.admit(try Self.register(branch: 29), from: peer) == .retransmission)
        // The first ten were forgotten: a late retransmission of one starts over.
        #expect(table.admit(try Self.register(branch: 0), from: peer) == .new)
    }

    /// Timer J (64·T1 over UDP, here 64 ms) ends an answered transaction: a retransmission after it starts over.
    @Test func anAnsweredTransactionIsForgottenWhenTimerJFires() async throws {
        let (table, peer, loop) = try Self.table(perSource: 10, answeredCapacity: 100, timers: TransactionTimerValues(t1: 0.001, t2: 0.004, t4: 0.005))
        defer { loop.stop() }
        let request = try Self.register(branch: 1)
        #expect(table.admit(request, from: peer) == .new)
        table.respond(SIPResponse(replyingTo: request, statusCode: 200), to: request, peer: peer)
        #expect(table.admit(request, from: peer) == .retransmission)
        try await Task.sleep(for: .milliseconds(100))
        #expect(table.admit(request, from: peer) == .new)
    }
}
