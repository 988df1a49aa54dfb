import Foundation
import ParleyNet

/// Paces every leg at 50 packets/s (one 20 ms Opus frame each), spread evenly over the 20 ms:
/// send number j goes to leg j mod L at start + j × 20 ms / L, so the server sees a steady
/// stream rather than a burst of L packets every 20 ms. Runs on the client loop; the loop's
/// timers have millisecond resolution, so each tick sends whatever is due (about L/20 packets).
final class CallsBenchPacer: @unchecked Sendable {
    static let frameNanos: UInt64 = 20_000_000

    let loop: EventLoop
    let legs: [any CallsBenchPaced]
    private var startedAt: UInt64 = 0
    private var next = 0
    private var running = false
    /// How far behind schedule the client ran at worst (ns): a large value means the load
    /// generator, not the server, was the bottleneck.
    private(set) var maxLagNanos: UInt64 = 0
    private(set) var lateSends = 0

    init(loop: EventLoop, legs: [any CallsBenchPaced]) {
        self.loop = loop
        self.legs = legs
    }

    /// Loop thread.
    func start() {
        startedAt = DispatchTime.now().uptimeNanoseconds
        running = true
        tick()
    }

    /// Loop thread.
    func stop() { running = false }

    /// Loop thread: resets the lag figures (after the warm-up).
    func resetLag() {
        maxLagNanos = 0
        lateSends = 0
    }

    private func tick() {
        guard running, !legs.isEmpty else { return }
        let count = UInt64(legs.count)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let due = startedAt + UInt64(next) * Self.frameNanos / count
            if due > now { break }
            let lag = now - due
            maxLagNanos = max(maxLagNanos, lag)
            if lag > 5_000_000 { lateSends += 1 }
            legs[next % legs.count].sendPacket(now: now)
            next += 1
        }
        loop.schedule(after: .milliseconds(1)) { [self] in tick() }
    }
}

/// A client leg the pacer drives (loop thread).
protocol CallsBenchPaced: AnyObject {
    func sendPacket(now: UInt64)
}

extension CallsBenchLeg: CallsBenchPaced {}
extension SIPCallsBenchPhone: CallsBenchPaced {}
