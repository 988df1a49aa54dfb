import CallQuality
import Foundation
import ParleyCore

/// Once a second while media flows: RTCP figures go to the audio engine (RTT, the far end's loss
/// for Opus FEC) and a `CallQualitySample` to Twilio's warning rules; changes reach the delegate
/// as `call(_:didReceiveQualityWarnings:previousWarnings:)`.
extension Call {
    func startSampling() {
        Task.detached { [weak self] in
            var monitor = QualityWarningMonitor()
            var previousLocal = StreamCounters(), previousRemote = StreamCounters()
            while let call = self, !call.snapshot.withLock({ $0.machine.isEnded }) {
                try? await Task.sleep(for: .seconds(1))
                guard let media = call.snapshot.withLock({ $0.media }), let engine = media.audioEngine else { continue }
                let peer = await media.peer.statistics()
                if let rtt = peer.roundTripTime { engine.updateRoundTripTime(rtt.milliseconds) }
                if let fraction = peer.remoteFractionLost {
                    engine.reportRemoteLoss(fractionLost: fraction, cumulativePacketsLost: peer.remoteCumulativeLost.map(Int64.init))
                }
                let audio = engine.statistics()
                let local = StreamCounters(packets: UInt64(peer.packetsSent), bytes: peer.payloadBytesSent,
                                           packetsLost: Int64(peer.remoteCumulativeLost ?? 0))
                let remote = StreamCounters(packets: UInt64(peer.packetsReceived), bytes: peer.payloadBytesReceived,
                                            packetsLost: peer.cumulativeLost)
                let sample = CallQualitySample(
                    time: Int64(DispatchTime.now().uptimeNanoseconds / 1000), rttMilliseconds: peer.roundTripTime?.milliseconds,
                    local: StreamSample(from: previousLocal, to: local, audioLevel: AudioLevelSummary(level: audio.local.inputLevel)),
                    remote: StreamSample(from: previousRemote, to: remote, jitterMilliseconds: audio.remote.jitterMs,
                                         audioLevel: AudioLevelSummary(level: audio.remote.outputLevel)),
                    codec: CodecName(rawValue: peer.codec?.rawValue ?? "opus"), isInputMuted: call.isMuted)
                previousLocal = local
                previousRemote = remote
                guard let change = monitor.update(with: sample) else { continue }
                call.snapshot.withLock { $0.warnings = change.current }
                for warning in change.current.subtracting(change.previous) {
                    call.publish("network-quality-warning-raised", warning.rawValue, level: .warning)
                }
                for warning in change.previous.subtracting(change.current) {
                    call.publish("network-quality-warning-cleared", warning.rawValue)
                }
                call.notify { $0.call($1, didReceiveQualityWarnings: change.current, previousWarnings: change.previous) }
            }
        }
    }
}
