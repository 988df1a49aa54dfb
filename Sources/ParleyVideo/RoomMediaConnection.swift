import ParleyCore
import WebRTC

/// The room's media session: one client peer connection (BUNDLE), offered by us and answered by
/// the server (ICE-lite), as every room participant's is (docs/signaling.md §12). This first step
/// of the SDK uses the voice SDK's `PeerConnection` as it is: one audio section and, when the app
/// publishes video, one VP8 section, both sendrecv (a published track and a receive slot each).
final class RoomMediaConnection: Sendable {
    let peer: PeerConnection

    init(video: Bool) throws(ParleyError) {
        var configuration = PeerConnection.Configuration()
        configuration.videoCodecs = video ? [.vp8] : []
        configuration.offerTelephoneEvent = false
        // Data tracks, ours and the others': one data channel section (RFC 8841) always.
        configuration.offerDataChannels = true
        peer = try PeerConnection(configuration: configuration)
    }

    /// Our offer, and the mid of its section of each kind (`a=mid`, RFC 8843).
    func offer() async throws(ParleyError) -> (sdp: String, mids: [TrackKind: String]) {
        let sdp = try await peer.createOffer()
        return (sdp, Self.mids(in: sdp))
    }

    func apply(answer: String) async throws(ParleyError) {
        try await peer.setRemoteAnswer(answer)
    }

    /// Waits until ICE and DTLS are up (data channels can be opened from then); false when the
    /// connection failed or closed first. The connection's one reader of `states`.
    func connected() async -> Bool {
        for await state in peer.states {
            if state == .connected { return true }
            if state.isTerminal { return false }
        }
        return false
    }

    func close() async {
        await peer.close()
    }

    /// The first mid of each media kind in `sdp`, read line by line (`m=` then its `a=mid:`).
    static func mids(in sdp: String) -> [TrackKind: String] {
        var mids: [TrackKind: String] = [:]
        var kind: TrackKind?
        for line in sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") {
                kind = TrackKind(rawValue: String(line.dropFirst(2).prefix { $0 != " " }))
            } else if line.hasPrefix("a=mid:"), let current = kind, mids[current] == nil {
                mids[current] = String(line.dropFirst(6))
            }
        }
        return mids
    }
}
