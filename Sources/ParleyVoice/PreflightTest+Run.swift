import AudioDevices
import CallQuality
import Foundation
import ParleyCore
import Synchronization
import WebRTC

/// How a preflight test runs: offer to the echo service, connect media, send audio and sample
/// it once a second for the duration, then report. The same connection code as calls (`CallMedia`).
extension PreflightTest {
    /// Starts the test's task.
    func launch() {
        let driver = Task.detached { await self.run() }
        let stopped = snapshot.withLock { snapshot in
            snapshot.driver = driver
            return snapshot.isStopRequested
        }
        if stopped { driver.cancel() }
    }

    private func run() async {
        var outcome: Result<PreflightReport, ParleyError>
        do throws(ParleyError) {
            outcome = .success(try await measure())
        } catch {
            outcome = .failure(error)
        }
        if case .failure = outcome, isStopRequested, state == .connecting {
            outcome = .failure(ParleyError(.callCancelled, reason: "the preflight test was stopped before media connected"))
        }
        // Not cancelled with the test: the echo session is ended and the sockets closed either way.
        await Task.detached { await self.release() }.value
        finish(outcome)
    }

    private func measure() async throws(ParleyError) -> PreflightReport {
        let server = try VoiceSettings.server(for: edge)
        let media = try CallMedia(options: options.media)
        snapshot.withLock { $0.media = media }
        let offer = try await media.peer.createOffer()
        try checkNotStopped()
        let session = try await PreflightEcho.create(server: server, token: options.accessToken, offer: offer)
        if let location = session.location { snapshot.withLock { $0.echo = (server, location) } }
        try checkNotStopped()
        do { try await media.peer.setRemoteAnswer(session.answer) } catch {
            throw ParleyError(.mediaConnection, reason: "the echo service's answer: \(error.failureReason ?? error.code.text)")
        }
        try await waitUntilConnected(media)
        snapshot.withLock { $0.state = .connected }
        notify { $0.preflightDidConnect($1) }

        let tone = options.audioDevice == nil ? try? ToneAudioDevice(frequency: 440, levelDBFS: -12) : nil
        guard let device = options.audioDevice ?? tone else {
            throw ParleyError(.mediaConnection, reason: "no audio device for the preflight tone")
        }
        do { try await media.startAudio(device: device, onDigit: { _ in }) } catch {
            throw ParleyError(.mediaConnection, reason: "audio did not start: \(error.failureReason ?? error.code.text)")
        }
        let measurements = try await sample(media, tone: tone)
        let statistics = await media.peer.statistics()
        return PreflightReport(callSid: callSid, edge: edge, networkTiming: PreflightNetworkTiming(statistics.timings),
                               selectedIceCandidatePair: PreflightCandidatePair(local: statistics.localCandidate,
                                                                                remote: statistics.remoteCandidate),
                               statsSamples: measurements.samples, qualityWarnings: measurements.warnings)
    }

    private func checkNotStopped() throws(ParleyError) {
        if isStopRequested { throw ParleyError(.callCancelled, reason: "the preflight test was stopped") }
    }

    /// Waits for ICE and DTLS (the connection's own timeout turns a silent path into `.failed`).
    private func waitUntilConnected(_ media: CallMedia) async throws(ParleyError) {
        for await state in media.peer.states {
            switch state {
            case .connected: return
            case .failed, .closed:
                let failure = await media.peer.statistics().failure
                throw ParleyError(.mediaConnection, reason: failure?.failureReason ?? "media connection \(state.rawValue)")
            default: continue
            }
        }
        try checkNotStopped()
        throw ParleyError(.mediaConnection, reason: "media connection ended before connecting")
    }

    /// One sample a second until the duration is over or `stop()`; RTCP figures go to the audio
    /// engine first (RTT for its MOS, the far end's loss for Opus FEC), as during calls. The
    /// generated tone changes level each second (−12/−22 dBFS peak) so its level is not constant.
    private func sample(_ media: CallMedia, tone: ToneAudioDevice?) async throws(ParleyError) -> PreflightMeasurements {
        guard media.audioEngine != nil else { throw ParleyError(.mediaConnection, reason: "audio did not start") }
        var measurements = PreflightMeasurements()
        let clock = VoiceSettings.clock
        let start = clock.now, end = start.advanced(by: options.duration)
        var second = 1
        while true {
            let next = min(start.advanced(by: .seconds(second)), end)
            try? await clock.sleep(until: next)
            if isStopRequested { break }
            guard let (peer, quality) = await media.takeQualitySample() else {
                throw ParleyError(.mediaConnection, reason: "audio stopped")
            }
            if peer.state.isTerminal {
                throw ParleyError(.mediaConnection, reason: peer.failure?.failureReason ?? "media connection \(peer.state.rawValue)")
            }
            let counters = PreflightMeasurements.Counters(
                packetsSent: Int(peer.packetsSent), packetsReceived: Int(peer.packetsReceived),
                packetsLost: Int(peer.cumulativeLost), bytesSent: Int(peer.payloadBytesSent),
                bytesReceived: Int(peer.payloadBytesReceived))
            let (sample, change) = measurements.add(quality, counters: counters,
                                                    codec: peer.codec?.rawValue.lowercased() ?? "unknown", at: Date())
            notify { $0.preflight($1, didReceiveStatsSample: sample) }
            if let change {
                notify { $0.preflight($1, didReceiveQualityWarnings: change.current, previousWarnings: change.previous) }
            }
            tone?.setTone(frequency: 440, levelDBFS: second.isMultiple(of: 2) ? -12 : -22)
            if next >= end { break }
            second += 1
        }
        return measurements
    }

    /// Ends the echo session and closes the media.
    private func release() async {
        let (media, echo) = snapshot.withLock { snapshot in
            defer { snapshot.media = nil; snapshot.echo = nil }
            return (snapshot.media, snapshot.echo)
        }
        await media?.close()
        if let echo { await PreflightEcho.delete(server: echo.server, location: echo.location, token: options.accessToken) }
    }
}
