import ParleyCore
import ParleyNet
import SFU

/// One m-section of one session, by its `a=mid`.
public struct MediaSectionAddress: Sendable, Hashable {
    public var session: String
    public var mid: String

    public init(session: String, mid: String) {
        self.session = session
        self.mid = mid
    }
}

/// A room session's answer and its negotiated sections.
public struct RoomSessionAnswer: Sendable, Equatable {
    /// One accepted m-section and its codec.
    public struct Section: Sendable, Equatable {
        public var mid: String
        public var codec: MediaCodec
    }

    public var id: String
    public var sdp: String
    /// Sections the peer sends in (`sendonly`, `sendrecv`): its published tracks, in offer order.
    public var sending: [Section]
    /// Sections it receives in (`recvonly`, `sendrecv`): the slots routes fill, in offer order.
    public var receiving: [Section]
    /// The mid of the accepted data channel section (RFC 8841), if any: the session publishes
    /// and receives data tracks as data channels (`routeData`).
    public var application: String? = nil
}

/// Room sessions: the selective forwarding unit of group rooms (RFC 7667 §3.7). A participant's
/// one session carries every track it publishes and one receive slot per track it is sent; the
/// room service decides which published section goes into which slot (`route(_:to:)`), and the
/// media loop forwards each packet as it comes, renumbered per slot, with no decoding.
extension MediaTransportServer {
    /// The video codecs room sessions take, in the server's order of preference.
    public static let roomVideoCodecs: [VideoCodec] = [.vp8, .h264]

    /// The codecs rooms forward that a room allows, in the server's order.
    static func roomVideoCodecs(_ allowed: [VideoCodec]) -> [VideoCodec] { roomVideoCodecs.filter(allowed.contains) }

    /// Creates a room session from a participant's offer: every bundled audio section with Opus
    /// (else G.711) and video section with VP8 or H.264 is accepted; we send, in each section the
    /// peer receives in, a track of our own with a fresh SSRC, silent until a route fills it.
    /// - Parameter events: the session's state changes and connectivity, in order, off the loop.
    /// - Parameter videoCodecs: the room's video codecs (its `VideoCodecs`): the answer takes
    ///   no other, a video section offering none of them is rejected.
    /// - Throws: 53403 (unusable offer), 53404 (no codec we forward), 53401 (too many sessions).
    public func createRoomSession(offer: String, videoCodecs: [VideoCodec] = MediaTransportServer.roomVideoCodecs,
                                  events: @escaping @Sendable (PeerSessionEvent) -> Void)
        async throws(ParleyError) -> RoomSessionAnswer {
        let parsed = try MediaOffer(roomOffer: MediaOffer.parse(offer), videoCodecs: Self.roomVideoCodecs(videoCodecs))
        let delivery = OffLoopDelivery(limit: 1024, handler: events)
        let core = self.core
        let result: Result<RoomSessionAnswer, ParleyError> = await onLoop {
            let core = core.value
            return core.createSession(parsed, kind: .room, events: delivery).flatMap { answer in
                core.sessions[answer.id].map { .success(MediaTransportCore.roomSections($0)) }
                    ?? .failure(ParleyError(.mediaServerLocalDescFailed, reason: "session \(answer.id) ended at once"))
            }
        }
        if case .failure = result { delivery.finish() }
        return try result.get()
    }

    /// Applies a participant's re-offer: added sections (new published tracks, new receive slots),
    /// an ICE restart (new credentials, RFC 8445 §9). Sections that stay keep codec, SSRC and
    /// routes; sections set to port 0 or no longer sending or receiving lose their routes.
    /// - Parameter videoCodecs: the room's video codecs, as for `createRoomSession`.
    /// - Throws: 53403 (unusable offer, unknown session, fewer sections than before, a changed
    ///   DTLS fingerprint), 53404 (a section's codec changed).
    public func renegotiateRoomSession(id: String, offer: String,
                                       videoCodecs: [VideoCodec] = MediaTransportServer.roomVideoCodecs)
        async throws(ParleyError) -> RoomSessionAnswer {
        let parsed = try MediaOffer.parse(offer)
        let core = self.core
        let codecs = Self.roomVideoCodecs(videoCodecs)
        let result: Result<RoomSessionAnswer, ParleyError> = await onLoop {
            core.value.renegotiateRoom(id: id, offer: parsed, videoCodecs: codecs)
        }
        return try result.get()
    }

    /// From now on the published section `source` is sent in the receive slot `slot` (nil
    /// empties it): SSRC, sequence numbers, timestamps and payload type rewritten to the slot's,
    /// continuous across changes; a video source is asked for a key frame (PLI), and the slot
    /// receiver's key frame requests go to the source. False when a session or section is
    /// unknown, the source does not send in that section, the slot does not receive, or the
    /// codecs differ (transcoding is not supported).
    /// `priority` ranks a video slot in its session's allocation (`setBandwidthProfile`); routing
    /// the same source again only changes it.
    public func route(_ source: MediaSectionAddress?, to slot: MediaSectionAddress,
                      priority: TrackPriority = .standard) async -> Bool {
        let core = self.core
        return await onLoop { core.value.route(source, to: slot, priority: priority) }
    }

    /// Sends one audio frame the server encoded (in the slot's codec: a room's mixed audio) in a
    /// room session's receive slot `slot` that no route feeds, continuing its sequence numbers
    /// and timestamps as `play(_:to:)` does for a call's stream. Returns at once; frames for an
    /// unknown, routed, video or unconnected slot are dropped (`framesDropped`).
    public func play(_ frame: EncodedAudioFrame, to slot: MediaSectionAddress) {
        let core = self.core
        loop.execute { core.value.play(frame, to: slot) }
    }

    /// How a room session's downlink is shared among the video slots it receives (Twilio's
    /// bandwidth profile: mode, maxSubscriptionBitrate, switch-off, render dimensions).
    public func setBandwidthProfile(_ profile: BandwidthProfile, session id: String) async {
        let core = self.core
        await onLoop { core.value.sessions[id]?.downlink.profile = profile }
    }
}
