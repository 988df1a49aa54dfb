import Foundation
import ICE
import WebRTC

/// Minimum, average and maximum of one figure over a preflight test's samples (the seed's `TVOStats`).
public struct PreflightStats: Sendable, Hashable {
    public var min: Double
    public var average: Double
    public var max: Double

    public init(min: Double, average: Double, max: Double) {
        self.min = min
        self.average = average
        self.max = max
    }

    /// Nil when `values` is empty.
    init?(_ values: [Double]) {
        guard let low = values.min(), let high = values.max() else { return nil }
        self.init(min: low, average: values.reduce(0, +) / Double(values.count), max: high)
    }
}

/// How long each step of connecting took (the seed's `TVONetworkTiming`), from the connection's
/// `PeerConnection.Timings`; nil for a step that never finished.
public struct PreflightNetworkTiming: Sendable, Hashable {
    /// Offer sent to the echo service → its answer applied (the HTTP exchange).
    public var signaling: Duration?
    /// Answer applied (connectivity checks start) → ICE connected.
    public var ice: Duration?
    /// ICE connected → DTLS handshake done (SRTP keys exported).
    public var dtls: Duration?
    /// `createOffer` → the peer connection is connected: the whole setup.
    public var peerConnection: Duration?

    public init(signaling: Duration? = nil, ice: Duration? = nil, dtls: Duration? = nil, peerConnection: Duration? = nil) {
        self.signaling = signaling
        self.ice = ice
        self.dtls = dtls
        self.peerConnection = peerConnection
    }

    init(_ timings: PeerConnection.Timings) {
        self.init(signalingStarted: timings.signalingStarted, localDescription: timings.localDescription,
                  remoteDescription: timings.remoteDescription, iceConnected: timings.iceConnected,
                  dtlsConnected: timings.dtlsConnected, connected: timings.connected)
    }

    /// From the connection's timestamps (each measured from its creation).
    init(signalingStarted: Duration?, localDescription: Duration?, remoteDescription: Duration?, iceConnected: Duration?,
         dtlsConnected: Duration?, connected: Duration?) {
        func span(_ start: Duration?, _ end: Duration?) -> Duration? {
            guard let start, let end else { return nil }
            return end - start
        }
        self.init(signaling: span(localDescription, remoteDescription), ice: span(remoteDescription, iceConnected),
                  dtls: span(iceConnected, dtlsConnected), peerConnection: span(signalingStarted, connected))
    }
}

/// The candidate pair media used (the seed's `TVOIceCandidatePairStats`).
public struct PreflightCandidatePair: Sendable, Hashable {
    public var localCandidate: StatsReport.IceCandidateStats
    public var remoteCandidate: StatsReport.IceCandidateStats

    init?(local: ICECandidate?, remote: ICECandidate?) {
        guard let local, let remote else { return nil }
        func stats(_ candidate: ICECandidate, isRemote: Bool) -> StatsReport.IceCandidateStats {
            StatsReport.IceCandidateStats(ip: candidate.address.ipString, port: Int(candidate.address.port),
                                          candidateType: candidate.type.rawValue, transport: "udp", isRemote: isRemote)
        }
        localCandidate = stats(local, isRemote: false)
        remoteCandidate = stats(remote, isRemote: true)
    }
}

/// Twilio's preflight rating of the average MOS (twilio.js `PreflightTest.CallQuality`).
public enum PreflightCallQuality: String, Sendable, Hashable, CaseIterable {
    case excellent, great, good, fair, degraded

    /// ≥ 4.2 excellent, ≥ 4.1 great, ≥ 3.7 good, ≥ 3.1 fair, below degraded.
    public init(averageMOS mos: Double) {
        switch mos {
        case 4.2...: self = .excellent
        case 4.1...: self = .great
        case 3.7...: self = .good
        case 3.1...: self = .fair
        default: self = .degraded
        }
    }
}

/// What a preflight test measured (the seed's `TVOPreflightReport`).
public struct PreflightReport: Sendable, Hashable {
    public var callSid: String
    /// The edge that was tested.
    public var edge: String
    public var networkTiming: PreflightNetworkTiming
    /// Jitter of the echoed stream, milliseconds; nil without samples.
    public var jitter: PreflightStats?
    /// MOS over the samples that had one.
    public var mos: PreflightStats?
    /// Round-trip time, milliseconds, over the samples that had one.
    public var rtt: PreflightStats?
    /// Per-second loss of the echoed stream, percent.
    public var packetLoss: PreflightStats?
    public var selectedIceCandidatePair: PreflightCandidatePair?
    /// Media went through a TURN relay (either side of the selected pair is `relay`).
    public var isTurnRequired: Bool
    /// The rating of the average MOS; nil when no sample had a MOS.
    public var callQuality: PreflightCallQuality?
    /// Warnings raised during the test, in order, with when they cleared.
    public var qualityWarnings: [PreflightWarningRecord]
    /// One a second.
    public var statsSamples: [PreflightStatsSample]

    init(callSid: String, edge: String, networkTiming: PreflightNetworkTiming, selectedIceCandidatePair: PreflightCandidatePair?,
         statsSamples: [PreflightStatsSample], qualityWarnings: [PreflightWarningRecord]) {
        self.callSid = callSid
        self.edge = edge
        self.networkTiming = networkTiming
        self.selectedIceCandidatePair = selectedIceCandidatePair
        self.statsSamples = statsSamples
        self.qualityWarnings = qualityWarnings
        jitter = PreflightStats(statsSamples.compactMap(\.jitterMs))
        mos = PreflightStats(statsSamples.compactMap(\.mos))
        rtt = PreflightStats(statsSamples.compactMap(\.roundTripTimeMs))
        packetLoss = PreflightStats(statsSamples.map(\.packetLossPercent))
        isTurnRequired = selectedIceCandidatePair.map {
            $0.localCandidate.candidateType == "relay" || $0.remoteCandidate.candidateType == "relay"
        } ?? false
        callQuality = mos.map { PreflightCallQuality(averageMOS: $0.average) }
    }
}
