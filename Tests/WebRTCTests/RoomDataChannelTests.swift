import DataChannel
import Foundation
import ParleyCore
import Testing
import WebRTC

/// Data tracks through the SFU in process (RFC 8831, RFC 8832): our `PeerConnection`s offer a
/// data channel section and open channels; each room session runs an SCTP association over its
/// DTLS, reports the channels its peer opens, and `routeData` forwards one peer's channel to a
/// channel the server opens toward another.
@Suite(.serialized) struct RoomDataChannelTests {
    /// A participant with audio and a data channel section, its room session and what it hears.
    struct Participant {
        let pc: PeerConnection
        let answer: RoomSessionAnswer
        let events: Recorder<DataChannelEvent>
        let sessionEvents: Recorder<PeerSessionEvent>
        let collector: Task<Void, Never>

        static func join(_ server: MediaTransportServer) async throws -> Participant {
            var configuration = PeerConnection.Configuration()
            configuration.offerDataChannels = true
            let pc = try PeerConnection(configuration: configuration)
            let sessionEvents = Recorder<PeerSessionEvent>()
            let answer = try await server.createRoomSession(offer: try await pc.createOffer()) { sessionEvents.append($0) }
            #expect(answer.application == "1", "answer:\n\(answer.sdp)")
            try await pc.setRemoteAnswer(answer.sdp)
            #expect(await pc.waitUntilConnected(timeout: .seconds(10)))
            let events = Recorder<DataChannelEvent>()
            let collector = Task { for await event in pc.dataEvents { events.append(event) } }
            return Participant(pc: pc, answer: answer, events: events, sessionEvents: sessionEvents, collector: collector)
        }

        func channel(_ label: String) -> DataChannelAddress { DataChannelAddress(session: answer.id, label: label) }

        /// Opens a channel and waits for the server's acknowledgement.
        func open(_ label: String, isOrdered: Bool = true, reliability: DataChannelOpen.Reliability = .reliable) async throws -> UInt16 {
            let stream = try #require(await pc.openDataChannel(label: label, isOrdered: isOrdered, reliability: reliability))
            #expect(await eventually { events.values.contains { if case .opened(let c, false) = $0 { c.stream == stream } else { false } } })
            return stream
        }

        /// The channel the server opened toward us labelled `label`.
        func remote(_ label: String) async -> DataChannelSession.Channel? {
            _ = await eventually { opened(label) != nil }
            return opened(label)
        }

        private func opened(_ label: String) -> DataChannelSession.Channel? {
            events.values.lazy.compactMap { if case .opened(let c, true) = $0, c.label == label { c } else { nil } }.last
        }

        /// Messages received on `stream`.
        func messages(on stream: UInt16) -> [(data: [UInt8], isBinary: Bool)] {
            events.values.compactMap { if case .message(stream, let data, let isBinary) = $0 { (data, isBinary) } else { nil } }
        }

        func close() async {
            await pc.close()
            _ = await collector.value
        }
    }

