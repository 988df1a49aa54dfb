import CallQuality
import ParleyClientCore
import ParleyCore
import Synchronization

/// Once a second while media flows: RTCP figures go to the audio engine (RTT, the far end's loss
/// for Opus FEC) and a `CallQualitySample` to Twilio's warning rules; changes reach the delegate
/// as `call(_:didReceiveQualityWarnings:previousWarnings:)`.
extension Call {
    func startSampling() {
        Task.detached { [weak self] in
            var monitor = QualityWarningMonitor()
            let clock = VoiceSettings.clock
            while let call = self, !call.snapshot.withLock({ $0.machine.isEnded }) {
                try? await clock.sleep(for: .seconds(1))
                guard let media = call.snapshot.withLock({ $0.media }),
                      let (_, sample) = await media.takeQualitySample() else { continue }
                guard let change = monitor.update(with: sample) else { continue }
                call.snapshot.withLock { $0.warnings = change.current }
                for warning in change.raised {
                    call.publish("network-quality-warning-raised", warning.rawValue, level: .warning)
                }
                for warning in change.cleared {
                    call.publish("network-quality-warning-cleared", warning.rawValue)
                }
                call.notify { $0.call($1, didReceiveQualityWarnings: change.current, previousWarnings: change.previous) }
            }
        }
    }
}
