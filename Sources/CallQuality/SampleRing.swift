/// The last `capacity` samples of one figure, in a buffer allocated once.
struct SampleRing<Element: Sendable>: Sendable {
    private var storage: [Element?]
    private var next = 0
    private(set) var count = 0

    init(capacity: Int) {
        storage = Array(repeating: nil, count: max(capacity, 1))
    }

    var capacity: Int { storage.count }

    mutating func append(_ element: Element) {
        storage[next] = element
        next = (next + 1) % storage.count
        count = min(count + 1, storage.count)
    }

    mutating func removeAll() {
        for i in storage.indices { storage[i] = nil }
        next = 0
        count = 0
    }

    /// The newest sample.
    var last: Element? { count > 0 ? storage[(next + storage.count - 1) % storage.count] : nil }

    /// Calls `body` on up to `n` of the newest samples, oldest first; returns how many it visited.
    @discardableResult
    func forEachRecent(_ n: Int, _ body: (Element) -> Void) -> Int {
        let k = min(max(n, 0), count)
        for i in 0..<k {
            let index = (next + storage.count - k + i) % storage.count
            if let element = storage[index] { body(element) }
        }
        return k
    }
}

/// A window of optional readings, judged the way twilio.js's statsMonitor does: if any reading in
/// the window is missing, nothing is decided.
struct WindowSummary {
    var samples = 0
    var crossing = 0
    var sum = 0.0

    /// Summarizes up to `n` of the newest readings of `ring`; nil if any of them is missing.
    init?(_ ring: SampleRing<Double?>, last n: Int, crosses: (Double) -> Bool) {
        var missing = false
        ring.forEachRecent(n) { value in
            guard let value else { missing = true; return }
            samples += 1
            sum += value
            if crosses(value) { crossing += 1 }
        }
        if missing || samples == 0 { return nil }
    }

    var average: Double { samples > 0 ? sum / Double(samples) : 0 }
}
