import ParleyCore
import ServerMedia
import Synchronization

/// The engine's one `CallMediaBridge` over several: client legs on WebRTC (the primary, which
/// creates the media of offers the engine receives) and SIP legs on RTP, told apart by their id's
/// prefix. Two legs of the same codec are forwarded packet by packet, without decoding: by their
/// bridge when it holds both, else across the two media loops through a `HandoffLink` (both
/// bridges `HandoffMediaBridge`s). Legs whose codecs differ are joined through a
/// `TranscodingRelay` on the media clock, fed by the legs' taps (which the engine's own taps,
/// for recordings and conferences, share).
package final class CompositeMediaBridge: CallMediaBridge {
    private let primary: any CallMediaBridge
    private let others: [(prefix: String, bridge: any CallMediaBridge)]
    private let clock: MediaClock
    private let mixing: CallMediaPlayer.Configuration
    let state = Mutex(State())

    struct State {
        /// The engine's tap per leg (recording, conference), beside a relay's.
        var engineTaps: [MediaLegID: @Sendable (TappedAudioPacket) -> Void] = [:]
        var relays: [TranscodingRelay] = []
        var links: [HandoffLink] = []
        var relaysMade = 0
        var linksMade = 0
        /// Packets of closed links: handed over, dropped.
        var closedHandedOver = 0
        var closedDropped = 0
    }

    /// - Parameters: `others`: bridges whose legs' ids start with `prefix`; `clock`: the media
    ///   clock the relays tick on; `mixing`: the relays' encoder settings (the player's).
    package init(primary: any CallMediaBridge, others: [(prefix: String, bridge: any CallMediaBridge)] = [], clock: MediaClock,
                 mixing: CallMediaPlayer.Configuration = CallMediaPlayer.Configuration()) {
        self.primary = primary
        self.others = others
        self.clock = clock
        self.mixing = mixing
    }

    func owner(of id: MediaLegID) -> any CallMediaBridge {
        others.first { id.rawValue.hasPrefix($0.prefix) }?.bridge ?? primary
    }

    private func sameOwner(_ a: MediaLegID, _ b: MediaLegID) -> Bool {
        let first = others.firstIndex { a.rawValue.hasPrefix($0.prefix) }
        let second = others.firstIndex { b.rawValue.hasPrefix($0.prefix) }
        return first == second
    }

    package func createLegMedia(offer: String, events: @escaping @Sendable (CallMediaEvent) -> Void)
        async throws(ParleyError) -> CallMediaAnswer {
        try await primary.createLegMedia(offer: offer, events: events)
    }

    package func createLegMedia(offer: String, preferring preferred: CallAudioCodec?,
                                events: @escaping @Sendable (CallMediaEvent) -> Void) async throws(ParleyError) -> CallMediaAnswer {
        try await primary.createLegMedia(offer: offer, preferring: preferred, events: events)
    }

    package func forward(from source: MediaLegID, to sink: MediaLegID) async -> Bool {
        if let relay = relay(of: source, and: sink) {
            return (try? relay.set(from: source.rawValue, to: sink.rawValue, true)) ?? false
        }
        if hasLink(from: source, to: sink) { return true }
        if sameOwner(source, sink), await owner(of: source).forward(from: source, to: sink) { return true }
        guard let first = await owner(of: source).audioCodec(of: source),
              let second = await owner(of: sink).audioCodec(of: sink) else { return false }
        if first == second, !sameOwner(source, sink), await link(from: source, to: sink, codec: first) { return true }
        let relay = TranscodingRelay((source.rawValue, first), (sink.rawValue, second), sink: self,
                                     configuration: mixing)
        guard (try? relay.set(from: source.rawValue, to: sink.rawValue, true)) == true else { return false }
        state.withLock {
            $0.relays.append(relay)
            $0.relaysMade += 1
        }
        clock.add(relay.mixer)
        _ = await installTap(source)
        _ = await installTap(sink)
        Log.info(.platform, "media \(source) (\(first.rawValue)) → \(sink) (\(second.rawValue)) through a transcoding relay")
        return true
    }

    package func stopForwarding(to sink: MediaLegID) async {
        let relays = state.withLock { $0.relays.filter { $0.contains(sink.rawValue) } }
        for relay in relays {
            // The relay's other leg is the source whose direction toward `sink` stops.
            if let source = relay.otherSession(than: sink.rawValue) { _ = try? relay.set(from: source, to: sink.rawValue, false) }
            if relay.isIdle { await retire(relay) }
        }
        await unlink { $0.sink == sink }
        await owner(of: sink).stopForwarding(to: sink)
    }

    package func setAudioTap(_ id: MediaLegID, _ tap: (@Sendable (TappedAudioPacket) -> Void)?) async -> Bool {
        state.withLock { $0.engineTaps[id] = tap }
        return await installTap(id)
    }

    package func audioCodec(of id: MediaLegID) async -> CallAudioCodec? {
        await owner(of: id).audioCodec(of: id)
    }

    package func restart(_ id: MediaLegID, offer: String) async throws(ParleyError) -> String {
        try await owner(of: id).restart(id, offer: offer)
    }

    package func close(_ id: MediaLegID) async {
        let relays = state.withLock { s -> [TranscodingRelay] in
            s.engineTaps[id] = nil
            return s.relays.filter { $0.contains(id.rawValue) }
        }
        for relay in relays { await retire(relay) }
        await unlink { $0.involves(id) }
        await owner(of: id).close(id)
    }

    package func play(_ payload: [UInt8], samples: Int, to session: String) {
        owner(of: MediaLegID(session)).play(payload, samples: samples, to: session)
    }

    // MARK: - Relays

    private func relay(of a: MediaLegID, and b: MediaLegID) -> TranscodingRelay? {
        state.withLock { $0.relays.first { $0.contains(a.rawValue) && $0.contains(b.rawValue) } }
    }

    /// Ends a relay: out of the clock, its legs' taps back to the engine's alone.
    private func retire(_ relay: TranscodingRelay) async {
        let legs = state.withLock { s -> [String] in
            s.relays.removeAll { $0 === relay }
            return relay.sessions
        }
        clock.remove(relay.mixer)
        for leg in legs { _ = await installTap(MediaLegID(leg)) }
    }

    /// Gives the leg's bridge one tap: the engine's and the relays' the leg is in, together.
    private func installTap(_ id: MediaLegID) async -> Bool {
        let (engineTap, inputs) = state.withLock { s in
            (s.engineTaps[id], s.relays.compactMap { $0.input(for: id.rawValue) })
        }
        guard engineTap != nil || !inputs.isEmpty else { return await owner(of: id).setAudioTap(id, nil) }
        return await owner(of: id).setAudioTap(id) { packet in
            engineTap?(packet)
            for input in inputs { input.receive(packet.payload, sequenceNumber: packet.sequenceNumber) }
        }
    }
}
