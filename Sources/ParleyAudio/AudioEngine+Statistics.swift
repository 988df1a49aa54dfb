import CallQuality

extension AudioEngine {
    /// Both streams' figures now, with the RTT and the MOS it gives.
    public func statistics() -> AudioEngineStatistics {
        var statistics = AudioEngineStatistics(codec: configuration.send.codec)
        let (local, rtt) = withSendSide { side -> (AudioEngineStatistics.Local, Double?) in
            var local = AudioEngineStatistics.Local()
            local.ssrc = side.ssrc
            local.packetsSent = side.packetsSent
            local.bytesSent = side.bytesSent
            local.telephoneEventPacketsSent = side.telephoneEventPacketsSent
            local.inputLevel = side.inputLevel
            local.isMuted = side.isMuted
            local.isOnHold = side.isOnHold
            local.isFECEnabled = side.stream.fec.isEnabled
            local.remoteFractionLost = side.remoteFractionLost.map { Double($0) / 256 }
            local.remotePacketsLost = side.remotePacketsLost
            local.remoteJitterMs = side.remoteJitterMs
            local.encodeErrors = side.encodeErrors
            return (local, side.roundTripTimeMs)
        }
        statistics.local = local
        statistics.remote = withReceiveSide { $0.statistics() }
        statistics.roundTripTimeMs = rtt
        if let rtt, statistics.remote.packetsReceived > 0 {
            statistics.mos = MOS.calculate(rttMilliseconds: rtt, jitterMilliseconds: statistics.remote.jitterMs,
                                           lossPercent: statistics.remote.lossFraction * 100)
        }
        return statistics
    }

    /// One sample for `QualityWarningMonitor` and `MediaMetricsMonitor` (the SDK takes one a
    /// second): packets, bytes and loss since the previous sample (twilio.js `_createSample`
    /// deltas), the received stream's jitter, the level readings of the interval (one per
    /// 100 ms: the microphone's, 0 while muted, and the playout's), the RTT and its MOS.
    /// - Parameter time: when the interval ends (µs of the engine's clock); now by default.
    public func qualitySample(at time: Int64? = nil) -> CallQualitySample {
        let end = time ?? now
        let (local, rtt, muted) = withSendSide { side -> (StreamSample, Double?, Bool) in
            let counters = side.counters
            let sample = StreamSample(from: side.sampledCounters, to: counters, jitterMilliseconds: side.remoteJitterMs,
                                      audioLevel: side.takeLevelReadings())
            side.sampledCounters = counters
            return (sample, side.roundTripTimeMs, side.isMuted)
        }
        let remote = withReceiveSide { side -> StreamSample in
            let statistics = side.statistics()
            let counters = StreamCounters(packets: UInt64(statistics.packetsReceived),
                                          bytes: UInt64(statistics.bytesReceived),
                                          packetsLost: Int64(statistics.packetsLost))
            let sample = StreamSample(from: side.sampledCounters, to: counters,
                                      jitterMilliseconds: statistics.ssrc == nil ? nil : statistics.jitterMs,
                                      audioLevel: side.takeLevelReadings())
            side.sampledCounters = counters
            return sample
        }
        return CallQualitySample(time: end, rttMilliseconds: rtt, local: local, remote: remote,
                                 codec: CodecName(rawValue: configuration.send.codec.rawValue), isInputMuted: muted)
    }
}
