import ParleyCore
import ParleyCrypto
import ParleyNet
import ParleyRTP

/// The loop-confined half of `SIPMediaServer`: its legs, counters and timer. Only used on
/// `loop`'s thread (reached through `LoopBound`).
final class SIPMediaCore {
    let configuration: SIPMediaServer.Configuration
    let loop: EventLoop
    var legs: [String: SIPMediaLeg] = [:]
    var statistics = SIPMediaStatistics()
    private let epoch = SystemClock.now
    private var ticking = false
    private var digitTicking = false

    init(configuration: SIPMediaServer.Configuration, loop: EventLoop) {
        self.configuration = configuration
        self.loop = loop
    }

    var now: Double { SystemClock.now.seconds(since: epoch) }

    func add(_ leg: SIPMediaLeg) {
        legs[leg.id] = leg
        statistics.legsOpened += 1
        statistics.legs = legs.count
        startTicking()
    }

    func receive(_ batch: UDPReceivedBatch, leg id: String) {
        guard let leg = legs[id] else { return }
        let now = self.now
        for index in 0..<batch.count {
            switch leg.receive(batch[index], now: now, statistics: &statistics) {
            case .dropped:
                statistics.dropped += 1
            case .digit(let first, let second):
                for key in [first, second].compactMap({ $0 }) {
                    statistics.digitsReceived += 1
                    leg.events?.send(.digit(legID: id, key))
                }
            case .audio, .rtcp:
                break
            }
        }
        for sink in leg.sinks { sink.socket.sendBatch.flush() }
    }

    func configure(_ id: String, _ parameters: SIPMediaParameters) -> Result<Void, ParleyError> {
        guard let leg = legs[id] else { return .failure(ParleyError(.notFound, reason: "no SIP media leg \(id)")) }
        do {
            try leg.configure(parameters, now: now)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    func forward(from sourceID: String, to sinkID: String) -> Bool {
        guard sourceID != sinkID, let source = legs[sourceID], let sink = legs[sinkID] else { return false }
        // Packets keep their timestamps' pace: the two legs' clock rates must agree once both are known.
        if let from = source.parameters?.clockRate, let to = sink.parameters?.clockRate, from != to { return false }
        sink.setSource(source)
        return true
    }

    func stopForwarding(to sinkID: String) {
        legs[sinkID]?.setSource(nil)
    }

    func play(_ payload: [UInt8], samples: Int, to id: String) {
        guard let leg = legs[id] else { return }
        let played = payload.withUnsafeBytes { leg.play($0, samples: samples, now: now) }
        if played { statistics.played += 1 }
        leg.socket.sendBatch.flush()
    }

    /// Queues keys for the leg (RFC 4733); false if it negotiated no telephone-event or a key is not one.
    func sendDigits(_ digits: String, to id: String) -> Bool {
        guard let leg = legs[id], leg.parameters?.telephoneEventPayloadType != nil, leg.digits.enqueue(digits) else { return false }
        statistics.digitsSent += digits.count
        if !digitTicking {
            digitTicking = true
            digitTick()
        }
        return true
    }

    /// Every 20 ms while a leg has keys to send.
    private func digitTick() {
        let now = self.now
        var busy = false
        for leg in legs.values where leg.digits.isBusy {
            if leg.sendDigitTick(now: now) { busy = true }
            leg.socket.sendBatch.flush()
        }
        guard busy else {
            digitTicking = false
            return
        }
        _ = loop.scheduleTimer(after: .milliseconds(20)) { [self] in digitTick() }
    }

    func setTap(_ tap: OffLoopDelivery<SIPMediaTapPacket>?, leg id: String) -> Bool {
        guard let leg = legs[id] else {
            tap?.finish()
            return false
        }
        leg.tap?.finish()
        leg.tap = tap
        return true
    }

    func close(_ id: String) -> Bool {
        guard let leg = legs.removeValue(forKey: id) else { return false }
        leg.unlink()
        leg.tap?.finish()
        leg.events?.send(.closed(legID: id))
        leg.events?.finish()
        leg.socket.close()
        statistics.legs = legs.count
        return true
    }

    func closeAll() {
        for id in Array(legs.keys) { _ = close(id) }
    }

    /// Once a second: RTCP reports, expired telephone events, and legs gone silent.
    private func startTicking() {
        guard !ticking else { return }
        ticking = true
        _ = loop.scheduleTimer(after: .seconds(1)) { [self] in tick() }
    }

    private func tick() {
        ticking = false
        guard !legs.isEmpty else { return }
        let now = self.now
        for leg in legs.values {
            if let key = leg.telephoneEvents.expire(now: now) {
                statistics.digitsReceived += 1
                leg.events?.send(.digit(legID: leg.id, key))
            }
            // Only a peer that sent media and stopped is gone: a phone still ringing sends nothing yet.
            if let parameters = leg.parameters, parameters.receives, leg.latched, !leg.silentReported,
               now - leg.lastReceived >= configuration.silenceTimeout.seconds {
                leg.silentReported = true
                leg.events?.send(.silent(legID: leg.id))
            }
            leg.sendReportIfDue(now: now)
            leg.socket.sendBatch.flush()
        }
        startTicking()
    }

    static func newID() -> String { "sip-" + SecureRandom.hex(byteCount: 10) }
}
