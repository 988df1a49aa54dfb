/// The playout side of `JitterBuffer`: what to play for the next frame.
extension JitterBuffer {
    /// The delay is steered into [target, target + band]; the band is at least one pull interval,
    /// since decisions fall on the owner's pull grid and a stretch moves them by whole intervals.
    static let minimumBandMicros: Int64 = 10_000
    /// Below the target by less than this (the fastest-path estimate wobbles under jitter) is left alone.
    static let expandDeadZoneMicros: Int64 = 1_000
    /// Further below the target than this, an expand may not wait for a quiet frame (late loss looms).
    static let urgentDeficitMicros: Int64 = 5_000
    /// An accelerate waits this long for a quiet frame (speech pauses every few seconds; a tone
    /// or music may never), or not at all this far above the band.
    static let quietWaitMicros: Int64 = 3_000_000
    static let urgentExcessMicros: Int64 = 40_000

    /// Decides what to play next. `time` is now: when the owner needs the audio (a device pull).
    /// The frame leaves the buffer at this moment, so a packet arriving after it is late, and
    /// the delays (`currentDelayMs`, the jitter-buffer delay) are measured to it.
    public mutating func nextFrame(at time: Int64) -> JitterBufferDecision {
        if waiting, let decision = anchor(at: time) { return decision }
        guard let position = playout else { return silence(chunk()) }
        stats.discardedPackets += store.removeAll(before: position)

        if let i = store.index(of: position) {
            let entry = store.entries[i]
            // A talkspurt start (RFC 3551 §4.1 marker): the playout point may be re-anchored to
            // the target delay here, by silence before it, with no audible damage.
            if entry.marker, !entry.isRedundant, anchoredTimestamp != entry.timestamp {
                waiting = true
                if let decision = anchor(at: time) { return decision }
                return resume(at: time)
            }
            return play(i, at: time)
        }
        return fillGap(at: time)
    }

    /// While waiting for a talkspurt: silence, one pull interval at a time, until the earliest
    /// packet at or after the playout point is due at the target delay; nil once playout has been
    /// anchored there. A packet overdue by more than a frame is dropped when a later one is held
    /// (after an outage, a burst of old packets would otherwise add its lateness to every later frame).
    mutating func anchor(at time: Int64) -> JitterBufferDecision? {
        let floor = playout ?? .min
        while let i = store.earliest(atOrAfter: floor, primaryOnly: true) {
            let entry = store.entries[i]
            guard let delay = estimator.playoutDelay(of: entry.timestamp, at: time) else { break }
            let tolerance = max(micros(samples: entry.duration), 20_000)
            if delay > estimator.target + tolerance,
               store.earliest(atOrAfter: entry.timestamp + 1, primaryOnly: true) != nil {
                store.remove(i)
                stats.latePackets += 1
                stats.discardedPackets += 1
                continue
            }
            if delay < estimator.target { return silence(chunk()) }
            stats.discardedPackets += store.removeAll(before: entry.timestamp)
            playout = entry.timestamp
            anchoredTimestamp = entry.timestamp
            waiting = false
            concealedRun = 0
            return nil
        }
        return silence(chunk())
    }

    /// Plays the frame held in slot `i`, which starts at the playout point.
    private mutating func play(_ i: Int, at time: Int64) -> JitterBufferDecision {
        let entry = store.entries[i]
        store.remove(i)  // the bytes stay until a later insert reuses the slot
        playout = entry.end
        concealedRun = 0
        if let sequence = entry.sequence {
            lastPlayedSequence = sequence
            stats.decodedFrames += 1
        } else {
            stats.redRecoveredFrames += 1
            estimator.recordRecovery(arrival: entry.arrival, timestamp: entry.timestamp)
        }
        let slot = JitterBufferSlot(index: i)
        return emit(entry.isRedundant ? .decodeRedundant(slot) : .decode(slot), timestamp: entry.timestamp,
                    samples: entry.duration, payloadType: entry.payloadType, arrival: entry.arrival, at: time)
    }

