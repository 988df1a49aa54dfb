import BandwidthEstimation

/// A sender and a bottleneck on a virtual clock, for the estimator's tests: video frames at `fps`
/// of `sendRate` bits/s, each split into packets of at most 1,200 bytes and sent at once (as an
/// SFU forwards them), stamped with abs-send-time; a FIFO link of `capacity` bits/s with a
/// drop-tail queue of at most `queueLimit` seconds, then `propagation` seconds of delay.
struct PathSimulation {
    var sendRate: Int
    var capacity: Int
    var fps = 30.0
    var propagation = 0.02
    var queueLimit = 0.25
    /// abs-send-time of the sender's clock at virtual time 0 (2^-18 s units, 24 bits).
    var sendClockOffset: UInt32 = 0
    /// The virtual time, seconds.
    private(set) var now = 0.0
    /// When the link finishes sending what it holds.
    private var linkFree = 0.0
    private(set) var dropped = 0
    var estimator = RemoteBitrateEstimator()
    /// Every estimate reported (`report(now:)`), with its time.
    private(set) var reports: [(time: Double, bitrate: Int)] = []
    /// Usage signals seen, counted.
    private(set) var overuses = 0

    init(sendRate: Int, capacity: Int) {
        self.sendRate = sendRate
        self.capacity = capacity
    }

    /// The 24-bit abs-send-time of virtual time `t`.
    func absSendTime(_ t: Double) -> UInt32 {
        (UInt32(truncatingIfNeeded: Int64(t * 262_144)) &+ sendClockOffset) & 0xFF_FFFF
    }

    /// Runs `seconds` of frames; arrivals are handed to the estimator in arrival order.
    mutating func run(for seconds: Double) {
        let end = now + seconds
        while now < end {
            var frameBytes = Int(Double(sendRate) / 8 / fps)
            var arrivals: [(arrival: Double, send: UInt32, size: Int)] = []
            let stamp = absSendTime(now)
            while frameBytes > 0 {
                let size = min(frameBytes, 1_200)
                frameBytes -= size
                let start = max(now, linkFree)
                guard start - now <= queueLimit else {
                    dropped += 1
                    continue
                }
                linkFree = start + Double(size * 8) / Double(capacity)
                arrivals.append((linkFree + propagation, stamp, size))
            }
            for packet in arrivals { deliver(packet) }
            now += 1 / fps
        }
    }

    mutating func deliver(_ packet: (arrival: Double, send: UInt32, size: Int)) {
        let before = estimator.usage
        estimator.received(absSendTime: packet.send, size: packet.size, arrival: packet.arrival)
        if estimator.usage == .overusing, before != .overusing { overuses += 1 }
        if let bitrate = estimator.report(now: packet.arrival) { reports.append((packet.arrival, bitrate)) }
    }

    /// The first report at or after `t` under `bitrate`, if any: its time.
    func firstReport(after t: Double, below bitrate: Int) -> Double? {
        reports.first { $0.time >= t && $0.bitrate < bitrate }?.time
    }
}