    @Test(.timeLimit(.minutes(1))) func aPublishersMessagesReachItsSubscribersChannels() async throws {
        let server = try MediaTransportServer()
        let alice = try await Participant.join(server)
        let bob = try await Participant.join(server)
        let carol = try await Participant.join(server)

        // alice's channel is reported by label (the source of her data track of that name).
        let chat = try await alice.open("chat")
        #expect(chat % 2 == 0, "the DTLS client opens even streams (RFC 8832 §6)")
        #expect(await eventually { alice.sessionEvents.values.contains(.dataChannelOpened(sessionID: alice.answer.id, label: "chat")) })

        // Routed to bob and carol: the server opens a channel toward each, labelled as asked.
        #expect(await server.routeData(alice.channel("chat"), to: bob.channel("MTchat")))
        #expect(await server.routeData(alice.channel("chat"), to: carol.channel("MTchat")))
        let atBob = try #require(await bob.remote("MTchat"))
        let atCarol = try #require(await carol.remote("MTchat"))
        #expect(atBob.stream % 2 == 1 && atBob.isOrdered && atBob.reliability == .reliable)
        #expect(atCarol.stream % 2 == 1)
        // Routing again changes nothing; unknown channels and sessions, and routing to oneself, are refused.
        #expect(await server.routeData(alice.channel("chat"), to: bob.channel("MTchat")))
        #expect(await server.routeData(alice.channel("nope"), to: bob.channel("MTx")) == false)
        #expect(await server.routeData(alice.channel("chat"), to: alice.channel("MTx")) == false)
        #expect(await server.routeData(alice.channel("chat"), to: DataChannelAddress(session: "nobody", label: "x")) == false)

        // Strings, binary and empty messages arrive as sent, in order.
        #expect(await alice.pc.sendData(Array("hello".utf8), isBinary: false, on: chat))
        #expect(await alice.pc.sendData([1, 2, 3], isBinary: true, on: chat))
        #expect(await alice.pc.sendData([], isBinary: false, on: chat))
        for i in 0..<50 { #expect(await alice.pc.sendData(Array("m\(i)".utf8), isBinary: false, on: chat)) }
        #expect(await eventually { bob.messages(on: atBob.stream).count == 53 && carol.messages(on: atCarol.stream).count == 53 })
        let got = bob.messages(on: atBob.stream)
        #expect(got.first.map { String(decoding: $0.data, as: UTF8.self) } == "hello" && got.first?.isBinary == false)
        #expect(got.count > 2 && got[1].data == [1, 2, 3] && got[1].isBinary && got[2].data.isEmpty && !got[2].isBinary)
        #expect(got.dropFirst(3).map { String(decoding: $0.data, as: UTF8.self) } == (0..<50).map { "m\($0)" })
        let sessionStats = await server.session(id: alice.answer.id)?.counters
        #expect(sessionStats?.dataMessagesReceived == 53)
        #expect(await server.session(id: bob.answer.id)?.counters.dataMessagesForwarded == 53)

        // What bob sends on the server's channel goes nowhere (only a peer's own channels publish).
        #expect(await bob.pc.sendData([9], on: atBob.stream))
        #expect(await eventually { await server.session(id: bob.answer.id)?.counters.dataMessagesDropped == 1 })

        // An unordered channel without retransmissions keeps its reliability on the way.
        let fast = try await alice.open("fast", isOrdered: false, reliability: .maxRetransmits(0))
        #expect(await server.routeData(alice.channel("fast"), to: bob.channel("MTfast")))
        let fastAtBob = try #require(await bob.remote("MTfast"))
        #expect(!fastAtBob.isOrdered && fastAtBob.reliability == .maxRetransmits(0))
        #expect(await alice.pc.sendData([7], on: fast))
        #expect(await eventually { bob.messages(on: fastAtBob.stream).map(\.data) == [[7]] })

        // Unrouting closes carol's channel (stream reset); alice closing hers closes bob's and is reported.
        #expect(await server.routeData(nil, to: carol.channel("MTchat")))
        #expect(await eventually { carol.events.values.contains(.closed(stream: atCarol.stream)) })
        alice.pc.closeDataChannel(chat)
        #expect(await eventually { bob.events.values.contains(.closed(stream: atBob.stream)) })
        #expect(await eventually { alice.sessionEvents.values.contains(.dataChannelClosed(sessionID: alice.answer.id, label: "chat")) })
        #expect(await server.routeData(alice.channel("chat"), to: bob.channel("MTchat")) == false)

        for p in [alice, bob, carol] { await p.close() }
        await server.shutdown()
    }

    /// A subscriber that stops acknowledging (its network gone) fills its association's send
    /// buffer: its reliable channel is closed and counted, the publisher and the others go on.
    @Test(.timeLimit(.minutes(1))) func aSubscriberThatDoesNotDrainLosesTheChannel() async throws {
        var configuration = MediaTransportServer.Configuration()
        configuration.roomDataBitrate = 0  // megabytes at once: no rate cap in the way
        let server = try MediaTransportServer(configuration: configuration)
        let alice = try await Participant.join(server)
        let bob = try await Participant.join(server)
        let carol = try await Participant.join(server)
        let chat = try await alice.open("chat")
        #expect(await server.routeData(alice.channel("chat"), to: bob.channel("MTchat")))
        #expect(await server.routeData(alice.channel("chat"), to: carol.channel("MTchat")))
        let atCarol = try #require(await carol.remote("MTchat"))
        _ = try #require(await bob.remote("MTchat"))

        await bob.pc.simulateNetworkOutage(true)
        let big = [UInt8](repeating: 0x42, count: 60_000)
        // 2.4 MB, more than bob's association buffers and backlogs; paced by what carol received
        // (at most 8 messages ahead), as a publisher that waits for its subscribers would be.
        for sent in 0..<40 {
            #expect(await eventually { carol.messages(on: atCarol.stream).count >= sent - 8 })
            #expect(await alice.pc.sendData(big, on: chat))
        }
        let carolGot = await eventually(timeout: .seconds(20)) { carol.messages(on: atCarol.stream).count == 40 }
        let carolSession = await server.session(id: carol.answer.id)?.counters
        #expect(carolGot, "carol: \(carol.messages(on: atCarol.stream).count), \(String(describing: carolSession))")
        let bobSession = await server.session(id: bob.answer.id)?.counters
        #expect(bobSession?.dataChannelsDropped == 1 && (bobSession?.dataMessagesDropped ?? 0) >= 1, "\(String(describing: bobSession))")
        #expect((bobSession?.dataMessagesForwarded ?? 0) < 40)
        for p in [alice, bob, carol] { await p.close() }
        await server.shutdown()
    }
}

extension RoomDataChannelTests {
    /// A data track is capped (`roomDataBitrate`): past its bytes a second plus a 64 KiB burst,
    /// the publisher's messages are dropped and counted, not forwarded.
    @Test(.timeLimit(.minutes(1))) func aDataTrackPastItsRateIsDropped() async throws {
        var configuration = MediaTransportServer.Configuration()
        configuration.roomDataBitrate = 80_000  // 10 kB/s
        let server = try MediaTransportServer(configuration: configuration)
        let alice = try await Participant.join(server)
        let bob = try await Participant.join(server)
        let chat = try await alice.open("chat")
        #expect(await server.routeData(alice.channel("chat"), to: bob.channel("MTchat")))
        let atBob = try #require(await bob.remote("MTchat"))
        // 40 messages of 4 kB at once: the 64 KiB burst takes 16, the rest is over the rate.
        let message = [UInt8](repeating: 0x61, count: 4_000)
        for _ in 0..<40 { #expect(await alice.pc.sendData(message, isBinary: false, on: chat)) }
        #expect(await eventually { await server.session(id: alice.answer.id)?.counters.dataMessagesReceived == 40 })
        let counters = await server.session(id: alice.answer.id)?.counters
        let over = counters?.dataMessagesOverRate ?? 0
        #expect((23...24).contains(over), "\(over) over the rate")
        #expect(await eventually { bob.messages(on: atBob.stream).count == 40 - over })
        for p in [alice, bob] { await p.close() }
        await server.shutdown()
    }
}
