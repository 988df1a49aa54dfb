import Foundation
import ParleyCore
import ParleyVPX
import Synchronization
import VP8
import VideoCore
import WebRTC

/// A local video track on the wire: its source's frames encoded with libvpx's VP8 (one layer, or
/// three simulcast layers by rid, RFC 8853), packetized (RFC 7741) and sent on the track's
/// transceiver with a 90 kHz timestamp from the capture time. Key frames when the server asks
/// (PLI/FIR). A disabled track sends nothing.
final class LocalVideoSender: Sendable {
    private struct Encoding {
        var encoder: VP8SimulcastEncoder?
        var packetizers: [String: VP8Packetizer] = [:]
        var framesEncoded = 0
    }

    let track: LocalVideoTrack
    let transceiver: RTPTransceiver
    private let source: any VideoSource
    private let peer: PeerConnection
    private let simulcast: Bool
    private let encoding = Mutex(Encoding())
    private let started = ContinuousClock.now

    init(track: LocalVideoTrack, source: any VideoSource, peer: PeerConnection, transceiver: RTPTransceiver) {
        self.track = track
        self.source = source
        self.peer = peer
        self.transceiver = transceiver
        simulcast = !transceiver.sendEncodings.isEmpty
    }

    func start() throws(ParleyError) {
        do {
            try source.start { [weak self] frame in self?.send(frame) }
        } catch {
            throw ParleyError(.mediaClientLocalDescFailed, reason: "the video source of track \(track.name): \(error)")
        }
    }

    func stop() { source.stop() }

    /// The next frame of every layer is a key frame (of layer `rid` only, for simulcast).
    func requestKeyFrame(rid: String?) { encoding.withLock { $0.encoder?.requestKeyFrame(rid: simulcast ? rid : nil) } }

    var framesEncoded: Int { encoding.withLock { $0.framesEncoded } }

    private func send(_ frame: I420Frame) {
        guard track.isEnabled else { return }
        let elapsed = ContinuousClock.now - started
        let timestamp = UInt32(truncatingIfNeeded: elapsed.components.seconds * 90_000
                                 + elapsed.components.attoseconds / 11_111_111_111_111)
        let layers = encoding.withLock { e -> [(rid: String?, packets: [[UInt8]])] in
            if e.encoder?.width != frame.width || e.encoder?.height != frame.height {
                e.encoder = try? VP8SimulcastEncoder(width: frame.width, height: frame.height, layerCount: simulcast ? 3 : 1)
            }
            guard let encoder = e.encoder, let encoded = try? encoder.encode(frame) else { return [] }
            e.framesEncoded += 1
            return encoded.map { layer in
                var packetizer = e.packetizers[layer.rid] ?? VP8Packetizer(firstPictureID: UInt16.random(in: 0...0x7FFF))
                let packets = packetizer.packetize(layer.frame.data)
                e.packetizers[layer.rid] = packetizer
                return (simulcast ? layer.rid : nil, packets)
            }
        }
        for layer in layers { peer.sendFrame(layer.packets, on: transceiver, rid: layer.rid, timestamp: timestamp) }
    }
}
