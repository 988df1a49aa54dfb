/// A receive-side, delay-based bandwidth estimate (draft-ietf-rmcat-gcc-02 §5) for the media that
/// arrives with abs-send-time: packets grouped by send time (§5.2), each group's delay variation
/// into a trendline (§5.3), the over-use detector (§5.4) and the AIMD rate controller (§5.5) on the
/// incoming rate over the last second. What a receiver sends back in REMB
/// (draft-alvestrand-rmcat-remb-03): `report(now:)` says when — every `reportInterval`, and at once
/// when the estimate fell by more than `reportDrop` since the last one sent.
///
/// A value on times passed in (seconds of any monotonic clock); fixed storage, so adding a packet
/// allocates nothing.
public struct RemoteBitrateEstimator: Sendable, Hashable {
    public static let reportInterval = 1.0
    /// A fall to under this share of the last estimate reported is reported at once.
    public static let reportDrop = 0.97
    /// Larger is no UDP datagram: ignored.
    static let maxPacketSize = 65_535

    var groups = PacketGroups()
    var trendline = DelayTrendline()
    var detector = DelayOveruseDetector()
    var incoming = IncomingRate()
    var control = AIMDRateControl()
    var lastReported: Int?
    var nextReport = -Double.infinity

    public init() {}

    /// The estimate (A_hat), bits per second; nil until the incoming rate has been measured for
    /// `AIMDRateControl.initialization` or the path first showed over-use.
    public var bitrate: Int? { control.bitrate }
    /// The detector's latest signal.
    public var usage: BandwidthUsage { detector.usage }
    /// The incoming rate (R_hat) as last measured, bits per second.
    public var incomingBitrate: Int? { control.latestIncoming }

    /// A packet of `size` bytes whose abs-send-time extension holds `absSendTime` (its low 24 bits),
    /// arrived at `arrival` seconds.
    public mutating func received(absSendTime: UInt32, size: Int, arrival: Double) {
        guard arrival.isFinite, (1...Self.maxPacketSize).contains(size) else { return }
        let now = arrival * 1_000
        incoming.add(size, now: now)
        guard let delta = groups.add(absSendTime: absSendTime, arrival: now, size: size) else { return }
        trendline.add(delta, arrival: now)
        let usage = detector.detect(trendline, sendDelta: delta.send, now: now)
        control.update(usage, incoming: incoming.bitrate(now: now), now: now)
    }

    /// The estimate to send now, if one is due: the first, one a `reportInterval` after the last,
    /// or one under `reportDrop` of the last.
    public mutating func report(now: Double) -> Int? {
        guard let bitrate = control.bitrate else { return nil }
        let fell = lastReported.map { Double(bitrate) < Double($0) * Self.reportDrop } ?? true
        guard fell || now >= nextReport else { return nil }
        lastReported = bitrate
        nextReport = now + Self.reportInterval
        return bitrate
    }
}
