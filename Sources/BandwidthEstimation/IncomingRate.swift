/// The incoming bitrate R_hat of draft-ietf-rmcat-gcc-02 §5.5: bytes received over the last
/// `window` ms, in `buckets` fixed buckets (no allocation per packet). Until a window has passed
/// since the first packet, the rate is over the time since it (at least one bucket).
public struct IncomingRate: Sendable, Hashable {
    public static let window = 1_000.0
    static let buckets = 20
    static let bucketLength = window / Double(buckets)

    var bytes = [Int](repeating: 0, count: buckets)
    var total = 0
    /// The newest bucket's number (time / bucketLength), and the first packet's time.
    var newest: Int64?
    var start: Double?

    public init() {}

    /// `size` bytes arrived at `now` ms.
    public mutating func add(_ size: Int, now: Double) {
        guard now.isFinite, size > 0 else { return }
        advance(to: now)
        guard let newest else { return }
        let bucket = Self.bucket(now)
        guard bucket > newest - Int64(Self.buckets), bucket <= newest else { return }  // older than the window
        bytes[Self.slot(bucket)] += size
        total += size
    }

    /// Bits per second at `now` ms; nil when nothing arrived within the window.
    public mutating func bitrate(now: Double) -> Int? {
        guard now.isFinite, start != nil else { return nil }
        advance(to: now)
        guard total > 0, let start else { return nil }
        let span = min(max(now - start, Self.bucketLength), Self.window)
        return Int(Double(total) * 8_000 / span)
    }

    /// Empties the buckets that fell out of the window by `now`.
    mutating func advance(to now: Double) {
        let bucket = Self.bucket(now)
        guard let last = newest else {
            newest = bucket
            start = now
            return
        }
        guard bucket > last else { return }
        if bucket - last >= Int64(Self.buckets) {
            for i in bytes.indices { bytes[i] = 0 }
            total = 0
            start = now  // a silence longer than the window: measure afresh
        } else {
            var b = last + 1
            while b <= bucket {
                total -= bytes[Self.slot(b)]
                bytes[Self.slot(b)] = 0
                b += 1
            }
        }
        newest = bucket
    }

    /// Clamped far past any real clock, so a garbage time cannot trap the conversion.
    static func bucket(_ time: Double) -> Int64 { Int64(min(max(time / bucketLength, -1e15), 1e15).rounded(.down)) }
    static func slot(_ bucket: Int64) -> Int { Int(((bucket % Int64(buckets)) + Int64(buckets)) % Int64(buckets)) }
}
