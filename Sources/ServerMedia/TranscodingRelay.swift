import ParleyCore
import Synchronization

/// Two legs that cannot forward packets to each other — different codecs (Opus and G.711), or
/// media on different transports (a WebRTC client and a SIP phone) — joined through a mixer of
/// their own: each direction that is on decodes one leg's audio and encodes it in the other's
/// codec, on the shared media clock, with the conference mix's jitter queue and loss concealment
/// (`ConferenceMixer` with two parties, so transcoding and mixing are one piece of code).
///
/// Each leg is a mixer party: mixed in while its audio goes to the other, hearing while the
/// other's comes to it (muted parties hear exactly the total, which is the other's audio).
package final class TranscodingRelay: Sendable {
    package let mixer: ConferenceMixer
    private let legs: [(session: String, codec: CallAudioCodec, input: ConferenceInput)]
    /// Directions on: `on[0]` is first → second, `on[1]` second → first.
    private let on = Mutex([false, false])

    package init(_ first: (session: String, codec: CallAudioCodec), _ second: (session: String, codec: CallAudioCodec),
                 sink: any MediaFrameSink, configuration: CallMediaPlayer.Configuration = CallMediaPlayer.Configuration()) {
        mixer = ConferenceMixer(sink: sink, configuration: configuration)
        legs = [(first.session, first.codec, ConferenceInput()), (second.session, second.codec, ConferenceInput())]
    }

    /// Whether the relay joins `session` (either side).
    package func contains(_ session: String) -> Bool { legs.contains { $0.session == session } }

    /// The two legs' sessions.
    package var sessions: [String] { legs.map(\.session) }

    /// The leg across from `session` (nil: not a leg of this relay).
    package func otherSession(than session: String) -> String? {
        guard let index = legs.firstIndex(where: { $0.session == session }) else { return nil }
        return legs[1 - index].session
    }

    /// Where `session`'s tapped audio goes (nil: not a leg of this relay).
    package func input(for session: String) -> ConferenceInput? { legs.first { $0.session == session }?.input }

    /// Turns the direction `source` → `sink` on or off. False if they are not this relay's legs.
    @discardableResult
    package func set(from source: String, to sink: String, _ enabled: Bool) throws(MediaError) -> Bool {
        guard let from = legs.firstIndex(where: { $0.session == source }), legs[1 - from].session == sink else { return false }
        let directions = on.withLock { state -> [Bool] in
            state[from] = enabled
            return state
        }
        for index in 0..<2 {
            let mixedIn = directions[index], hears = directions[1 - index]
            let leg = legs[index]
            if !mixedIn && !hears {
                mixer.remove(session: leg.session)
            } else {
                try mixer.add(session: leg.session, codec: leg.codec, input: leg.input, muted: !mixedIn, active: true, hears: hears)
            }
        }
        return true
    }

    /// Whether `sink` hears its other leg through the relay.
    package func feeds(_ sink: String) -> Bool {
        guard let index = legs.firstIndex(where: { $0.session == sink }) else { return false }
        return on.withLock { $0[1 - index] }
    }

    /// No direction is on.
    package var isIdle: Bool { on.withLock { !$0[0] && !$0[1] } }
}
