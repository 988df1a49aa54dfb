import ICE
import ParleyCore
import Synchronization
import WebRTC

/// One pair's connection in a peer-to-peer or go room (docs/signaling.md §12, "Peer-to-peer
/// rooms"): the media goes straight to the other participant. A call-style `PeerConnection` with
/// one audio (Opus) and one VP8 section, both sendrecv, so either side can answer the other's
/// offer; its SDP carries every candidate (no trickling needed between two SDKs).
final class PeerLink: Sendable {
    let participantSid: String
    let peer: PeerConnection

    private struct State {
        var videoPayloadType: UInt8?
        var videoSequence = UInt16.random(in: 0...UInt16.max)
        var connected = false
        /// The other side's sending sections (mid) → its track SIDs, from its offer or answer.
        var remotePublished: [String: String] = [:]
    }

    private let state = Mutex(State())

    init(participantSid: String, iceServers: [PeerConnection.ICEServer], transportPolicy: ICETransportPolicy = .all) throws(ParleyError) {
        self.participantSid = participantSid
        var configuration = PeerConnection.Configuration(iceServers: iceServers, transportPolicy: transportPolicy)
        configuration.videoCodecs = [.vp8]
        configuration.offerTelephoneEvent = false
        peer = try PeerConnection(configuration: configuration)
    }

    /// The section mids of a call-style connection: the audio section, then the video one.
    static let audioMid = "0", videoMid = "1"

    var isConnected: Bool { state.withLock { $0.connected } }
    var remotePublished: [String: String] { state.withLock { $0.remotePublished } }

    func learn(_ published: [String: String]) { state.withLock { $0.remotePublished.merge(published) { _, new in new } } }

    /// Calls `connected` once ICE and DTLS are up (with the negotiated video payload type known).
    func watch(connected: @escaping @Sendable () -> Void) {
        Task { [weak self, peer] in
            for await state in peer.states {
                if state == .connected {
                    let statistics = await peer.statistics()
                    self?.state.withLock {
                        $0.videoPayloadType = statistics.videoPayloadType
                        $0.connected = true
                    }
                    connected()
                    return
                }
                if state.isTerminal { return }
            }
        }
    }

    func sendAudio(_ payload: [UInt8]) {
        guard isConnected else { return }
        peer.sendAudio(payload: payload, timestampIncrement: 960)
    }

    /// One video frame's packets, numbered on this link's own sequence.
    func sendVideo(_ packets: [[UInt8]], timestamp: UInt32) {
        guard let (payloadType, first) = state.withLock({ s -> (UInt8, UInt16)? in
            guard s.connected, let payloadType = s.videoPayloadType else { return nil }
            defer { s.videoSequence &+= UInt16(truncatingIfNeeded: packets.count) }
            return (payloadType, s.videoSequence)
        }) else { return }
        for (index, packet) in packets.enumerated() {
            peer.sendRTP(payload: packet, payloadType: payloadType, sequenceNumber: first &+ UInt16(truncatingIfNeeded: index),
                         timestamp: timestamp, marker: index == packets.count - 1)
        }
    }

    func close() async { await peer.close() }
}
