import Synchronization
import WebRTC

/// The room connection's media statistics (the seed's `StatsReport`): one entry per local track
/// we send and per remote track we receive.
public struct StatsReport: Sendable {
    /// A local track as sent: its SID and name, codec, and per simulcast layer (one without
    /// simulcast) the SSRC, packets and payload bytes sent (the encoder's output: no RTP
    /// headers, no retransmissions), retransmissions and key frames asked of it.
    public struct LocalTrackStats: Sendable {
        public var trackSid: String?
        public var trackName: String
        public var codec: String?
        public var layers: [(rid: String?, ssrc: UInt32, packetsSent: UInt64, retransmissionsSent: Int, keyFrameRequests: Int,
                             bytesSent: UInt64)]
        /// Payload bytes sent over every layer.
        public var bytesSent: UInt64 { layers.reduce(0) { $0 + $1.bytesSent } }
    }

    /// A remote track as received: its SID and name, codec, SSRC, packets (and of those
    /// retransmissions) received, NACKs sent; video frames decoded and dropped.
    public struct RemoteTrackStats: Sendable {
        public var trackSid: String
        public var trackName: String
        public var codec: String?
        public var ssrc: UInt32?
        public var packetsReceived: UInt64
        public var retransmissionsReceived: Int
        public var nacksSent: Int
        public var framesDecoded: Int?
        public var framesDropped: Int?
    }

    public var localAudioTrackStats: [LocalTrackStats] = []
    public var localVideoTrackStats: [LocalTrackStats] = []
    public var remoteAudioTrackStats: [RemoteTrackStats] = []
    public var remoteVideoTrackStats: [RemoteTrackStats] = []
}

extension Room {
    /// The media statistics now (the seed's `getStats`); empty when not connected.
    public func getStats() async -> StatsReport {
        var report = StatsReport()
        guard let media = inner.withLock({ $0.media }) else { return report }
        let local = localParticipant
        for (track, transceiver) in media.audioSenders {
            if let stats = await media.peer.statistics(of: transceiver) {
                report.localAudioTrackStats.append(Self.local(track.name, local?.publishedTrackSid(named: track.name), stats))
            }
        }
        for (track, transceiver) in media.videoSenders {
            if let stats = await media.peer.statistics(of: transceiver) {
                report.localVideoTrackStats.append(Self.local(track.name, local?.publishedTrackSid(named: track.name), stats))
            }
        }
        for participant in remoteParticipants {
            for publication in participant.trackPublications where publication.kind != .data {
                guard let mid = publication.mid, let slot = media.slot(mid), let stats = await media.peer.statistics(of: slot.transceiver)
                else { continue }
                let video = publication.remoteVideoTrack
                let entry = StatsReport.RemoteTrackStats(
                    trackSid: publication.trackSid, trackName: publication.trackName, codec: stats.codec?.encodingName,
                    ssrc: stats.remoteSSRC, packetsReceived: stats.packetsReceived, retransmissionsReceived: stats.retransmissionsReceived,
                    nacksSent: stats.nacksSent, framesDecoded: video?.framesDecoded, framesDropped: video?.framesDropped)
                if publication.kind == .audio { report.remoteAudioTrackStats.append(entry) } else { report.remoteVideoTrackStats.append(entry) }
            }
        }
        return report
    }

    private static func local(_ name: String, _ sid: String?, _ stats: TransceiverStatistics) -> StatsReport.LocalTrackStats {
        StatsReport.LocalTrackStats(trackSid: sid, trackName: name, codec: stats.codec?.encodingName,
                                    layers: stats.sendStreams.map { ($0.rid, $0.ssrc, $0.packetsSent, $0.retransmissionsSent,
                                                                     $0.keyFrameRequests, $0.payloadBytesSent) })
    }
}