    /// Nothing is held for the playout point: a DTX pause, FEC from the next packet, or concealment.
    private mutating func fillGap(at time: Int64) -> JitterBufferDecision {
        guard let position = playout else { return silence(chunk()) }
        let next = store.earliest(atOrAfter: position)
        if let n = next {
            let entry = store.entries[n]
            // The next packet follows the last one played with no sequence gap, or starts a
            // talkspurt: nothing was lost, the sender paused (DTX). Re-anchor there.
            let contiguous = lastPlayedSequence.map { entry.sequence == $0 + 1 } ?? false
            if !entry.isRedundant, entry.marker || contiguous {
                waiting = true
                if let decision = anchor(at: time) { return decision }
                return resume(at: time)
            }
        }
        if concealedRun >= samples(micros: Int64(configuration.maxConcealmentMs) * 1_000) {
            // Concealed long enough: play silence and re-anchor at whatever comes next.
            waiting = true
            if let decision = anchor(at: time) { return decision }
            return resume(at: time)
        }
        let gap = next.map { Int(store.entries[$0].timestamp - position) } ?? frameDuration
        if configuration.fecEnabled, let n = next, gap <= store.entries[n].duration {
            // Opus LBRR (RFC 6716 §2.1.7): the next packet describes the frame just before it.
            let entry = store.entries[n]
            playout = position + Int64(gap)
            concealedRun = 0
            stats.fecRecoveredFrames += 1
            estimator.recordRecovery(arrival: entry.arrival, timestamp: position)
            return emit(.recoverFromFEC(JitterBufferSlot(index: n)), timestamp: position, samples: gap,
                        payloadType: entry.payloadType, arrival: entry.arrival, at: time)
        }
        let samples = min(gap, frameDuration)
        if concealedRun == 0 { stats.concealmentEvents += 1 }
        concealedRun += samples
        stats.concealedSamples += samples
        noteConcealed(position)
        playout = position + Int64(samples)
        return JitterBufferDecision(action: .conceal, timestamp: UInt32(truncatingIfNeeded: position), samples: samples,
                                    payloadType: 0, timeStretch: .none, jitterBufferDelay: nil)
    }

    /// After an anchor started playback: play the frame now at the playout point.
    private mutating func resume(at time: Int64) -> JitterBufferDecision {
        guard let position = playout, let i = store.index(of: position) else { return silence(chunk()) }
        return play(i, at: time)
    }

    private mutating func emit(_ action: JitterBufferDecision.Action, timestamp: Int64, samples: Int,
                               payloadType: UInt8, arrival: Int64, at time: Int64) -> JitterBufferDecision {
        let delay = estimator.playoutDelay(of: timestamp, at: time) ?? estimator.target
        lastPlayoutDelay = delay
        recordEmission(delay: time - arrival)
        return JitterBufferDecision(action: action, timestamp: UInt32(truncatingIfNeeded: timestamp), samples: samples,
                                    payloadType: payloadType, timeStretch: stretch(delay: delay, at: time),
                                    jitterBufferDelay: time - arrival)
    }

    /// Steers the delay into [target, target + band]. Removing L samples brings the next decision
    /// forward by up to ⌈L / pull⌉ pull intervals, so the removal is capped to keep the delay at
    /// or above the target: one interval when the excess is under two, the excess less one above.
    /// Only a deficit over `urgentDeficitMicros`, or an excess lasting `quietWaitMicros` or over
    /// `urgentExcessMicros` above the band, is urgent; otherwise a quiet frame is awaited (see
    /// `TimeStretchRequest`).
    private mutating func stretch(delay: Int64, at time: Int64) -> TimeStretchRequest {
        let target = estimator.target
        let band = max(Self.minimumBandMicros, pullInterval)
        if delay < target + band { excessSince = nil }
        if delay < target - Self.expandDeadZoneMicros {
            return .expand(maxSamples: samples(micros: target + band - delay),
                           urgent: delay < target - Self.urgentDeficitMicros)
        }
        guard delay >= target + band else { return .none }
        let since = excessSince ?? time
        excessSince = since
        let excess = delay - target
        let urgent = time - since >= Self.quietWaitMicros || excess >= band + Self.urgentExcessMicros
        return .accelerate(maxSamples: samples(micros: max(min(excess, pullInterval), excess - pullInterval)),
                           urgent: urgent)
    }

    private mutating func silence(_ samples: Int) -> JitterBufferDecision {
        stats.silentSamples += samples
        return JitterBufferDecision(action: .silence, timestamp: UInt32(truncatingIfNeeded: playout ?? 0), samples: samples,
                                    payloadType: 0, timeStretch: .none, jitterBufferDelay: nil)
    }

    /// Silence is handed out one pull interval at a time, so a talkspurt starts on the first pull
    /// at which it is due.
    private func chunk() -> Int { max(samples(micros: pullInterval), 1) }

    func samples(micros: Int64) -> Int { Int(max(micros, 0) * Int64(configuration.clockRate) / 1_000_000) }

    func micros(samples: Int) -> Int64 { Int64(samples) * 1_000_000 / Int64(configuration.clockRate) }
}
