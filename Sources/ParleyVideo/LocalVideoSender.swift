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
        var lastKeyFrame = ContinuousClock.now
        /// 95 % of the receiver's estimate for what we send (REMB), bits per second.
        var estimate: Int?
        /// The app's limit (`EncodingParameters.videoBitrate`).
        var cap: Int?
        /// What the encoders aim at: the lower of the two, never above their default total.
        var ceiling: Int?

        /// Sets the encoders to the lower of the estimate and the cap (their default when neither).
        mutating func aim() {
            let limits = [estimate, cap].compactMap { $0 }
            let target = limits.min().map { min(LocalVideoSender.defaultMaxBitrate, $0) }
            guard target != ceiling else { return }
            ceiling = target
            try? encoder?.setMaxBitrate(target ?? LocalVideoSender.defaultMaxBitrate)
        }
    }

    /// The encoders' total when nothing limits them (libvpx's simulcast default: 150 + 500 + 1,500 kbit/s).
    static let defaultMaxBitrate = 2_150_000

    /// Where each encoded frame's packets go: the layer's rid (simulcast) and the 90 kHz timestamp.
    typealias Outlet = @Sendable (_ packets: [[UInt8]], _ rid: String?, _ timestamp: UInt32) -> Void

    let track: LocalVideoTrack
    /// The room transceiver it sends on (group rooms); nil in a peer-to-peer room.
    let transceiver: RTPTransceiver?
    private let source: any VideoSource
    private let outlet: Outlet
    private let simulcast: Bool
    private let encoding = Mutex(Encoding())
    private let started = ContinuousClock.now

    /// Sending on a room transceiver (group rooms).
    convenience init(track: LocalVideoTrack, source: any VideoSource, peer: PeerConnection, transceiver: RTPTransceiver) {
        self.init(track: track, source: source, transceiver: transceiver, simulcast: !transceiver.sendEncodings.isEmpty) {
            packets, rid, timestamp in peer.sendFrame(packets, on: transceiver, rid: rid, timestamp: timestamp)
        }
    }

    /// - Parameter keyFrameInterval: a key frame at least this often (a path with no PLI).
    init(track: LocalVideoTrack, source: any VideoSource, transceiver: RTPTransceiver? = nil, simulcast: Bool = false,
         keyFrameInterval: Duration? = nil, outlet: @escaping Outlet) {
        self.track = track
        self.source = source
        self.transceiver = transceiver
        self.simulcast = simulcast
        self.keyFrameInterval = keyFrameInterval
        self.outlet = outlet
    }

    private let keyFrameInterval: Duration?

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

    /// The server's estimate for our uplink (REMB, its publish cap included): the encoders aim at
    /// 95 % of it, or the app's cap when lower, never above their default total. Changes under
    /// 5 % are ignored.
    func receiverEstimated(_ bitrate: UInt64) {
        let estimate = Int(clamping: bitrate * 95 / 100)
        encoding.withLock { e in
            if let old = e.estimate, abs(old - estimate) * 20 < old { return }
            e.estimate = estimate
            e.aim()
        }
    }

    /// The app's limit on what the encoders send (`EncodingParameters.videoBitrate`), bits per
    /// second; nil lifts it.
    func setMaxBitrate(_ limit: Int?) {
        encoding.withLock { e in
            e.cap = limit
            e.aim()
        }
    }

    /// The bitrate the encoders aim at now (nil: their default).
    var bitrateCeiling: Int? { encoding.withLock { $0.ceiling } }

    private func send(_ frame: I420Frame) {
        guard track.isEnabled else { return }
        let elapsed = ContinuousClock.now - started
        let timestamp = UInt32(truncatingIfNeeded: elapsed.components.seconds * 90_000
                                 + elapsed.components.attoseconds / 11_111_111_111_111)
        let layers = encoding.withLock { e -> [(rid: String?, packets: [[UInt8]])] in
            if e.encoder?.width != frame.width || e.encoder?.height != frame.height {
                e.encoder = try? VP8SimulcastEncoder(width: frame.width, height: frame.height, layerCount: simulcast ? 3 : 1)
                if let ceiling = e.ceiling { try? e.encoder?.setMaxBitrate(ceiling) }
            }
            if let interval = keyFrameInterval, ContinuousClock.now - e.lastKeyFrame >= interval {
                e.encoder?.requestKeyFrame()
                e.lastKeyFrame = .now
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
        for layer in layers { outlet(layer.packets, layer.rid, timestamp) }
    }
}
