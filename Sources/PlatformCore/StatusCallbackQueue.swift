import ParleyCore
import Synchronization
import TwiML

/// Delivers status callbacks in the background, signed, retrying failures with exponential
/// backoff (1, 2, 4, 8, 16 s: five retries). Enqueueing never waits, so a slow or dead callback
/// URL never holds up a call; the queue is bounded and counts what it drops. Callbacks of one call
/// are delivered in order (initiated before ringing before answered before completed).
package final class StatusCallbackQueue: Sendable {
    package struct Delivery: Sendable {
        package var url: String
        package var method: TwiMLMethod
        package var parameters: [(String, String)]
        package var authToken: String

        package init(url: String, method: TwiMLMethod, parameters: [(String, String)], authToken: String) {
            self.url = url
            self.method = method
            self.parameters = parameters
            self.authToken = authToken
        }
    }

    package struct Statistics: Sendable, Equatable {
        package var delivered = 0
        package var retried = 0
        package var failed = 0
        package var dropped = 0
        package var inFlight = 0
    }

    let webhooks: WebhookClient
    let maxInFlight: Int
    let retryDelays: [Duration]
    private let stats = Mutex(Statistics())
    /// The last delivery queued per call, which the next one of that call waits for.
    private let tails = Mutex<[String: (id: Int, task: Task<Void, Never>)]>([:])
    private let nextID = Atomic<Int>(0)

    /// The time source of the retry delays.
    private let clock: any MonotonicClock

    package init(webhooks: WebhookClient, maxInFlight: Int = 10_000,
         retryDelays: [Duration] = [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16)],
         clock: any MonotonicClock = SystemClock()) {
        self.clock = clock
        self.webhooks = webhooks
        self.maxInFlight = maxInFlight
        self.retryDelays = retryDelays
    }

    package var statistics: Statistics { stats.withLock { $0 } }

    /// Starts delivering `delivery` after the earlier ones with the same `key` (the call SID);
    /// returns at once.
    package func enqueue(_ delivery: Delivery, key: String) {
        let admitted = stats.withLock { s -> Bool in
            guard s.inFlight < maxInFlight else {
                s.dropped += 1
                return false
            }
            s.inFlight += 1
            return true
        }
        guard admitted else {
            Log.warning(.platform, "status callback to \(WebhookClient.redacted(delivery.url)) dropped: queue full")
            return
        }
        let id = nextID.add(1, ordering: .relaxed).newValue
        tails.withLock { tails in
            let previous = tails[key]?.task
            let task = Task.detached { [self] in
                await previous?.value
                await deliver(delivery)
                self.tails.withLock { if $0[key]?.id == id { $0[key] = nil } }
            }
            tails[key] = (id, task)
        }
    }

    private func deliver(_ delivery: Delivery) async {
        var attempt = 0
        while true {
            var ok = false
            do {
                let reply = try await webhooks.send(url: delivery.url, method: delivery.method,
                                                    parameters: delivery.parameters, authToken: delivery.authToken)
                ok = (200..<300).contains(reply.status)
                // 4xx other than 408/429 will not get better by retrying.
                if !ok, (400..<500).contains(reply.status), reply.status != 408, reply.status != 429 { break }
            } catch {
                Log.debug(.platform, "status callback attempt \(attempt + 1) failed: \(error)")
            }
            if ok {
                stats.withLock { $0.delivered += 1; $0.inFlight -= 1 }
                return
            }
            guard attempt < retryDelays.count else { break }
            stats.withLock { $0.retried += 1 }
            try? await clock.sleep(for: retryDelays[attempt])
            attempt += 1
        }
        Log.warning(.platform, "status callback to \(WebhookClient.redacted(delivery.url)) failed after \(attempt + 1) attempts")
        stats.withLock { $0.failed += 1; $0.inFlight -= 1 }
    }
}
