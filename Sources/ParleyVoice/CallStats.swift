import ICE
import ParleyAudio
import ParleyCore
import Synchronization
import WebRTC

/// One snapshot of a call's media (the seed's `TVOStatsReport`): what is sent and received on the
/// audio track, the connection's quality, and the ICE candidates in use.
public struct StatsReport: Sendable {
    /// What this side sends (the seed's `TVOLocalAudioTrackStats`).
    public struct LocalAudioTrackStats: Sendable, Hashable {
        public var codec: String
        public var ssrc: UInt32
        public var packetsSent: Int
        public var bytesSent: Int
        /// What the far end reports losing of our stream (RTCP), nil before its first report.
        public var packetsLost: Int64?
        /// Microphone level, linear 0…1 (0 while muted).
        public var audioLevel: Double
        /// The far end's jitter of our stream in milliseconds (RTCP), nil before its first report.
        public var jitterMs: Double?
        public var roundTripTimeMs: Double?
    }

    /// What this side receives (the seed's `TVORemoteAudioTrackStats`).
    public struct RemoteAudioTrackStats: Sendable, Hashable {
        public var codec: String
        public var ssrc: UInt32?
        public var packetsReceived: Int
        public var bytesReceived: Int
        public var packetsLost: Int
        /// Interarrival jitter (RFC 3550 §A.8), milliseconds.
        public var jitterMs: Double
        /// Playout level, linear 0…1.
        public var audioLevel: Double
        /// Mean opinion score 1…4.5 from RTT, jitter and loss; nil while the RTT is unknown.
        public var mos: Double?
        /// Current jitter-buffer delay, milliseconds.
        public var jitterBufferDelayMs: Double
        /// The 95th percentile of the jitter-buffer delay since the call began, milliseconds (a
        /// Parley addition).
        public var jitterBufferDelayP95Ms: Double = 0
        /// Lost frames rebuilt from RED's redundant blocks (RFC 2198) and from Opus in-band FEC, and
        /// the samples (per channel, at the decoder's rate) concealed because neither had them
        /// (Parley additions, as W3C webrtc-stats counts `concealedSamples`).
        public var framesRecoveredByRED = 0
        public var framesRecoveredByFEC = 0
        public var samplesConcealed = 0
        /// Whether RED was negotiated on the call (`red/48000/2`).
        public var isREDNegotiated = false
    }

    /// One ICE candidate (the seed's `TVOIceCandidateStats`).
    public struct IceCandidateStats: Sendable, Hashable {
        public var ip: String
        public var port: Int
        public var candidateType: String
        public var transport: String
        public var isRemote: Bool
    }

    public var localAudioTrackStats: [LocalAudioTrackStats] = []
    public var remoteAudioTrackStats: [RemoteAudioTrackStats] = []
    /// The candidates of the selected pair (local first).
    public var iceCandidateStats: [IceCandidateStats] = []
    /// Whether the selected pair goes through a TURN relay.
    public var isRelayed: Bool { iceCandidateStats.contains { $0.candidateType == "relay" } }
}

extension Call {
    /// The call's statistics now; empty before media exists; once the call has ended, the figures
    /// as they were when it ended (a Parley addition: an app can report them after any hangup).
    public func stats() async -> StatsReport {
        let (media, last) = snapshot.withLock { ($0.media, $0.finalStats) }
        guard let media else { return last ?? StatsReport() }
        return await Self.statistics(of: media)
    }

    static func statistics(of media: CallMedia) async -> StatsReport {
        let peer = await media.peer.statistics()
        var report = StatsReport()
        let codec = peer.codec?.rawValue.lowercased() ?? "unknown"
        let engine = media.audioEngine?.statistics()
        report.localAudioTrackStats = [StatsReport.LocalAudioTrackStats(
            codec: codec, ssrc: peer.localSSRC, packetsSent: Int(peer.packetsSent), bytesSent: Int(peer.payloadBytesSent),
            packetsLost: peer.remoteCumulativeLost.map(Int64.init), audioLevel: engine?.local.inputLevel ?? 0,
            jitterMs: peer.remoteJitter.map { Double($0) / Double(peer.codec?.clockRate ?? 48_000) * 1000 },
            roundTripTimeMs: peer.roundTripTime?.milliseconds)]
        report.remoteAudioTrackStats = [StatsReport.RemoteAudioTrackStats(
            codec: codec, ssrc: peer.remoteSSRC, packetsReceived: Int(peer.packetsReceived),
            bytesReceived: Int(peer.payloadBytesReceived), packetsLost: Int(peer.cumulativeLost),
            jitterMs: engine?.remote.jitterMs ?? peer.jitter * 1000, audioLevel: engine?.remote.outputLevel ?? 0, mos: engine?.mos,
            jitterBufferDelayMs: engine?.remote.jitterBuffer.currentDelayMs ?? 0,
            jitterBufferDelayP95Ms: engine?.remote.jitterBuffer.jitterBufferDelayP95Ms ?? 0,
            framesRecoveredByRED: engine?.remote.jitterBuffer.redRecoveredFrames ?? 0,
            framesRecoveredByFEC: engine?.remote.jitterBuffer.fecRecoveredFrames ?? 0,
            samplesConcealed: engine?.remote.jitterBuffer.concealedSamples ?? 0,
            isREDNegotiated: peer.redPayloadType != nil)]
        for (candidate, remote) in [(peer.localCandidate, false), (peer.remoteCandidate, true)] {
            guard let candidate else { continue }
            report.iceCandidateStats.append(StatsReport.IceCandidateStats(
                ip: candidate.address.ipString, port: Int(candidate.address.port), candidateType: candidate.type.rawValue,
                transport: "udp", isRemote: remote))
        }
        return report
    }

    /// The seed's completion-handler form of `stats()`.
    public func getStats(_ completion: @escaping @Sendable ([StatsReport]) -> Void) {
        Task.detached { completion([await self.stats()]) }
    }
}
