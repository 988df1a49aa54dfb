import ParleyCore
import SDP
import Synchronization
import Testing
import WebRTC

/// One call leg in a test: our client `PeerConnection` connected to a call session of a
/// `MediaTransportServer`, with everything it receives and every event of its session recorded.
final class ClientLeg: Sendable {
    struct Packet: Sendable {
        var audio: PeerConnection.ReceivedAudio
        var arrival: ContinuousClock.Instant
    }

    let pc: PeerConnection
    let id: String
    let answer: String
    /// The SSRC the server announced in the answer: everything we receive must carry it.
    let answerSSRC: UInt32
    private let packets = PacketStore()
    private let recorded: Recorder<PeerSessionEvent>
    private let collector: Task<Void, Never>

    /// Creates the client, offers (after `editOffer`), connects and starts recording.
    static func connect(to server: MediaTransportServer, configuration: PeerConnection.Configuration = .init(),
                        editOffer: @Sendable (String) -> String = { $0 }) async throws -> ClientLeg {
        let pc = try PeerConnection(configuration: configuration)
        let offer = editOffer(try await pc.createOffer())
        let recorder = Recorder<PeerSessionEvent>()
        let answer = try await server.createCallSession(offer: offer) { recorder.append($0) }
        try await pc.setRemoteAnswer(answer.sdp)
        let connected = await pc.waitUntilConnected(timeout: .seconds(10))
        let state = await pc.state
        try #require(connected, "leg did not connect: \(state)")
        let audio = try #require(try SessionDescription(parsing: answer.sdp).media.first)
        return ClientLeg(pc: pc, id: answer.id, answer: answer.sdp, ssrc: try #require(audio.ssrcs.first), events: recorder)
    }

    private init(pc: PeerConnection, id: String, answer: String, ssrc: UInt32, events: Recorder<PeerSessionEvent>) {
        self.pc = pc
        self.id = id
        self.answer = answer
        answerSSRC = ssrc
        recorded = events
        let store = packets
        collector = Task {
            for await audio in pc.audio { store.list.withLock { $0.append(Packet(audio: audio, arrival: .now)) } }
        }
    }

    /// Everything received so far.
    var received: [Packet] { packets.list.withLock { $0 } }

    /// Drops what was received so far.
    func clear() { packets.list.withLock { $0.removeAll() } }

    /// Waits until `count` packets have been received (true), or `timeout`.
    func waitForPackets(_ count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        await eventually(timeout: timeout) { self.packets.list.withLock { $0.count } >= count }
    }

    var events: [PeerSessionEvent] { recorded.values }

    /// Waits for an event matching `match`.
    func waitForEvent(timeout: Duration = .seconds(10), _ match: @escaping @Sendable (PeerSessionEvent) -> Bool) async
        -> PeerSessionEvent? {
        _ = await eventually(timeout: timeout) { self.recorded.values.contains(where: match) }
        return recorded.values.first(where: match)
    }

    /// Sends `count` recognisable 40-byte frames (`[tag, index, …]`) 20 ms apart, as 20 ms of Opus.
    func sendFrames(_ count: Int, tag: UInt8) async throws {
        let start = ContinuousClock.now
        for i in 0..<count {
            pc.sendAudio(payload: Self.frame(tag: tag, index: i), timestampIncrement: 960)
            try await Task.sleep(until: start + .milliseconds(20 * (i + 1)), clock: .continuous)
        }
    }

    static func frame(tag: UInt8, index: Int) -> [UInt8] {
        [tag, UInt8(truncatingIfNeeded: index)] + [UInt8](repeating: tag ^ 0x5A, count: 38)
    }

    func close() async {
        await pc.close()
        _ = await collector.value
    }
}

final class PacketStore: Sendable {
    let list = Mutex<[ClientLeg.Packet]>([])
}

/// Values delivered from other tasks (session events, tapped packets), in order.
final class Recorder<Value: Sendable>: Sendable {
    private let list = Mutex<[Value]>([])
    func append(_ value: Value) { list.withLock { $0.append(value) } }
    var values: [Value] { list.withLock { $0 } }
    func removeAll() { list.withLock { $0.removeAll() } }
}

/// Polls `condition` every 5 ms until it holds (true) or `timeout` passes (false). Timeouts are
/// generous: a loaded 2-core machine can stall a test for seconds; they cost nothing when all is well.
func eventually(timeout: Duration = .seconds(10), _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// Renumbers payload types in an SDP offer (m-line formats, rtpmap and fmtp), e.g. to offer Opus
/// as 109 instead of our client's 111.
func renumberPayloadTypes(_ sdp: String, _ map: [UInt8: UInt8]) -> String {
    func renumbered(_ token: Substring) -> String {
        guard let pt = UInt8(token), let new = map[pt] else { return String(token) }
        return String(new)
    }
    let lines = sdp.split(separator: "\r\n", omittingEmptySubsequences: false).map { line -> String in
        if line.hasPrefix("m=audio ") {
            let parts = line.split(separator: " ")
            return (parts.prefix(3).map(String.init) + parts.dropFirst(3).map(renumbered)).joined(separator: " ")
        }
        for prefix in ["a=rtpmap:", "a=fmtp:"] where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            let space = rest.firstIndex(of: " ") ?? rest.endIndex
            return prefix + renumbered(rest[..<space]) + rest[space...]
        }
        return String(line)
    }
    return lines.joined(separator: "\r\n")
}
