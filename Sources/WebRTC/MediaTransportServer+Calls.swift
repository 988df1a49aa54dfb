import ParleyCore
import ParleyNet
import SDP

/// Call sessions: the media legs of bridged calls, the two-party case of a selective forwarding
/// unit (RFC 7667 §3.7) that rooms reuse.
///
/// A call session is set up like an echo session (ICE-lite, DTLS-SRTP), but what it receives goes
/// to the sessions it is the forwarding source of, or nowhere. Each session sends one outgoing
/// stream under its own SSRC, fed by at most one source at a time or by frames the server plays;
/// sequence numbers and timestamps stay continuous across every change of origin, so the peer's
/// jitter buffer sees a single stream. Bridging two legs both ways is two `forward` calls.
extension MediaTransportServer {
    /// Creates a call session from an SDP offer and returns its id and SDP answer: the offered
    /// audio codec (Opus, else PCMU/PCMA) and, when offered, `telephone-event` at the codec's
    /// clock rate (RFC 4733: `/48000` beside Opus, `/8000` beside G.711).
    ///
    /// - Parameter preferredAudio: taken before Opus when the offer has it (the codec of the leg
    ///   the session will be bridged to, so the two can forward without transcoding).
    /// - Parameter events: state changes, keys and connectivity of the session, in order, on a task
    ///   of the session's own (never the media loop). The last event is `.stateChanged` to
    ///   `.failed` or `.closed`.
    /// - Throws: `ParleyError` 53403 (unusable offer), 53404 (no supported audio codec),
    ///   53401 (too many sessions or local setup failed).
    public func createCallSession(offer: String, preferredAudio: AudioCodec? = nil,
                                  events: @escaping @Sendable (PeerSessionEvent) -> Void) async throws(ParleyError) -> PeerSessionAnswer {
        let parsed = try MediaOffer(offer: offer, preferredAudio: preferredAudio)
        let delivery = OffLoopDelivery(limit: 1024, handler: events)
        let core = self.core
        let result: Result<PeerSessionAnswer, ParleyError> = await onLoop {
            core.value.createSession(parsed, kind: .call, events: delivery)
        }
        if case .failure = result { delivery.finish() }
        return try result.get()
    }

    /// From now on RTP received on `source` is sent on `sink`'s stream: its header rewritten to
    /// the sink's SSRC, continuous sequence numbers and timestamps, and the sink's payload types
    /// (audio and telephone-event), protected with the sink's SRTP context. A sink has one source:
    /// this replaces the previous one (and played frames). Returns false when either session is
    /// unknown, ended, not a call session, the same session, or when the codecs differ
    /// (transcoding is not supported). The sessions need not be connected yet: packets flow once
    /// both are (until then they are counted in the sink's `forwardDropped`).
    public func forward(from source: String, to sink: String) async -> Bool {
        let core = self.core
        return await onLoop { core.value.forward(from: source, to: sink) }
    }

    /// Stops forwarding to `sink`; its stream goes quiet until another source or played frames.
    public func stopForwarding(to sink: String) async {
        let core = self.core
        await onLoop { core.value.stopForwarding(to: sink) }
    }

    /// Sends one frame the caller encoded (in the session's codec) on the session's stream: the
    /// sequence number continues, the timestamp advances by the previous frame's `samples`, and
    /// the first frame after a change of origin or a pause carries the marker bit and a timestamp
    /// advanced by the wall time. The caller paces frames in real time (one per frame duration).
    /// Returns at once; the frame is sent on the media loop. Frames for unknown, echo or
    /// unconnected sessions are dropped.
    ///
    /// While the session has a forwarding source, played frames are dropped (counted in
    /// `framesDropped`): call `stopForwarding(to:)` first, e.g. for hold music or ringback.
    public func play(_ frame: EncodedAudioFrame, to session: String) {
        let core = self.core
        loop.execute { core.value.play(frame, to: session) }
    }

    /// Hands every received audio packet of `session` (not telephone events) to `tap`, in order on
    /// a task of the tap's own, for recording or decoding; nil removes the tap. Up to 3,000 packets
    /// (a minute of 20 ms frames) wait for a slow tap before the oldest are dropped. Returns false
    /// when the session is unknown or ended.
    @discardableResult
    public func setAudioTap(session: String, _ tap: (@Sendable (MediaTapPacket) -> Void)?) async -> Bool {
        let delivery = tap.map { OffLoopDelivery(limit: 3000, handler: $0) }
        let core = self.core
        return await onLoop { core.value.setAudioTap(delivery, session: session) }
    }

    /// Applies a new offer from the peer of a live session and returns the new SDP answer. When
    /// the offer carries new ICE credentials this is an ICE restart (RFC 8445 §9, RFC 8839
    /// §4.4.1.1.1): the answer carries new credentials of ours, the peer checks and nominates
    /// again (possibly from a new address), and `.iceRestarted` is reported. DTLS, SRTP, the
    /// session id, its SSRC and its forwarding links are kept.
    ///
    /// - Throws: `ParleyError` 53403 (unusable offer, unknown or ended session, or a changed
    ///   DTLS fingerprint), 53404 (the codec changed).
    public func restartSession(id: String, offer: String) async throws(ParleyError) -> String {
        let parsed = try MediaOffer.parse(offer)
        let core = self.core
        let result: Result<String, ParleyError> = await onLoop { core.value.restart(id: id, offer: parsed) }
        return try result.get()
    }
}
