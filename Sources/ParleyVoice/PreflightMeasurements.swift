import CallQuality
import Foundation

/// The samples and warnings of one preflight test, as a value: each second's `CallQualitySample`
/// (from the audio engine) and the connection's cumulative counters go in, the stats sample and
/// any change of Twilio's quality warnings (`QualityWarningMonitor`) come out.
struct PreflightMeasurements: Sendable {
    /// The connection's cumulative counters when a sample is taken.
    struct Counters: Sendable, Hashable {
        var packetsSent = 0
        var packetsReceived = 0
        var packetsLost = 0
        var bytesSent = 0
        var bytesReceived = 0
    }

    private(set) var samples: [PreflightStatsSample] = []
    private(set) var warnings: [PreflightWarningRecord] = []
    private var monitor = QualityWarningMonitor()

    /// Takes one second's figures; returns the stats sample and the warning change it caused.
    mutating func add(_ quality: CallQualitySample, counters: Counters, codec: String,
                      at date: Date) -> (sample: PreflightStatsSample, change: QualityWarningChange?) {
        let sample = PreflightStatsSample(
            timestamp: date, codec: codec, jitterMs: quality.remote.jitterMilliseconds,
            roundTripTimeMs: quality.rttMilliseconds, mos: quality.mos, packetsSent: counters.packetsSent,
            packetsReceived: counters.packetsReceived, packetsLost: counters.packetsLost,
            packetLossPercent: quality.remote.lossPercent, bytesSent: counters.bytesSent,
            bytesReceived: counters.bytesReceived, audioInputLevel: quality.local.audioLevel.mean ?? 0,
            audioOutputLevel: quality.remote.audioLevel.mean ?? 0)
        samples.append(sample)
        let change = monitor.update(with: quality)
        if let change { record(change, at: date) }
        return (sample, change)
    }

    private mutating func record(_ change: QualityWarningChange, at date: Date) {
        for warning in QualityWarning.allCases where change.raised.contains(warning) {
            warnings.append(PreflightWarningRecord(warning: warning, raisedAt: date))
        }
        for warning in change.cleared {
            guard let open = warnings.lastIndex(where: { $0.warning == warning && $0.clearedAt == nil }) else { continue }
            warnings[open].clearedAt = date
        }
    }
}
